/**
 * Resolvers: thin adapters from the Strapi-style schema to the query layer (no SQL here). Records
 * are answered in the REST API's shape (`assetShape`), groups in `groupShape`'s names.
 */
import { Kind, valueFromASTUntyped, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode, type ValueNode } from 'graphql';
import type { GroupEntity } from '../../domain/groups.ts';
import { assetShape, groupShape, importShape, type AssetShape, type GroupShape, type ImportShape } from '../api/shapes.ts';
import { jsonProblem } from '../http/input.ts';
import {
  countGroups,
  countRecordsFast,
  groupGroups,
  groupRecords,
  RECORD_GROUP_FIELDS,
  type GroupCountRow,
  type RecordGroupField,
  type RecordParent,
} from '../queries/connections.ts';
import { byDimension, DIMENSIONS } from '../queries/dimensions.ts';
import { findGroups, findRecords, type GroupSortField, type RecordSortField, type Window } from '../queries/find.ts';
import { getGroupItem, type GroupFilter, type GroupItem } from '../queries/groups.ts';
import {
  countImports,
  findImports,
  groupImports,
  IMPORT_GROUP_FIELDS,
  type ImportFilter,
  type ImportGroupField,
  type ImportSortField,
} from '../queries/imports.ts';
import type { RecordFilter } from '../queries/record-filter.ts';
import { getRecord } from '../queries/records.ts';
import {
  badInput,
  groupWhere,
  groupWindow,
  idOf,
  importWhere,
  importWindow,
  recordWhere,
  recordWindow,
  type ListArgs,
} from './args.ts';
import type { GraphqlContext } from './context.ts';
import { GROUPS_ESTIMATE } from './limits.ts';
import { DEFAULT_LIMIT, DEFAULT_NESTED_LIMIT } from './typeDefs.ts';

// ---------------------------------------------------------------------------------------------
// Groups: a source, department or category, whole or known only by what a record carries of it

interface GroupNode {
  entity: GroupEntity;
  id: number;
  shape: GroupShape | null;
  /** What the parent already knows (a record's category title …): answered without a query. */
  partial: Partial<GroupShape>;
}

const groupNode = (entity: GroupEntity, item: GroupItem, origin: string): GroupNode => ({
  entity,
  id: item.id,
  shape: groupShape(entity, item, origin),
  partial: {},
});
const partialNode = (entity: GroupEntity, id: number, partial: Partial<GroupShape>): GroupNode => ({ entity, id, shape: null, partial });

function groupField(field: keyof GroupShape) {
  return async (node: GroupNode, _args: unknown, context: GraphqlContext) => {
    if (node.shape) return node.shape[field];
    if (Object.hasOwn(node.partial, field)) return node.partial[field];
    const item = await context.loadGroup(node.entity, node.id);
    return item ? groupShape(node.entity, item, context.origin)[field] : null;
  };
}

/** A group's or an import's own `alexandrias(where, sort, limit, start)`. */
async function recordsOf(parent: RecordParent, id: number, args: ListArgs, context: GraphqlContext): Promise<AssetShape[]> {
  const filter = recordWhere(args.where);
  // The filter field that already names a parent's records (an import has none).
  const key = parent === 'imp' ? undefined : DIMENSIONS[parent].filterKey;
  if (key) {
    // A where naming the parent again adds nothing; naming another one leaves nothing.
    if (filter[key] !== undefined && filter[key] !== id) return [];
    delete filter[key];
  }
  const records = await context.loadRecordsOf(parent, id, filter, recordWindow(args, DEFAULT_NESTED_LIMIT));
  return records.map((record) => assetShape(record, context.origin));
}

function groupTypeResolvers(fields: Array<keyof GroupShape>) {
  return {
    id: (node: GroupNode) => node.id,
    _id: (node: GroupNode) => node.id,
    ...Object.fromEntries(fields.map((field) => [field, groupField(field)])),
    alexandrias: (node: GroupNode, args: ListArgs, context: GraphqlContext) => recordsOf(node.entity, node.id, args, context),
  };
}

