/**
 * Search in Spanish: full-text with stemming and accent folding (`archivo_es`), and, when the words
 * match nothing, trigram similarity on titles so a typo still finds its record.
 */
import { desc, eq, sql } from 'drizzle-orm';
import { LIMITS } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, sources } from '../db/schema.ts';
import type { RecordRow } from './records.ts';

/** Longest query we search for; longer input is cut, not refused. */
const MAX_QUERY = 200;

/** The query as PostgreSQL can take it: no NUL (text cannot hold one), trimmed, bounded. */
function clean(query: string): string {
  return query.replaceAll('\0', ' ').trim().slice(0, MAX_QUERY);
}

/** Records matching `query`, best first. */
export async function searchRecords(db: Db, query: string, limit: number = LIMITS.searchResults): Promise<RecordRow[]> {
  const q = clean(query);
  if (!q) return [];
  const tsquery = sql`websearch_to_tsquery('archivo_es', ${q})`;
  const columns = {
    id: alexandrias.id,
    cid: alexandrias.cid,
    title: alexandrias.title,
    description: alexandrias.description,
    type: alexandrias.type,
    status: alexandrias.status,
    updatedAt: alexandrias.updatedAt,
    sourceUrl: alexandrias.sourceUrl,
    departmentId: departments.id,
    departmentName: departments.name,
  };
  let rows = await db
    .select(columns)
    .from(alexandrias)
    .leftJoin(departments, eq(alexandrias.departmentId, departments.id))
    .where(sql`${alexandrias.search} @@ ${tsquery}`)
    .orderBy(desc(sql`ts_rank(${alexandrias.search}, ${tsquery})`), desc(alexandrias.updatedAt), desc(alexandrias.id))
    .limit(limit);
  if (rows.length === 0) {
    const folded = sql`archivo_unaccent(lower(${q}))`;
    const title = sql`archivo_unaccent(lower(${alexandrias.title}))`;
    rows = await db
      .select(columns)
      .from(alexandrias)
      .leftJoin(departments, eq(alexandrias.departmentId, departments.id))
      .where(sql`${folded} <% ${title}`)
      .orderBy(desc(sql`word_similarity(${folded}, ${title})`), desc(alexandrias.updatedAt), desc(alexandrias.id))
      .limit(limit);
  }
  return rows.map(({ departmentId, departmentName, ...row }) => ({
    ...row,
    department: departmentId !== null && departmentName !== null ? { id: departmentId, name: departmentName } : null,
  }));
}

export interface GroupHit {
  id: number;
  name: string;
  url: string | null;
}

const SEARCHABLE = {
  src: { table: sources, id: sources.id, name: sources.name, url: sources.url, search: sources.search },
  dep: { table: departments, id: departments.id, name: departments.name, url: departments.website, search: departments.search },
  cat: { table: categories, id: categories.id, name: categories.title, url: sql<string | null>`null`, search: categories.search },
} as const;

/** Sources, departments or categories matching `query` by words or, failing that, by likeness. */
export async function searchGroups(db: Db, entity: GroupEntity, query: string, limit: number = LIMITS.searchResults): Promise<GroupHit[]> {
  const q = clean(query);
  if (!q) return [];
  const group = SEARCHABLE[entity];
  const tsquery = sql`websearch_to_tsquery('archivo_es', ${q})`;
  const folded = sql`archivo_unaccent(lower(${q}))`;
  const name = sql`archivo_unaccent(lower(${group.name}))`;
  return db
    .select({ id: group.id, name: group.name, url: group.url })
    .from(group.table)
    .where(sql`${group.search} @@ ${tsquery} or ${folded} <% ${name}`)
    .orderBy(desc(sql`ts_rank(${group.search}, ${tsquery}) + word_similarity(${folded}, ${name})`), group.id)
    .limit(limit);
}
