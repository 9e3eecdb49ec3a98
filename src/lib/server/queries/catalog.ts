/**
 * What the archive publishes for other portals and machines (issue #9): the DCAT catalogue and the
 * bulk exports read the same records through these queries, page by page, so neither holds a
 * large archive in memory. Published means `on_line` or `under_review`: a record a moderator
 * blocked, or marked broken, is left out of both. A record's source or institution is named only
 * once a moderator accepted it (see `visibility.ts`): until then the record is published without it.
 */
import { and, asc, count, eq, exists, gt, inArray, lte, max, min, sql } from 'drizzle-orm';
import type { AssetStatus, AssetType } from '../../domain/constants.ts';
import { catalogueFactColumns, type CatalogueFacts } from '../db/catalogue-facts.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, harvestedRecords, sources } from '../db/schema.ts';
import { versionsOfRecords, type VersionItem } from './versions.ts';
import { publicDepartment, recordDepartmentJoin, recordSourceJoin } from './visibility.ts';

/** The statuses other portals may harvest: online records, and harvested metadata awaiting review. */
export const PUBLISHED_STATUSES = ['on_line', 'under_review'] as const satisfies readonly AssetStatus[];

const published = inArray(alexandrias.status, [...PUBLISHED_STATUSES]);

/** One published record with the names of its department, category and source, and what its catalogue says of it. */
export interface CatalogRecord extends CatalogueFacts {
  id: number;
  cid: string | null;
  title: string;
  description: string | null;
  type: AssetType;
  status: AssetStatus;
  sourceUrl: string | null;
  originalUrl: string | null;
  fileName: string | null;
  fileSize: number | null;
  mimeType: string | null;
  fileSha256: string | null;
  walletAddress: string | null;
  createdAt: Date;
  updatedAt: Date;
  department: { id: number; name: string; website: string | null } | null;
  category: { id: number; title: string } | null;
  source: { id: number; name: string; url: string } | null;
  /**
   * When the archive got the record's current file: the capture of its newest version with that
   * CID, or, for a file that came with the record itself (an upload, the seed), when the record
   * was created; null for a record without a file.
   */
  fileArchivedAt: Date | null;
  /** Where the archive captured its current file from (the answering URL, after redirects); null for an upload or the seed's. */
  fileCapturedFrom: string | null;
  /** A captured record's earlier files (issue #19), oldest first; its current file is the record's own. */
  olderVersions: VersionItem[];
  /** When a harvested record's dataset left its catalogue ("retirado del catálogo"); null while it is listed. */
  withdrawnFromCatalogAt: Date | null;
  /** Since when its origin no longer serves its file (issue #19, "desaparecido en origen"); null while it does. */
  goneFromOriginSince: Date | null;
  /** It came from a harvested catalogue: its language and area are only what that catalogue declared. */
  harvested: boolean;
}


/** Ids per page: at most a thousand records, about a megabyte of output, one short query. */
export const CATALOG_PAGE_SIZE = 1000;

/** The published records whose id is in (after, upTo], in id order. */
async function recordsBetween(db: Db, after: number, upTo: number): Promise<CatalogRecord[]> {
  const rows = await db
    .select({
      id: alexandrias.id,
      cid: alexandrias.cid,
      title: alexandrias.title,
      description: alexandrias.description,
      type: alexandrias.type,
      status: alexandrias.status,
      sourceUrl: alexandrias.sourceUrl,
      originalUrl: alexandrias.originalUrl,
      fileName: alexandrias.fileName,
      fileSize: alexandrias.fileSize,
      mimeType: alexandrias.mimeType,
      fileSha256: alexandrias.fileSha256,
      walletAddress: alexandrias.walletAddress,
      createdAt: alexandrias.createdAt,
      updatedAt: alexandrias.updatedAt,
      withdrawnFromCatalogAt: harvestedRecords.withdrawnAt,
      goneFromOriginSince: harvestedRecords.goneSince,
      harvested: sql<boolean>`${harvestedRecords.alexandriaId} is not null`,
      ...catalogueFactColumns,
      departmentId: departments.id,
      departmentName: departments.name,
      departmentWebsite: departments.website,
      categoryId: categories.id,
      categoryTitle: categories.title,
      sourceId: sources.id,
      sourceName: sources.name,
      sourceUrlOfSource: sources.url,
    })
    .from(alexandrias)
    .leftJoin(departments, recordDepartmentJoin)
    .leftJoin(categories, eq(categories.id, alexandrias.categoryId))
    .leftJoin(sources, recordSourceJoin)
    .leftJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
    .where(and(published, gt(alexandrias.id, after), lte(alexandrias.id, upTo)))
    .orderBy(asc(alexandrias.id));
  // Earlier versions of the page's files: every version but the one the record holds now.
  const versions = await versionsOfRecords(db, rows.map((row) => row.id));
  return rows.map(({ departmentId, departmentName, departmentWebsite, categoryId, categoryTitle, sourceId, sourceName, sourceUrlOfSource, ...record }) => {
    const current = record.cid === null ? undefined : (versions.get(record.id) ?? []).findLast((version) => version.cid === record.cid);
    return {
      ...record,
      fileArchivedAt: record.cid === null ? null : (current?.capturedAt ?? record.createdAt),
      fileCapturedFrom: current?.capture?.finalUrl ?? null,
      olderVersions: (versions.get(record.id) ?? []).filter((version) => version.cid !== record.cid),
      department: departmentId !== null && departmentName !== null ? { id: departmentId, name: departmentName, website: departmentWebsite } : null,
      category: categoryId !== null && categoryTitle !== null ? { id: categoryId, title: categoryTitle } : null,
      source: sourceId !== null && sourceName !== null && sourceUrlOfSource !== null ? { id: sourceId, name: sourceName, url: sourceUrlOfSource } : null,
    };
  });
}