async function groupById(entity: GroupEntity, id: unknown, context: GraphqlContext): Promise<GroupNode | null> {
  const item = await getGroupItem(context.db, entity, idOf(id, 'id'));
  return item ? groupNode(entity, item, context.origin) : null;
}

async function groupList(entity: GroupEntity, args: ListArgs, context: GraphqlContext): Promise<GroupNode[]> {
  const items = await findGroups(context.db, entity, groupWhere(entity, args.where), groupWindow(entity, args, DEFAULT_LIMIT));
  return items.map((item) => groupNode(entity, item, context.origin));
}

// ---------------------------------------------------------------------------------------------
// Connections: the arguments of `<plural>Connection`, checked once, carried down to what is asked

interface Connection<F, S extends string> {
  filter: F;
  window: Window<S>;
  /** The count, when a groupBy already knows it. */
  count?: number;
}

interface ConnectionOps<F, S extends string, V, G extends string> {
  /** Cache key of the unfiltered total. */
  name: string;
  values(context: GraphqlContext, connection: Connection<F, S>): Promise<V[]>;
  count(context: GraphqlContext, filter: F): Promise<number>;
  groupFields: readonly G[];
  group(context: GraphqlContext, filter: F, field: G): Promise<GroupCountRow[]>;
  /** The filter of one groupBy key's connection. */
  withKey(filter: F, field: G, key: string | number): F;
}

/** The fields named `name` in `selectionSet`, looking through fragments. */
function selected(selectionSet: SelectionSetNode | undefined, name: string, info: GraphQLResolveInfo): FieldNode[] {
  return (selectionSet?.selections ?? []).flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name ? [selection] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT) return selected(selection.selectionSet, name, info);
    return selected(info.fragments[selection.name.value]?.selectionSet, name, info);
  });
}

/** Whether a groupBy field asks, under each key, for `values` or another `groupBy`. */
function asksPerGroupQueries(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes
    .flatMap((node) => selected(node.selectionSet, 'connection', info))
    .some((connection) => selected(connection.selectionSet, 'values', info).length + selected(connection.selectionSet, 'groupBy', info).length > 0);
}

/** The resolvers of `<Type>Connection`, `<Type>Aggregator` and `<Type>GroupBy`. */
function connectionResolvers<F, S extends string, V, G extends string>(type: string, ops: ConnectionOps<F, S, V, G>) {
  type C = Connection<F, S>;
  return {
    [`${type}Connection`]: {
      values: (connection: C, _args: unknown, context: GraphqlContext) => ops.values(context, connection),
      groupBy: (connection: C) => connection,
      aggregate: (connection: C) => connection,
    },
    [`${type}Aggregator`]: {
      count: (connection: C, _args: unknown, context: GraphqlContext) => connection.count ?? ops.count(context, connection.filter),
      // Strapi's totalCount ignores `where`: every row of the type.
      totalCount: (_connection: C, _args: unknown, context: GraphqlContext) => context.once(`total:${ops.name}`, () => ops.count(context, {} as F)),
    },
    [`${type}GroupBy`]: Object.fromEntries(
      ops.groupFields.map((field) => [
        field,
        async (connection: C, _args: unknown, context: GraphqlContext, info: GraphQLResolveInfo) => {
          const groups = await ops.group(context, connection.filter, field);
          // The cost rule reckons a groupBy at GROUPS_ESTIMATE groups. Counts under each key are
          // already known, so any number of groups is fine for them; rows or groupings under
          // each key would be a query per group, and are only answered up to that estimate.
          if (groups.length > GROUPS_ESTIMATE && asksPerGroupQueries(info)) {
            throw badInput(
              `groupBy.${field} da ${groups.length} grupos, y values o groupBy dentro de cada grupo solo se admiten hasta ${GROUPS_ESTIMATE}. ` +
                'Pida solo key y aggregate, o acote la conexión con where.',
            );
          }
          return groups.map((group) => ({
            key: String(group.key),
            connection: { ...connection, filter: ops.withKey(connection.filter, field, group.key), count: group.count } satisfies C,
          }));
        },
      ]),
    ),
  };
}

