/**
 * Pinning: the promise that a CID's blocks are kept. Providers share one small interface, shaped
 * after the IPFS Pinning Service API (statuses queued, pinning, pinned, failed), so a remote
 * service can join the archive's own blockstore later without changing callers. Every pin the
 * archive asks for is recorded in the `pins` table, which the storage-status answers read.
 */
import { sql } from 'drizzle-orm';
import type { PinStatus } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { pins } from '../db/schema.ts';
import type { ContentStore } from '../storage/index.ts';

export interface PinningProvider {
  /** Name recorded with each pin (`local` for the archive's own blockstore). */
  readonly name: string;
  /** Asks the provider to keep `cid`; answers the status it reached. */
  pin(cid: string): Promise<PinStatus>;
}

/**
 * The archive's own blockstore as a provider. Blocks there are never garbage-collected, so a CID
 * whose file is complete in the store is pinned; one that is not there cannot be.
 */
export function localPinning(store: ContentStore): PinningProvider {
  return {
    name: 'local',
    async pin(cid) {
      if (!(await store.has(cid))) return 'failed';
      // `stat` walks to the file's root and checks it is a whole UnixFS file, not a stray block.
      await store.stat(cid);
      return 'pinned';
    },
  };
}

/** Pins `cid` with `provider` and records the outcome; pinning again updates the same row. */
export async function pinCid(db: Pick<Db, 'insert'>, provider: PinningProvider, cid: string): Promise<PinStatus> {
  const status = await provider.pin(cid);
  await db
    .insert(pins)
    .values({ cid, provider: provider.name, status })
    .onConflictDoUpdate({
      target: [pins.cid, pins.provider],
      set: { status, updatedAt: sql`now()` },
      // Re-pinning with the same outcome changes nothing, so re-running a seed is a true no-op.
      setWhere: sql`${pins.status} is distinct from excluded.status`,
    });
  return status;
}
