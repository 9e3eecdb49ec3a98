/**
 * Limits on what one GraphQL query may ask, checked as validation rules before anything runs
 * (introspection fields are exempt; the width of a query, its root fields and aliases, is
 * limited in width.ts):
 *
 * - Depth: at most `MAX_DEPTH` levels of nested fields.
 * - Cost: an estimate of the rows and queries a query can cause, at most `MAX_COST`. A list field
 *   counts the rows it can return (its `limit`: the literal, else the variable's declared default,
 *   else the most a variable may ask, 100) and multiplies everything below it; a connection's
 *   `values` takes the connection's limit, and at most one row under a `groupBy.id` key (the key
 *   is the row's id); a `groupBy` field is reckoned at `GROUPS_ESTIMATE` groups. Every field that
 *   starts its own database query (a root field, a list, `values`, a `groupBy` field, a count) adds
 *   `QUERY_COST`; any other object field adds 1. Counts under a groupBy key are already known and
 *   cost 1. The estimate is enforced where it matters: a groupBy with more groups than that which
 *   asks for `values` or `groupBy` under each key is refused by its resolver (key and aggregate
 *   alone are answered for any number of groups: one query).
 * - Scans: a query that has to read the rows themselves to find its answer costs `SCAN_COST`
 *   more. That is any list, `values`, count or `groupBy` under a text filter (`title_contains`,
 *   `name_contains`; a `where` given as a variable may hold one, so it is priced as one), and a
 *   grouping of records by a field the running counts are not kept by (`id`, `cid`,
 *   `wallet_address`). Counts and groupings by format, status, source, department and category
 *   are read from the running counts (queries/connections.ts) and cost `QUERY_COST` like any
 *   indexed query. Without this, 250 aliased `title_contains` counts were reckoned at 11 points
 *   each and took seconds (issue #16, item 7).
 * - What the archive holds (sizes.ts, issue #22): a list returns no more rows than there are (11
 *   categories, not 100), a groupBy no more groups than its field has values (6 formats; the
 *   sources there are), and records nested under a list of distinct groups (10 departments from
 *   `departments(limit: 10)`) no more than the largest that many groups hold together; a nested
 *   list's one batched query (context.ts's loaders) is priced once for all its siblings. Groups
 *   reached from records (a record's category) may repeat, so each is priced at the largest
 *   group's records. Until the sizes are read, the worst case above applies.
 *
 * So, by the worst case, `categories(limit: 5) { alexandrias { cid } }` costs 10 + 5 + 5 × (2 + 100) = 525;
 * on the seeded archive (11 categories, the largest five holding 398, 251, 112, 65 and 39
 * records: 404 rows at most 100 a category) it is 10 + 5 + 5 × (2 + 404 / 5) = 429.
 * `alexandrias(limit: 100) { category { alexandrias(limit: 100) { id } } }` costs about 10,000
 * either way and is refused, and
 * `alexandriasConnection(where: { title_contains: "agua" }) { aggregate { count } }` costs
 * 1 + 10 + 250 = 261: at most 19 of them fit in one query.
 */