const RECORD_KEY = {
  id: 'id',
  cid: 'cid',
  type: 'type',
  status: 'status',
  wallet_address: 'walletAddress',
  ...byDimension('field', (dimension) => dimension.filterKey),
} as const satisfies Record<RecordGroupField, keyof RecordFilter>;

const IMPORT_KEY = { id: 'id', type: 'type', status: 'status', source: 'sourceId', wallet: 'wallet' } as const satisfies Record<
  ImportGroupField,
  keyof ImportFilter
>;

const recordConnection = connectionResolvers('Alexandria', {
  name: 'alexandrias',
  values: async (context, connection: Connection<RecordFilter, RecordSortField>) =>
    (await findRecords(context.db, connection.filter, connection.window)).map((record) => assetShape(record, context.origin)),
  count: (context, filter) => countRecordsFast(context.db, filter),
  groupFields: RECORD_GROUP_FIELDS,
  group: (context, filter, field) => groupRecords(context.db, filter, field),
  withKey: (filter, field, key) => ({ ...filter, [RECORD_KEY[field]]: key }),
});

const importConnection = connectionResolvers('Import', {
  name: 'imports',
  values: async (context, connection: Connection<ImportFilter, ImportSortField>) =>
    (await findImports(context.db, connection.filter, connection.window)).map(importShape),
  count: (context, filter) => countImports(context.db, filter),
  groupFields: IMPORT_GROUP_FIELDS,
  group: (context, filter, field) => groupImports(context.db, filter, field),
  withKey: (filter, field, key) => ({ ...filter, [IMPORT_KEY[field]]: key }),
});

function groupConnection(entity: GroupEntity, type: string) {
  return connectionResolvers(type, {
    name: entity,
    values: async (context, connection: Connection<GroupFilter, GroupSortField>) =>
      (await findGroups(context.db, entity, connection.filter, connection.window)).map((item) => groupNode(entity, item, context.origin)),
    count: (context, filter) => countGroups(context.db, entity, filter),
    groupFields: ['id'] as const,
    group: (context, filter) => groupGroups(context.db, entity, filter, 'id'),
    withKey: (filter, _field, key) => ({ ...filter, id: Number(key) }),
  });
}

// ---------------------------------------------------------------------------------------------
// Scalars

// Plain configurations, not `GraphQLScalarType`s: the schema builder copies them onto its own
// scalar types, so nothing here depends on which copy of the `graphql` package is loaded.
const DateTime = {
  serialize: (value: unknown) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value: unknown) => new Date(String(value)),
  parseLiteral: (ast: ValueNode) => (ast.kind === Kind.STRING ? new Date(ast.value) : null),
};

/**
 * Any JSON value, written inline (`where: { type: "csv" }`) or passed as a variable. A variable is
 * the client's JSON, of any depth (an inline value is held by the document's bracket limit): one
 * nested deeper than any filter needs, or holding a NUL, is refused before anything walks it.
 */
const JSONScalar = {
  serialize: (value: unknown) => value,
  parseValue: (value: unknown) => {
    const problem = jsonProblem(value);
    if (problem) throw badInput(problem);
    return value;
  },
  parseLiteral: (ast: ValueNode, variables?: Record<string, unknown> | null) => valueFromASTUntyped(ast, variables),
};

// ---------------------------------------------------------------------------------------------

type Args = ListArgs & Record<string, unknown>;

