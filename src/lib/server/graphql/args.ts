/**
 * The Strapi-style arguments of every list and connection (`where`, `sort`, `limit`, `start`),
 * checked and turned into the query layer's filters. Anything a client gets wrong is a GraphQL
 * error with a Spanish message naming the argument and what it accepts.
 */
import { createGraphQLError } from 'graphql-yoga';
import {
  ASSET_STATUS_VALUES,
  ASSET_TYPE_VALUES,
  IMPORT_STATUS_VALUES,
  IMPORT_TYPES,
  type AssetStatus,
  type AssetType,
  type ImportStatus,
  type ImportType,
} from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import { byDimension, DIMENSIONS } from '../queries/dimensions.ts';
import { MAX_LIMIT, type GroupSortField, type RecordSortField, type SortDirection, type Window } from '../queries/find.ts';
import type { GroupFilter } from '../queries/groups.ts';
import type { ImportFilter, ImportSortField } from '../queries/imports.ts';
import type { RecordFilter } from '../queries/record-filter.ts';

/**
 * A client mistake: shown to the client as it is (yoga masks every other error). Made by yoga's
 * own `createGraphQLError`, so it is an instance of the `graphql` module yoga checks against even
 * where a bundler loads that package twice (its ESM and CommonJS builds).
 */
export function badInput(message: string) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** The message of a client mistake made by `badInput`, or null for any other error. */
export function badInputMessage(error: unknown): string | null {
  const code = (error as { extensions?: { code?: unknown } } | null)?.extensions?.code;
  return code === 'BAD_USER_INPUT' && error instanceof Error ? error.message : null;
}

/** The longest text a `_contains` filter takes: longer is no title anyone is looking for. */
const MAX_TEXT = 200;

export interface ListArgs {
  where?: unknown;
  sort?: string | null;
  limit?: number | null;
  start?: number | null;
}

/**
 * How messages name the arguments: '' for GraphQL (`limit`), '_' for the Strapi-style REST lists
 * (`_limit`), which are read by these same rules (api/strapi.ts).
 */
export type ArgPrefix = '' | '_';

/** `limit` and `start` checked; a missing limit is the field's default (declared in the schema). */
function windowOf(args: ListArgs, defaultLimit: number, prefix: ArgPrefix): { limit: number; start: number } {
  const limit = args.limit ?? defaultLimit;
  const start = args.start ?? 0;
  if (limit < 0 || limit > MAX_LIMIT) {
    throw badInput(`${prefix}limit debe estar entre 0 y ${MAX_LIMIT} (se pidió ${limit}); para ver más filas, pida la página siguiente con ${prefix}start.`);
  }
  if (start < 0) throw badInput(`${prefix}start no puede ser negativo (se pidió ${start}).`);
  return { limit, start };
}

/**
 * `sort: "field:asc|desc"` (the direction defaults to asc), with the field named as the API names
 * it. A bare direction (`sort: "desc"`, which the original front end sends and the original
 * service accepted) orders by id, the one order every list has and an index serves.
 */
function sortOf<F extends string>(sort: string | null | undefined, fields: Record<string, F>, prefix: ArgPrefix): Window<F>['sort'] {
  if (sort === null || sort === undefined || sort.trim() === '') return undefined;
  const bare = /^\s*(asc|desc)\s*$/i.exec(sort);
  if (bare && Object.hasOwn(fields, 'id')) return { field: fields.id!, direction: bare[1]!.toLowerCase() as SortDirection };
  const match = /^\s*([A-Za-z_]+)\s*(?::\s*(asc|desc))?\s*$/i.exec(sort);
  const field = match?.[1] !== undefined && Object.hasOwn(fields, match[1]) ? fields[match[1]] : undefined;
  if (!match || field === undefined) {
    throw badInput(`${prefix}sort no válido: "${sort}". Use "campo:asc" o "campo:desc", con campo uno de: ${Object.keys(fields).join(', ')}.`);
  }
  return { field, direction: (match[2]?.toLowerCase() ?? 'asc') as SortDirection };
}

const RECORD_SORTS: Record<string, RecordSortField> = { createdAt: 'createdAt', updatedAt: 'updatedAt', title: 'title', id: 'id' };
/** `aletheias` (the original's list of an import's proofs, one per record it brought) orders by how many: `documents`. */
const IMPORT_SORTS: Record<string, ImportSortField> = { createdAt: 'createdAt', updatedAt: 'updatedAt', documents: 'documents', aletheias: 'documents', id: 'id' };
/** A group sorts by its name as the API calls it (a category's `title`) and, like every group, as `name`. */
function groupSorts(entity: GroupEntity): Record<string, GroupSortField> {
  return { updatedAt: 'updatedAt', [DIMENSIONS[entity].nameField]: 'name', name: 'name', id: 'id', alexandrias: 'records' };
}

export function recordWindow(args: ListArgs, defaultLimit: number, prefix: ArgPrefix = ''): Window<RecordSortField> {
  return { ...windowOf(args, defaultLimit, prefix), sort: sortOf(args.sort, RECORD_SORTS, prefix) };
}

export function importWindow(args: ListArgs, defaultLimit: number, prefix: ArgPrefix = ''): Window<ImportSortField> {
  return { ...windowOf(args, defaultLimit, prefix), sort: sortOf(args.sort, IMPORT_SORTS, prefix) };
}

