/** A record's versions (issue #19): every file it has had, for its page and the versions API. */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { AssetType } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, captures, recordVersions, type VersionDiff } from '../db/schema.ts';
import { isRowId } from './paging.ts';

export interface VersionItem {
  /** 1, 2, 3… in capture order; the highest is the record's current file. */
  number: number;
  cid: string;
  sha256: string;
  size: number;
  type: AssetType;
  mimeType: string | null;
  fileName: string | null;
  capturedAt: Date;
  /** The HTTP facts of the capture that brought these bytes; null when its row is gone. */
  capture: { finalUrl: string | null; status: number | null; etag: string | null; lastModified: string | null } | null;
  /** What changed from the version before; null for v1 and while the comparison is pending. */
  diff: VersionDiff | null;
  diffStatus: 'none' | 'pending' | 'done' | 'failed';
}

/** A record's versions, oldest first; none for a record never captured. */
export async function versionsOf(db: Db, alexandriaId: number): Promise<VersionItem[]> {
  if (!isRowId(alexandriaId)) return [];
  return (await versionsOfRecords(db, [alexandriaId])).get(alexandriaId) ?? [];
}

/** The versions of several records in one query (GraphQL's batch loader), each oldest first. */
export async function versionsOfRecords(db: Db, alexandriaIds: readonly number[]): Promise<Map<number, VersionItem[]>> {
  const answer = new Map<number, VersionItem[]>();
  const ids = alexandriaIds.filter(isRowId);
  if (ids.length === 0) return answer;
  const rows = await db
    .select({
      alexandriaId: recordVersions.alexandriaId,
      number: recordVersions.number,
      cid: recordVersions.cid,
      sha256: recordVersions.sha256,
      size: recordVersions.size,
      type: recordVersions.type,
      mimeType: recordVersions.mimeType,
      fileName: recordVersions.fileName,
      capturedAt: recordVersions.capturedAt,
      diff: recordVersions.diff,
      diffStatus: recordVersions.diffStatus,
      captureId: captures.id,
      finalUrl: captures.finalUrl,
      status: captures.status,
      etag: captures.etag,
      lastModified: captures.lastModified,
      recordStatus: alexandrias.status,
    })
    .from(recordVersions)
    .innerJoin(alexandrias, eq(alexandrias.id, recordVersions.alexandriaId))
    .leftJoin(captures, eq(captures.id, recordVersions.captureId))
    .where(inArray(recordVersions.alexandriaId, ids))
    .orderBy(asc(recordVersions.alexandriaId), asc(recordVersions.number));
  for (const { alexandriaId, captureId, finalUrl, status, etag, lastModified, recordStatus, diff, ...version } of rows) {
    const item: VersionItem = {
      ...version,
      diff: recordStatus === 'blocked' ? withoutContents(diff) : diff,
      capture: captureId === null ? null : { finalUrl, status, etag, lastModified },
    };
    answer.set(alexandriaId, [...(answer.get(alexandriaId) ?? []), item]);
  }
  return answer;
}

/** Like `versionsOf`, but null when there is no such record. */
export async function recordVersionsOf(db: Db, alexandriaId: number): Promise<VersionItem[] | null> {
  if (!isRowId(alexandriaId)) return null;
  const [record] = await db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.id, alexandriaId));
  return record ? versionsOf(db, alexandriaId) : null;
}

/**
 * What changed, without anything of the file's contents (its changed rows, its column names): a
 * blocked record's file is withdrawn, and so is what a comparison quotes of it (DECISIONS.md).
 */
function withoutContents(diff: VersionDiff | null): VersionDiff | null {
  if (!diff) return diff;
  const { sample: _sample, columnsAdded: _added, columnsRemoved: _removed, ...counts } = diff;
  return counts;
}

/**
 * Where a record page asked by an earlier version's CID lives now: the record's current page.
 * Links shared before its file changed keep working (`/single/src/{old cid}?assetId=…`).
 */
export async function currentRecordOfVersion(db: Db, cid: string, assetId: number | null): Promise<{ id: number; cid: string } | null> {
  const [found] = await db
    .select({ id: alexandrias.id, cid: alexandrias.cid })
    .from(recordVersions)
    .innerJoin(alexandrias, eq(alexandrias.id, recordVersions.alexandriaId))
    .where(assetId !== null && isRowId(assetId) ? and(eq(recordVersions.cid, cid), eq(recordVersions.alexandriaId, assetId)) : eq(recordVersions.cid, cid))
    .orderBy(asc(recordVersions.alexandriaId))
    .limit(1);
  return found?.cid ? { id: found.id, cid: found.cid } : null;
}
