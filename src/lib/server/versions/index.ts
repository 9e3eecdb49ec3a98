/**
 * A record's versions (issue #19): every file a captured record has had, v1 its first capture,
 * then one per change of bytes at the origin, each kept in the store and downloadable by its CID.
 * The record's own columns are always its newest version's. What changed from one version to the
 * next is computed in the background by the `version-diff` job (`diff-job.ts`).
 */
import { sql } from 'drizzle-orm';
import type { AssetType } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { recordVersions } from '../db/schema.ts';
import { enqueueMany } from '../jobs/index.ts';
import { versionDiffJob } from './diff-job.ts';

export { VERSION_DIFF_JOB, versionDiffHandler, type VersionDiffPayload } from './diff-job.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface NewVersion {
  alexandriaId: number;
  cid: string;
  sha256: string;
  size: number;
  type: AssetType;
  mimeType: string | null;
  fileName: string | null;
  captureId: number | null;
}

/**
 * Adds the next version of a record, inside the transaction that stores its file, and queues the
 * comparison with the version before (none for v1). Returns its number.
 */
export async function addVersion(tx: Tx, version: NewVersion): Promise<number> {
  const [added] = await addVersions(tx, [version]);
  return added!.number;
}

/**
 * Adds the next version of each record, in one statement for all of them (a group of captures,
 * `harvest/capture-job.ts`), inside the transaction that stores their files, and queues the
 * comparison with the version before for each that is not a v1. Two versions of one record are
 * numbered in the order given. Answers each version's id and number, in the order given.
 */
export async function addVersions(tx: Tx, versions: readonly NewVersion[]): Promise<Array<{ id: number; number: number; sameAs: number | null }>> {
  if (versions.length === 0) return [];
  const rows = JSON.stringify(
    versions.map((version, order) => ({
      order,
      alexandria_id: version.alexandriaId,
      cid: version.cid,
      sha256: version.sha256,
      size: version.size,
      type: version.type,
      mime_type: version.mimeType,
      file_name: version.fileName,
      capture_id: version.captureId,
    })),
  );
  // The next number is one past the record's last, as the unique (record, number) index wants.
  const inserted = (await tx.execute(sql`
    insert into ${recordVersions} (alexandria_id, number, cid, sha256, size, type, mime_type, file_name, capture_id, diff_status)
    select v.alexandria_id, n.last + v.nth, v.cid, v.sha256, v.size, v.type, v.mime_type, v.file_name, v.capture_id,
      case when n.last + v.nth > 1 then 'pending' else 'none' end
    from (
      select r.*, row_number() over (partition by r.alexandria_id order by r."order") as nth
      from jsonb_to_recordset(${rows}::jsonb) as r("order" int, alexandria_id int, cid text, sha256 text, size bigint,
        type asset_type, mime_type text, file_name text, capture_id int)
    ) v
    cross join lateral (select coalesce(max(p.number), 0) as last from ${recordVersions} p where p.alexandria_id = v.alexandria_id) n
    returning id, alexandria_id, number,
      -- The earliest version already kept with the same bytes: a file that changed back.
      (select min(p.number) from ${recordVersions} p
        where p.alexandria_id = ${recordVersions}.alexandria_id and p.cid = ${recordVersions}.cid and p.number < ${recordVersions}.number) as same_as`)) as unknown as {
    rows: Array<{ id: number; alexandria_id: number; number: number; same_as: number | null }>;
  };
  // Each record's new numbers, lowest first, go to its versions in the order given.
  const byRecord = new Map<number, Array<{ id: number; number: number; sameAs: number | null }>>();
  for (const row of inserted.rows) {
    const list = byRecord.get(Number(row.alexandria_id)) ?? [];
    list.push({ id: Number(row.id), number: Number(row.number), sameAs: row.same_as === null ? null : Number(row.same_as) });
    byRecord.set(Number(row.alexandria_id), list);
  }
  for (const list of byRecord.values()) list.sort((a, b) => a.number - b.number);
  const added = versions.map((version) => byRecord.get(version.alexandriaId)!.shift()!);
  const diffs = added.filter((version) => version.number > 1).map((version) => versionDiffJob(version.id));
  if (diffs.length > 0) await enqueueMany(tx as unknown as Db, diffs);
  return added;
}