export function groupWindow(entity: GroupEntity, args: ListArgs, defaultLimit: number, prefix: ArgPrefix = ''): Window<GroupSortField> {
  return { ...windowOf(args, defaultLimit, prefix), sort: sortOf(args.sort, groupSorts(entity), prefix) };
}

/**
 * A client's value as an error message quotes it: JSON, cut at 80 characters. A value nested too
 * deep to write out (the variables are the client's JSON) is named as such, never a 500.
 */
function shown(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return 'un valor anidado demasiado hondo';
  }
  if (text === undefined) return String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** A row id as clients send it: an integer or a string of digits. Anything else is refused. */
export function idOf(value: unknown, name: string): number {
  const id = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value) : value;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
    throw badInput(`${name} debe ser un id numérico (se recibió ${shown(value)}).`);
  }
  return id;
}

/** A relation as Strapi took it: the id itself, or `{ id }`. */
function relationIdOf(value: unknown, name: string): number {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'id' in value) {
    return idOf((value as { id: unknown }).id, name);
  }
  return idOf(value, name);
}

function textOf(value: unknown, name: string): string {
  if (typeof value !== 'string') throw badInput(`${name} debe ser un texto (se recibió ${shown(value)}).`);
  if (value.length > MAX_TEXT) throw badInput(`${name} admite como mucho ${MAX_TEXT} caracteres.`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw badInput(`${name} debe ser uno de: ${allowed.join(', ')} (se recibió ${shown(value)}).`);
  }
  return value as T;
}

type Parsers<F> = Record<string, (value: unknown, name: string, filter: F) => void>;

/**
 * Applies each `where` key's parser; an unknown key is an error listing the known ones. With the
 * REST prefix, the keys are query parameters and messages name them so.
 */
function whereOf<F>(where: unknown, parsers: Parsers<F>, prefix: ArgPrefix): F {
  const filter = {} as F;
  if (where === null || where === undefined) return filter;
  if (typeof where !== 'object' || Array.isArray(where)) {
    throw badInput('where debe ser un objeto, por ejemplo { type: "csv", category: 3 }.');
  }
  for (const [key, value] of Object.entries(where)) {
    const parse = Object.hasOwn(parsers, key) ? parsers[key] : undefined;
    if (!parse) {
      const known = Object.keys(parsers).join(', ');
      throw badInput(prefix ? `No se puede filtrar por "${key}". Parámetros admitidos: ${known}.` : `where no admite "${key}". Campos admitidos: ${known}.`);
    }
    parse(value, prefix ? key : `where.${key}`, filter);
  }
  return filter;
}

const RECORD_WHERE: Parsers<RecordFilter> = {
  id: (value, name, filter) => (filter.id = idOf(value, name)),
  _id: (value, name, filter) => (filter.id = idOf(value, name)),
  cid: (value, name, filter) => (filter.cid = textOf(value, name)),
  title_contains: (value, name, filter) => (filter.title = textOf(value, name)),
  type: (value, name, filter) => (filter.type = oneOf<AssetType>(value, ASSET_TYPE_VALUES, name)),
  status: (value, name, filter) => (filter.status = oneOf<AssetStatus>(value, ASSET_STATUS_VALUES, name)),
  wallet_address: (value, name, filter) => (filter.walletAddress = textOf(value, name)),
  // source, department, category: a relation, named by its id.
  ...byDimension('field', (dimension) => (value: unknown, name: string, filter: RecordFilter) => (filter[dimension.filterKey] = relationIdOf(value, name))),
};

export function recordWhere(where: unknown, prefix: ArgPrefix = ''): RecordFilter {
  return whereOf(where, RECORD_WHERE, prefix);
}

/** A group is found by id, or by part of its name as the API calls it (a category's `title`) or as `name`. */
function groupWhereParsers(entity: GroupEntity): Parsers<GroupFilter> {
  const byName = (value: unknown, name: string, filter: GroupFilter) => (filter.name = textOf(value, name));
  return {
    id: (value, name, filter) => (filter.id = idOf(value, name)),
    _id: (value, name, filter) => (filter.id = idOf(value, name)),
    [`${DIMENSIONS[entity].nameField}_contains`]: byName,
    name_contains: byName,
  };
}

export function groupWhere(entity: GroupEntity, where: unknown, prefix: ArgPrefix = ''): GroupFilter {
  return whereOf(where, groupWhereParsers(entity), prefix);
}

const IMPORT_WHERE: Parsers<ImportFilter> = {
  id: (value, name, filter) => (filter.id = idOf(value, name)),
  _id: (value, name, filter) => (filter.id = idOf(value, name)),
  type: (value, name, filter) => (filter.type = oneOf<ImportType>(value, IMPORT_TYPES, name)),
  status: (value, name, filter) => (filter.status = oneOf<ImportStatus>(value, IMPORT_STATUS_VALUES, name)),
  source: (value, name, filter) => (filter.sourceId = relationIdOf(value, name)),
  wallet: (value, name, filter) => (filter.wallet = textOf(value, name)),
};

export function importWhere(where: unknown, prefix: ArgPrefix = ''): ImportFilter {
  return whereOf(where, IMPORT_WHERE, prefix);
}