import {
  Kind,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { ASSET_STATUS_VALUES, ASSET_TYPE_VALUES, IMPORT_STATUS_VALUES, IMPORT_TYPES } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import { MAX_LIMIT } from '../queries/find.ts';
import type { ArchiveSizes } from './sizes.ts';
import { widthProblem } from './width.ts';
import { formatCount } from '../../text.ts';

export const MAX_DEPTH = 10;
export const MAX_COST = 5_000;
export const QUERY_COST = 10;
export const GROUPS_ESTIMATE = 100;
/** A query that reads every row it might match (a text filter, an uncounted grouping): 25 indexed queries. */
export const SCAN_COST = 250;

/**
 * The groupings of records the running counts answer (COUNTED_GROUP in queries/connections.ts)
 * when the filter needs no text match; any other grouping reads the records.
 */
const COUNTED_RECORD_GROUPINGS = new Set(['type', 'status', 'source', 'department', 'category']);

// The `graphql` package can be loaded twice (its ESM and CommonJS builds, as Vite and Node resolve
// it), and its `isObjectType` & co. are `instanceof` checks that fail across the copies: these
// read the types' own tags instead. Errors are made with yoga's `createGraphQLError` for the same reason.
const tagOf = (value: unknown) => Object.prototype.toString.call(value).slice(8, -1);
const isObject = (type: unknown): type is GraphQLObjectType => tagOf(type) === 'GraphQLObjectType';
function namedTypeOf(type: GraphQLOutputType): GraphQLNamedType {
  let current: GraphQLOutputType = type;
  while ('ofType' in current) current = current.ofType;
  return current;
}
function isList(type: GraphQLOutputType): boolean {
  const nullable = tagOf(type) === 'GraphQLNonNull' && 'ofType' in type ? type.ofType : type;
  return tagOf(nullable) === 'GraphQLList';
}

/** How deep a query nests its fields (a leaf counts as a level; introspection does not). */
export function depthLimitRule(context: ValidationContext): ASTVisitor {
  const fragmentDepth = new Map<string, number>();
  const depthOf = (selectionSet: SelectionSetNode): number => {
    let deepest = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        deepest = Math.max(deepest, 1 + (selection.selectionSet ? depthOf(selection.selectionSet) : 0));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, depthOf(selection.selectionSet));
      } else {
        const name = selection.name.value;
        if (!fragmentDepth.has(name)) {
          // A cycle (reported by the standard rules) counts as no depth rather than forever.
          fragmentDepth.set(name, 0);
          const fragment = context.getFragment(name);
          fragmentDepth.set(name, fragment ? depthOf(fragment.selectionSet) : 0);
        }
        deepest = Math.max(deepest, fragmentDepth.get(name) ?? 0);
      }
    }
    return deepest;
  };
  return {
    OperationDefinition(operation) {
      const depth = depthOf(operation.selectionSet);
      if (depth > MAX_DEPTH) {
        context.reportError(
          createGraphQLError(`La consulta anida ${depth} niveles de campos y el máximo es ${MAX_DEPTH}. Divídala en consultas menos profundas.`, {
            nodes: [operation],
            extensions: { code: 'QUERY_TOO_DEEP', http: { status: 400, spec: false } },
          }),
        );
      }
    },
  };
}

interface Scope {
  /** The rows the `values` of the connection being costed can return. */
  connectionLimit: number;
  /** How many objects this selection set is answered for (the product of the lists above it). */
  parents: number;
  /**
   * The objects are that many distinct groups of one kind, from one list: their records together
   * are at most those of the largest that many groups. Null when they may repeat (a record's
   * department, reached from many records) or are not groups.
   */
  distinctGroups: GroupEntity | null;
  /** Under a groupBy key, whose counts are already known. */
  inGroup: boolean;
  /** The connection's filter needs the rows themselves: each of its queries is a scan. */
  scans: boolean;
}

/**
 * Whether the `where` of `field` makes its queries read the rows: a text filter (`*_contains`), or
 * a filter not written out in the query (a variable) that may hold one. Anything else is equality
 * on indexed or counted columns. Validation does not see variables' values (it judges the query
 * text), so a variable is priced at the most it could cost.
 */
function whereScans(field: FieldNode): boolean {
  const where = field.arguments?.find((given) => given.name.value === 'where')?.value;
  if (!where || where.kind === Kind.NULL) return false;
  if (where.kind !== Kind.OBJECT) return true;
  return where.fields.some((given) => given.name.value.endsWith('_contains') && given.value.kind !== Kind.NULL);
}

/** Record orders no index serves: the database sorts every matching row to return a few. */
const UNINDEXED_SORTS = new Set(['title', 'createdAt']);
/** Past this offset, a page costs reading every row before it. */
const MAX_INDEXED_START = 10_000;

/**
 * Whether the window of `field` makes its query read the rows: an order no index serves, or a
 * far offset, either written out or left to a variable (priced at the most it could cost).
 */
function windowScans(field: FieldNode): boolean {
  const argument = (name: string) => field.arguments?.find((given) => given.name.value === name)?.value;
  const sort = argument('sort');
  const start = argument('start');
  const sortScans = sort !== undefined && (sort.kind === Kind.VARIABLE || (sort.kind === Kind.STRING && UNINDEXED_SORTS.has(sort.value.split(':')[0]!.trim())));
  const startScans = start !== undefined && (start.kind === Kind.VARIABLE || (start.kind === Kind.INT && Number(start.value) > MAX_INDEXED_START));
  return sortScans || startScans;
}

/** Whether any query of `field` reads the rows themselves (see `whereScans` and `windowScans`). */
function scans(field: FieldNode): boolean {
  return whereScans(field) || windowScans(field);
}

