/**
 * Which CIDs the archive may fetch from other gateways when its store lacks them
 * (`storage/read-through.ts`): the files its records hold, as a document, a proof, a sheet
 * extracted from a spreadsheet or an earlier version, unless every record holding one is blocked
 * (a withdrawn file is refused, `index.ts`, so there is nothing to fetch it for). Anything else is
 * not the archive's to fetch: the read-through never becomes a proxy to the whole IPFS network.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { readThrough, type WrappableBlockstore } from '../storage/read-through.ts';
import { servedFile } from './served-files.ts';

/** What the reader under way already knows of one file: whether it is served. */
const knownFile = new AsyncLocalStorage<{ cid: string; served: boolean }>();

/**
 * Runs `read` with the answer its caller already has for `cid` (canonical CIDv1): the gateway
 * looks a file up before reading it (to refuse it when withdrawn, and for its type and name), so
 * when the store lacks the file, the read-through's admission takes that answer rather than
 * asking the database the same question again. Only for `cid`: any other file is asked as usual.
 */
export function withKnownCatalogueFile<T>(cid: string, served: boolean, read: () => Promise<T>): Promise<T> {
  return knownFile.run({ cid, served }, read);
}

/**
 * `blockstore` reading through from `gateways` (`config.trustlessGateways`) the files this
 * archive's database serves; `blockstore` itself when there are none.
 */
export function withTrustlessGateways<T extends WrappableBlockstore>(blockstore: T, gateways: readonly string[], db: Db): T {
  if (gateways.length === 0) return blockstore;
  return readThrough(blockstore, {
    gateways,
    isCatalogueFile: async (cid) => {
      const known = knownFile.getStore();
      return known?.cid === cid ? known.served : isServedCatalogueFile(db, cid);
    },
  });
}

/**
 * Whether a record that is not blocked holds the file `cid` (canonical CIDv1, as stored). Four
 * indexed lookups (the CID indexes of migration 0015), asked only when a block is missing locally.
 */
export async function isServedCatalogueFile(db: Db, cid: string): Promise<boolean> {
  const result = (await db.execute(sql`select ${servedFile(sql`${cid}`)} as served`)) as unknown as { rows: Array<{ served: boolean }> };
  return result.rows[0]?.served === true;
}