/** The largest record id so far: where a reading of the catalogue stops (0 while it is empty). */
export async function latestRecordId(db: Db): Promise<number> {
  const [row] = await db.select({ id: max(alexandrias.id) }).from(alexandrias);
  return row?.id ?? 0;
}

/**
 * Every published record in id order, a page at a time: each page is the next window of `pageSize`
 * ids, so a query never touches more than that many rows whatever plan the database picks (PGlite
 * runs no autovacuum, and with stale statistics a `LIMIT` query can end up sorting every record,
 * for every page). Gaps (deleted or hidden records) only make a page shorter. Records created while
 * the pages are read are left for the next reading: the list ends at `upTo`, by default the
 * largest id when the reading starts.
 */
export async function* catalogRecordPages(
  db: Db,
  { pageSize = CATALOG_PAGE_SIZE, upTo }: { pageSize?: number; upTo?: number } = {},
): AsyncGenerator<CatalogRecord[]> {
  const last = upTo ?? (await latestRecordId(db));
  for (let after = 0; after < last; after += pageSize) {
    const page = await recordsBetween(db, after, Math.min(after + pageSize, last));
    if (page.length > 0) yield page;
  }
}

export interface CatalogSummary {
  records: number;
  /** When the first published record entered the archive; null while there is none. */
  issued: Date | null;
  /** When a published record last changed. */
  modified: Date | null;
}

/** How many records are published, and the dates the catalogue states for itself. */
export async function catalogSummary(db: Db): Promise<CatalogSummary> {
  const [row] = await db
    .select({ records: count(), issued: min(alexandrias.createdAt), modified: max(alexandrias.updatedAt) })
    .from(alexandrias)
    .where(published);
  return { records: row?.records ?? 0, issued: row?.issued ?? null, modified: row?.modified ?? null };
}

/** The accepted departments that publish at least one published record: the catalogue's publishers. */
export async function catalogPublishers(db: Db): Promise<Array<{ id: number; name: string; website: string | null }>> {
  return db
    .select({ id: departments.id, name: departments.name, website: departments.website })
    .from(departments)
    .where(
      and(
        publicDepartment,
        exists(
        db
          .select({ one: sql`1` })
          .from(alexandrias)
          .where(and(eq(alexandrias.departmentId, departments.id), published)),
        ),
      ),
    )
    .orderBy(asc(departments.id));
}

/** Every category: the archive's themes, a small vocabulary published whole. */
export async function catalogThemes(db: Db): Promise<Array<{ id: number; title: string; description: string | null }>> {
  return db
    .select({ id: categories.id, title: categories.title, description: categories.description })
    .from(categories)
    .orderBy(asc(categories.id));
}

/**
 * What the published metadata depends on: the catalogue's change count (migration 0025), which
 * the database keeps in the same transaction as every change to a table the exports and DCAT read
 * (records, departments, categories, sources, earlier versions). Any edit, addition or deletion
 * changes it, a moderator's included, so a copy built from an equal fingerprint is current.
 *
 * Why not the latest `updated_at`: that time is written by whichever server made the change, from
 * its own clock, so a server 90 s behind the others writes a time older than the latest one and
 * the fingerprint stays the same (issue #21): harvesters revalidating got 304 and kept a stale copy.
 *
 * Why not a sequence: `nextval` is not transactional. A reader could see the bumped value while the
 * change is still uncommitted, build the export from the old data under the new fingerprint, and
 * keep serving that stale file once the change commits (the fingerprint would not move again).
 * Why not one counter row that every change updates: it would be locked from a writer's first
 * change to its commit, so writers would queue on it, and a transaction that locks a record first
 * (`SELECT … FOR UPDATE`, as moderation does) could deadlock with one that changed another table
 * first. So each changing transaction inserts one row of its own (keyed by its transaction id):
 * inserts of different keys never wait for each other, the row becomes visible exactly when the
 * change commits, and a rolled-back change leaves none. The count of those rows only grows, and is
 * read in one statement (one snapshot). Now and then the rows are folded into a total, in one
 * transaction that deletes them and adds their number, so the sum never moves and the table stays
 * small. A statement that changes nothing still counts: one spare rebuild, never a stale copy.
 */
export interface CatalogFingerprint {
  /** The count, as text (a bigint). */
  changes: string;
}

/** Rows of `catalogue_changes` past which a reading folds them into the total. */
const FOLD_AFTER_ROWS = 1000;

export async function catalogFingerprint(db: Db): Promise<CatalogFingerprint> {
  const result = (await db.execute(sql`
    select ((select counted from catalogue_change_count) + (select count(*) from catalogue_changes))::text as changes,
           (select count(*) from catalogue_changes)::int as unfolded`)) as unknown as {
    rows: Array<{ changes: string | null; unfolded: number }>;
  };
  const row = result.rows[0];
  if (!row?.changes) throw new Error('Falta el total de cambios del catálogo (migración 0025).');
  if (Number(row.unfolded) > FOLD_AFTER_ROWS) {
    // Only committed rows are seen, so deleted and added: a change still under way is counted when it commits.
    await db.execute(sql`
      with folded as (delete from catalogue_changes returning 1)
      update catalogue_change_count set counted = counted + (select count(*) from folded)`);
  }
  return { changes: row.changes };
}