/** The GraphQL types of groups, and the kind each is. */
const GROUP_TYPES: Record<string, GroupEntity> = { Source: 'src', Department: 'dep', Category: 'cat' };

/**
 * The rows a list of `typeName` asking for `limit` can return: no more than the archive holds.
 * Without the sizes, the limit.
 */
function rowsHeld(sizes: ArchiveSizes | null, typeName: string, limit: number): number {
  if (!sizes) return limit;
  const entity = GROUP_TYPES[typeName];
  if (entity) return Math.min(limit, sizes.groups[entity].count);
  if (typeName === 'Alexandria') return Math.min(limit, sizes.records);
  if (typeName === 'Import') return Math.min(limit, sizes.imports);
  return limit;
}

/** The values a groupBy field can take: its type's values where they are few, else the rows there are. */
function groupsHeld(sizes: ArchiveSizes | null, groupByType: string, field: string): number {
  const fixed = FIXED_DOMAINS[`${groupByType}.${field}`];
  if (fixed !== undefined) return fixed;
  if (!sizes) return GROUPS_ESTIMATE;
  const entity = groupByType === 'AlexandriaGroupBy' ? GROUP_FIELDS[field] : GROUP_TYPES[groupByType.replace(/GroupBy$/, '')];
  if (entity) return sizes.groups[entity].count;
  return groupByType === 'ImportGroupBy' ? sizes.imports : sizes.records;
}

const GROUP_FIELDS: Record<string, GroupEntity> = { source: 'src', department: 'dep', category: 'cat' };
const FIXED_DOMAINS: Record<string, number> = {
  'AlexandriaGroupBy.type': ASSET_TYPE_VALUES.length,
  'AlexandriaGroupBy.status': ASSET_STATUS_VALUES.length,
  'ImportGroupBy.type': IMPORT_TYPES.length,
  'ImportGroupBy.status': IMPORT_STATUS_VALUES.length,
};

/**
 * The records each of `scope.parents` objects of `parentType` lists under itself, asking for
 * `limit`: a group holds no more than the largest group does, and distinct groups from one list
 * together no more than the largest that many do (10 departments: about 100 records, not 1,000).
 */
function nestedRecords(sizes: ArchiveSizes | null, parentType: string, limit: number, scope: Scope): number {
  if (!sizes) return limit;
  const entity = GROUP_TYPES[parentType];
  if (!entity) return Math.min(limit, sizes.records);
  const { largest } = sizes.groups[entity];
  if (scope.distinctGroups !== entity) return Math.min(limit, largest[0] ?? 0);
  const parents = Math.max(1, Math.ceil(scope.parents));
  const together = largest.slice(0, parents).reduce((sum, records) => sum + Math.min(records, limit), 0);
  return together / parents;
}

/**
 * The cost estimate of `operation`, as described at the top of this file. `fragmentOf` finds a
 * named fragment of the same document (validation and execution each have their own way).
 */
