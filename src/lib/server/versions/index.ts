/**
 * A record's versions (issue #19): every file a captured record has had, v1 its first capture,
 * then one per change of bytes at the origin, each kept in the store and downloadable by its CID.
 * The record's own columns are always its newest version's. What changed from one version to the
 * next is computed in the background by the `version-diff` job (`diff-job.ts`).
 */
import { eq, sql } from 'drizzle-orm';
import type { AssetType } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { recordVersions } from '../db/schema.ts';
import { enqueue } from '../jobs/index.ts';
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
  const [last] = await tx
    .select({ number: sql<number>`coalesce(max(${recordVersions.number}), 0)::int` })
    .from(recordVersions)
    .where(eq(recordVersions.alexandriaId, version.alexandriaId));
  const number = Number(last?.number ?? 0) + 1;
  const [row] = await tx
    .insert(recordVersions)
    .values({ ...version, number, diffStatus: number > 1 ? 'pending' : 'none' })
    .returning({ id: recordVersions.id });
  if (number > 1) await enqueue(tx as unknown as Db, versionDiffJob(row!.id));
  return number;
}