export const resolvers = {
  JSON: JSONScalar,
  DateTime,
  Query: {
    alexandria: async (_root: unknown, args: { id: unknown }, context: GraphqlContext) => {
      const record = await getRecord(context.db, idOf(args.id, 'id'));
      return record ? assetShape(record, context.origin) : null;
    },
    alexandrias: async (_root: unknown, args: Args, context: GraphqlContext) =>
      (await findRecords(context.db, recordWhere(args.where), recordWindow(args, DEFAULT_LIMIT))).map((record) =>
        assetShape(record, context.origin),
      ),
    alexandriasConnection: (_root: unknown, args: Args): Connection<RecordFilter, RecordSortField> => ({
      filter: recordWhere(args.where),
      window: recordWindow(args, DEFAULT_LIMIT),
    }),
    source: (_root: unknown, args: { id: unknown }, context: GraphqlContext) => groupById('src', args.id, context),
    sources: (_root: unknown, args: Args, context: GraphqlContext) => groupList('src', args, context),
    sourcesConnection: (_root: unknown, args: Args) => ({ filter: groupWhere('src', args.where), window: groupWindow('src', args, DEFAULT_LIMIT) }),
    department: (_root: unknown, args: { id: unknown }, context: GraphqlContext) => groupById('dep', args.id, context),
    departments: (_root: unknown, args: Args, context: GraphqlContext) => groupList('dep', args, context),
    departmentsConnection: (_root: unknown, args: Args) => ({ filter: groupWhere('dep', args.where), window: groupWindow('dep', args, DEFAULT_LIMIT) }),
    category: (_root: unknown, args: { id: unknown }, context: GraphqlContext) => groupById('cat', args.id, context),
    categories: (_root: unknown, args: Args, context: GraphqlContext) => groupList('cat', args, context),
    categoriesConnection: (_root: unknown, args: Args) => ({ filter: groupWhere('cat', args.where), window: groupWindow('cat', args, DEFAULT_LIMIT) }),
    import: async (_root: unknown, args: { id: unknown }, context: GraphqlContext) =>
      (await findImports(context.db, { id: idOf(args.id, 'id') }, { limit: 1, start: 0 })).map(importShape)[0] ?? null,
    imports: async (_root: unknown, args: Args, context: GraphqlContext) =>
      (await findImports(context.db, importWhere(args.where), importWindow(args, DEFAULT_LIMIT))).map(importShape),
    importsConnection: (_root: unknown, args: Args) => ({ filter: importWhere(args.where), window: importWindow(args, DEFAULT_LIMIT) }),
  },
  Alexandria: {
    category: (record: AssetShape) => (record.category ? partialNode('cat', record.category.id, { title: record.category.title }) : null),
    department: ({ department }: AssetShape) =>
      department
        ? partialNode('dep', department.id, { name: department.name, desciption: department.desciption, website: department.website, url: department.website })
        : null,
    source: ({ source }: AssetShape) => (source ? partialNode('src', source.id, { name: source.name, url: source.url, website: source.url }) : null),
    deals: (record: AssetShape, _args: unknown, context: GraphqlContext) => (record.cid ? context.loadDeals(record.cid) : []),
    versions: async (record: AssetShape, _args: unknown, context: GraphqlContext) =>
      (await context.loadVersions(Number(record.id))).map((version) => ({ ...version, url: `${context.origin}/ipfs/${version.cid}` })),
  },
  Aletheia: {
    _id: (proof: { id: number }) => proof.id,
  },
  Source: groupTypeResolvers(['name', 'description', 'url', 'website', 'updatedAt', 'alexandriasCount', 'counts']),
  Department: groupTypeResolvers(['name', 'desciption', 'website', 'url', 'acronym', 'updatedAt', 'alexandriasCount', 'counts']),
  Category: groupTypeResolvers(['title', 'description', 'icon', 'updatedAt', 'alexandriasCount', 'counts']),
  // Imports are answered in the REST API's shape (`importShape`): `source` is the source's name.
  Import: {
    sourceGroup: (row: ImportShape) => (row.source_id !== null ? partialNode('src', row.source_id, { name: row.source }) : null),
    alexandrias: (row: ImportShape, args: Args, context: GraphqlContext) => recordsOf('imp', row.id, args, context),
  },
  ...recordConnection,
  ...importConnection,
  ...groupConnection('src', 'Source'),
  ...groupConnection('dep', 'Department'),
  ...groupConnection('cat', 'Category'),
};