export function operationCost(
  schema: GraphQLSchema,
  fragmentOf: (name: string) => FragmentDefinitionNode | null | undefined,
  operation: OperationDefinitionNode,
  sizes: ArchiveSizes | null = null,
): number {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return 0;
  const variableDefaults = new Map(
    (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition.defaultValue]),
  );

  const limitOf = (field: FieldNode, argument: GraphQLArgument): number => {
    let value: ValueNode | undefined = field.arguments?.find((given) => given.name.value === 'limit')?.value;
    if (value?.kind === Kind.VARIABLE) value = variableDefaults.get(value.name.value) ?? { kind: Kind.INT, value: String(MAX_LIMIT) };
    if (!value || value.kind === Kind.NULL) return typeof argument.defaultValue === 'number' ? argument.defaultValue : MAX_LIMIT;
    // A limit out of range is refused by the resolver with its own, clearer message.
    return value.kind === Kind.INT ? Math.min(Math.max(Number(value.value), 0), MAX_LIMIT) : MAX_LIMIT;
  };

  // Cost is linear in the multiplier above, so a fragment's cost per row is computed once.
  const fragmentCost = new Map<string, number>();
  const costOf = (selectionSet: SelectionSetNode, parentType: GraphQLNamedType, scope: Scope): number => {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        cost += costOf(selection.selectionSet, parentType, scope);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const key = `${name}:${parentType.name}:${scope.connectionLimit}:${scope.inGroup}:${scope.scans}:${scope.parents}:${scope.distinctGroups}`;
        if (!fragmentCost.has(key)) {
          fragmentCost.set(key, 0);
          const fragment = fragmentOf(name);
          fragmentCost.set(key, fragment ? costOf(fragment.selectionSet, parentType, scope) : 0);
        }
        cost += fragmentCost.get(key) ?? 0;
        continue;
      }
      const name = selection.name.value;
      if (name.startsWith('__') || !isObject(parentType)) continue;
      const definition = parentType.getFields()[name];
      if (!definition) continue;
      const type = namedTypeOf(definition.type);
      if (!isObject(type) || !selection.selectionSet) {
        if (parentType.name.endsWith('Aggregator')) {
          // totalCount ignores the filter (and is computed once per request); count obeys it.
          if (scope.inGroup) cost += 1;
          else cost += QUERY_COST + (name === 'count' && scope.scans ? SCAN_COST : 0);
        }
        continue;
      }
      const limitArgument = definition.args.find((argument) => argument.name === 'limit');
      const listed = isList(definition.type);
      const entity = GROUP_TYPES[type.name] ?? null;
      let rows = 1;
      let own = parentType === rootType ? QUERY_COST : 0;
      let below: Scope = { ...scope, distinctGroups: parentType === rootType ? entity : null };
      if (limitArgument && listed) {
        rows = limitOf(selection, limitArgument);
        own = QUERY_COST + (scans(selection) ? SCAN_COST : 0);
        const nested = parentType !== rootType && type.name === 'Alexandria';
        if (nested) {
          rows = nestedRecords(sizes, parentType.name, rows, scope);
          // Siblings asking alike share one query (context.ts's loaders): its price is split among them.
          own /= Math.max(1, scope.parents);
        } else rows = rowsHeld(sizes, type.name, rows);
        below = { ...scope, distinctGroups: entity };
      } else if (limitArgument) {
        below = { ...scope, connectionLimit: limitOf(selection, limitArgument), inGroup: false, scans: scans(selection), distinctGroups: null };
        own = 0;
      } else if (name === 'values' && parentType.name.endsWith('Connection')) {
        rows = rowsHeld(sizes, type.name, scope.connectionLimit);
        own = QUERY_COST + (scope.scans ? SCAN_COST : 0);
        below = { ...scope, distinctGroups: scope.inGroup ? null : entity };
      } else if (parentType.name.endsWith('GroupBy')) {
        rows = Math.min(GROUPS_ESTIMATE, groupsHeld(sizes, parentType.name, name));
        const uncounted = parentType.name === 'AlexandriaGroupBy' && !COUNTED_RECORD_GROUPINGS.has(name);
        own = QUERY_COST + (scope.scans || uncounted ? SCAN_COST : 0);
        // Under a groupBy.id key the connection holds that one row.
        below = { ...scope, inGroup: true, connectionLimit: name === 'id' ? Math.min(scope.connectionLimit, 1) : scope.connectionLimit };
      }
      below = { ...below, parents: scope.parents * rows };
      cost += own + rows + rows * costOf(selection.selectionSet, type, below);
    }
    return cost;
  };
  return costOf(operation.selectionSet, rootType, { connectionLimit: MAX_LIMIT, inGroup: false, scans: false, parents: 1, distinctGroups: null });
}

/**
 * The rule refusing an operation whose cost estimate, by the archive's current sizes (null: the
 * worst case), is over `MAX_COST`; a too wide one is left to width.ts.
 */
export function costLimitRule(sizes: () => ArchiveSizes | null): (context: ValidationContext) => ASTVisitor {
  return (context) => ({
    OperationDefinition(operation) {
      const fragmentOf = (name: string) => context.getFragment(name);
      // One refusal at a time: a document with 60 root fields hears about those, not their cost.
      if (widthProblem(operation, fragmentOf)) return;
      const cost = operationCost(context.getSchema(), fragmentOf, operation, sizes());
      if (cost > MAX_COST) {
        const shown = Number.isFinite(cost) ? formatCount(Math.round(cost)) : 'incalculable';
        context.reportError(
          createGraphQLError(
            `La consulta es demasiado costosa: ${shown} puntos, y el máximo es ${formatCount(MAX_COST)}. ` +
              'Pida menos filas con limit (también en las listas anidadas), use menos filtros de texto (title_contains, name_contains) ' +
              'o divídala en varias consultas.',
            { nodes: [operation], extensions: { code: 'QUERY_TOO_COSTLY', http: { status: 400, spec: false } } },
          ),
        );
      }
    },
  });
}
