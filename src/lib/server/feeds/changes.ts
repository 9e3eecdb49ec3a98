/**
 * What the change feeds tell (issue #19): each new version of a captured file (v2 onwards: v1 is
 * the first capture), each document whose source disappeared and each one its catalogue stopped
 * listing, newest first, for the whole archive or one institution. Blocked records are left out, as everywhere the public reads; an
 * institution's feed exists only for one the public sees (`visibility.ts`).
 */
import { and, desc, eq, gt, isNotNull, min, ne, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, departments, harvestedRecords, harvestSources, imports, recordVersions } from '../db/schema.ts';
import { publicDepartment } from '../queries/visibility.ts';

/** Entries a feed holds at most: readers poll it, they do not page through history. */
export const FEED_ENTRIES = 100;

interface ChangeBase {
  alexandriaId: number;
  title: string;
  /** The record's current file, which names its page. */
  recordCid: string;
  /** When it happened. */
  at: Date;
}

export type ChangeEvent =
  | (ChangeBase & { kind: 'version'; number: number; cid: string; size: number })
  | (ChangeBase & { kind: 'gone'; url: string | null })
  | (ChangeBase & { kind: 'withdrawn'; catalogue: string });

/** What every entry names of its record. */
const recordColumns = { alexandriaId: alexandrias.id, title: alexandrias.title, recordCid: alexandrias.cid };

/** The records a feed may name: with a file, not blocked, of `departmentId` when given. */
function publicRecords(departmentId: number | undefined): SQL {
  return and(isNotNull(alexandrias.cid), ne(alexandrias.status, 'blocked'), departmentId !== undefined ? eq(alexandrias.departmentId, departmentId) : undefined)!;
}

/** The newest `limit` changes, of one institution when `departmentId` is given. */
export async function latestChanges(db: Db, options: { departmentId?: number; limit?: number } = {}): Promise<ChangeEvent[]> {
  const limit = options.limit ?? FEED_ENTRIES;
  const where = publicRecords(options.departmentId);
  const versions = await db
    .select({
      ...recordColumns,
      at: recordVersions.capturedAt,
      number: recordVersions.number,
      cid: recordVersions.cid,
      size: recordVersions.size,
    })
    .from(recordVersions)
    .innerJoin(alexandrias, eq(alexandrias.id, recordVersions.alexandriaId))
    .where(and(where, gt(recordVersions.number, 1)))
    .orderBy(desc(recordVersions.capturedAt), desc(recordVersions.id))
    .limit(limit);
  const gone = await db
    .select({
      ...recordColumns,
      at: harvestedRecords.goneSince,
      url: harvestedRecords.distributionUrl,
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(and(where, isNotNull(harvestedRecords.goneSince)))
    .orderBy(desc(harvestedRecords.goneSince), desc(alexandrias.id))
    .limit(limit);
  const withdrawn = await db
    .select({
      ...recordColumns,
      at: harvestedRecords.withdrawnAt,
      catalogue: harvestSources.name,
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .innerJoin(harvestSources, eq(harvestSources.id, harvestedRecords.harvestSourceId))
    .where(and(where, isNotNull(harvestedRecords.withdrawnAt)))
    .orderBy(desc(harvestedRecords.withdrawnAt), desc(alexandrias.id))
    .limit(limit);
  const events: ChangeEvent[] = [
    ...versions.map((row) => ({ ...row, kind: 'version' as const, recordCid: row.recordCid! })),
    ...gone.map((row) => ({ ...row, kind: 'gone' as const, recordCid: row.recordCid!, at: row.at! })),
    ...withdrawn.map((row) => ({ ...row, kind: 'withdrawn' as const, recordCid: row.recordCid!, at: row.at! })),
  ];
  return events.sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, limit);
}

/** A public institution's name and when the archive first knew it, or null when there is none the public sees (its feed is a 404). */
export async function publicDepartmentOfFeed(db: Db, id: number): Promise<{ name: string; createdAt: Date } | null> {
  const [row] = await db
    .select({ name: departments.name, createdAt: departments.createdAt })
    .from(departments)
    .where(and(eq(departments.id, id), publicDepartment));
  return row ?? null;
}

/**
 * When the archive began: its first import (the seed's, a harvest's or an upload's). An archive
 * that has imported nothing has no date of its own, and gets the Unix epoch: the same on every
 * request, as a feed's date must be.
 */
export async function archiveBegan(db: Db): Promise<Date> {
  const [row] = await db.select({ at: min(imports.createdAt) }).from(imports);
  return row?.at ?? new Date(0);
}
