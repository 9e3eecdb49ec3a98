/**
 * Pinning: the promise that a CID's blocks are kept. Providers share one small interface, shaped
 * after the IPFS Pinning Service API (statuses queued, pinning, pinned, failed), so a remote
 * service can join the archive's own blockstore later without changing callers. Every pin the
 * archive asks for is recorded in the `pins` table, which the storage-status answers read.
 */
import { and, eq, sql } from 'drizzle-orm';
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

/**
 * Pins `cid` with `provider` and records the outcome; pinning again updates the same row, and
 * leaves it untouched when the outcome is the same (so re-running a seed is a true no-op).
 */
export async function pinCid(db: Pick<Db, 'insert' | 'select' | 'update'>, provider: PinningProvider, cid: string): Promise<PinStatus> {
  const status = await provider.pin(cid);
  const where = and(eq(pins.cid, cid), eq(pins.provider, provider.name));
  const [existing] = await db.select({ status: pins.status }).from(pins).where(where);
  if (!existing) {
    // A concurrent pin of the same CID may have won the race: then this one is an update.
    await db
      .insert(pins)
      .values({ cid, provider: provider.name, status })
      .onConflictDoUpdate({ target: [pins.cid, pins.provider], set: { status, updatedAt: sql`now()` } });
  } else if (existing.status !== status) {
    await db.update(pins).set({ status, updatedAt: sql`now()` }).where(where);
  }
  return status;
}
