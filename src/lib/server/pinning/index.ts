/**
 * Pinning: the promise that a CID's blocks are kept. Providers share one small interface, shaped
 * after the IPFS Pinning Service API (statuses queued, pinning, pinned, failed): the archive's own
 * blockstore always, and a remote service when one is configured (`remote.ts`). Every pin the
 * archive asks for is recorded in the `pins` table, which the storage-status answers read.
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { PinStatus } from '../../domain/constants.ts';
import type { ArchiveConfig } from '../config.ts';
import type { Db } from '../db/index.ts';
import { jsonRecords } from '../db/json-values.ts';
import { pins } from '../db/schema.ts';
import { parseCid, type ContentStore } from '../storage/index.ts';
import { gatewayOrigins, remotePinning } from './remote.ts';

export { gatewayOrigins, remotePinning, type RemotePinningOptions, type RemotePinningService } from './remote.ts';
export { queueMissingRemotePins, queueRemotePins, REMOTE_PIN_JOB, remotePinHandler } from './remote-pin-job.ts';

/** What a provider answers to a pin request. */
export interface PinResult {
  status: PinStatus;
  /** The provider's own id for the request, to ask about it later; null where it has none. */
  requestId?: string | null;
}

export interface PinningProvider {
  /** Name recorded with each pin (`local` for the archive's own blockstore). */
  readonly name: string;
  /** The remote host a provider asks (its jobs are paced per host); none for the local store. */
  readonly host?: string;
  /**
   * Asks the provider to keep `cid`; answers the status it reached. A remote provider answers
   * `failed` rather than throwing when it cannot be reached.
   *
   * @param details.name a human name for the pin, where the provider shows one
   */
  pin(cid: string, details?: { name?: string }): Promise<PinResult>;
  /**
   * The current status of an earlier request, for providers that pin asynchronously.
   *
   * @throws when the provider cannot answer now (the caller keeps the status it knew)
   */
  check?(requestId: string): Promise<PinStatus>;
}

/**
 * The archive's own blockstore as a provider. Blocks there are never garbage-collected, so a CID
 * whose file is complete in the store is pinned; one that is not there cannot be.
 */
export function localPinning(store: ContentStore): PinningProvider {
  return {
    name: 'local',
    async pin(cid) {
      if (!(await store.has(cid))) return { status: 'failed' };
      // `stat` walks to the file's root and checks it is a whole UnixFS file, not a stray block.
      await store.stat(cid);
      return { status: 'pinned' };
    },
  };
}

/**
 * The archive's own blockstore, for files a staged commit has just moved into it in the current
 * transaction (`StagedUpload.commit`, which throws unless every block, the root last, went in):
 * pinned without reading them back. Reading each root again cost a group of captures a fifth of
 * its transaction, for a fact the commit had just established.
 */
export const committedPinning: PinningProvider = {
  name: 'local',
  async pin() {
    return { status: 'pinned' };
  },
};

/**
 * The providers `config` names: the local store always, and the remote service when set, told to
 * fetch from the archive's own gateway at `config.publicUrl`.
 */
export function pinningProviders(config: Pick<ArchiveConfig, 'pinningService'> & Partial<Pick<ArchiveConfig, 'publicUrl'>>, store: ContentStore): PinningProvider[] {
  const providers = [localPinning(store)];
  if (config.pinningService) {
    const origins = config.publicUrl ? gatewayOrigins(config.publicUrl) : [];
    providers.push(remotePinning({ ...config.pinningService, origins }));
  }
  return providers;
}

/** Statuses of a request a provider is still working on. */
const UNDER_WAY: PinStatus[] = ['queued', 'pinning'];

type PinDb = Pick<Db, 'execute' | 'select' | 'update'>;

/**
 * Pins `cid` with `provider` and records the outcome and the provider's request id; pinning
 * again updates the same row, and leaves it untouched when the outcome is the same (so re-running
 * a seed is a true no-op). A provider that pins asynchronously is not asked twice: while its
 * request is under way or done, the row stands, and `refreshPins` follows it up.
 *
 * Never throws for the provider's sake: a provider that fails is recorded as `failed` and logged,
 * so an upload does not fail because a pinning service did. (The database's own errors do throw.)
 * A remote provider may take seconds to answer: better called after a transaction than inside one.
 */
export async function pinCid(db: PinDb, provider: PinningProvider, cid: string, details?: { name?: string }): Promise<PinStatus> {
  return (await pinCids(db, provider, [cid], details)).get(cid)!;
}

/**
 * `pinCid` for several CIDs (a group of captures): the provider is asked for each, side by side,
 * and their rows are written in one statement. Answers each CID's status.
 */
export async function pinCids(db: PinDb, provider: PinningProvider, cids: readonly string[], details?: { name?: string }): Promise<Map<string, PinStatus>> {
  const statuses = new Map<string, PinStatus>();
  const unique = [...new Set(cids)];
  if (unique.length === 0) return statuses;
  // Only a provider that follows its requests up can be spared a second one; for the others the
  // upsert below leaves a row with the same outcome untouched, with no read before it.
  if (provider.check) {
    const existing = await db
      .select({ cid: pins.cid, status: pins.status, requestId: pins.requestId })
      .from(pins)
      .where(and(inArray(pins.cid, unique), eq(pins.provider, provider.name)));
    for (const row of existing) {
      if (row.status === 'pinned' || (UNDER_WAY.includes(row.status) && row.requestId)) statuses.set(row.cid, row.status);
    }
  }
  const asked = await Promise.all(
    unique
      .filter((cid) => !statuses.has(cid))
      .map(async (cid) => {
        let result: PinResult;
        try {
          result = await provider.pin(cid, details);
        } catch (error) {
          console.error(`No se pudo anclar ${cid} con ${provider.name}:`, error);
          result = { status: 'failed' };
        }
        statuses.set(cid, result.status);
        return { cid, provider: provider.name, status: result.status, requestId: result.requestId ?? null };
      }),
  );
  if (asked.length > 0) {
    // A concurrent pin of the same CID may have won the race: then this one is an update.
    // One bound value for every pin (a group of captures pins a hundred files at once).
    const rows = asked.map((pin) => ({ cid: pin.cid, provider: pin.provider, status: pin.status, request_id: pin.requestId }));
    await db.execute(sql`
      insert into ${pins} (cid, provider, status, request_id)
      select cid, provider, status, request_id from ${jsonRecords(rows, 'p(cid text, provider text, status pin_status, request_id text)')}
      on conflict (cid, provider) do update set status = excluded.status, request_id = excluded.request_id, updated_at = now()
      where (${pins.status}, ${pins.requestId}) is distinct from (excluded.status, excluded.request_id)`);
  }
  return statuses;
}

/** How often `refreshPins` may ask a provider about one pin. */
export interface RefreshOptions {
  /** A pin checked (or changed) more recently than this is left alone. Default 30 s. */
  minAgeSeconds?: number;
}

/**
 * Asks the providers that can check about the pins of `cid` still `queued` or `pinning`, and
 * records what they answer. Meant for a reader's request (the storage status), so it is bounded:
 * a pin is asked about at most once per `minAgeSeconds` however many readers come, each
 * provider's check has its own short timeout, and the checks run side by side.
 *
 * A pin's `updated_at` says when the archive last heard of it: a check bumps it even when the
 * status stands. The bump is also how concurrent readers share the work: the one whose UPDATE
 * claims the row asks; the others see a fresh row and do not.
 *
 * @param cid as a visitor gave it; one that is not a CID has no pins and is ignored
 */
export async function refreshPins(db: Db, providers: readonly PinningProvider[], cid: string, options: RefreshOptions = {}): Promise<void> {
  const checkable = new Map(providers.filter((provider) => provider.check).map((provider) => [provider.name, provider]));
  if (checkable.size === 0) return;
  let canonical: string;
  try {
    canonical = parseCid(cid).toV1().toString();
  } catch {
    return;
  }
  const minAge = options.minAgeSeconds ?? 30;
  const claimed = await db
    .update(pins)
    .set({ updatedAt: sql`now()` })
    .where(
      and(
        eq(pins.cid, canonical),
        inArray(pins.provider, [...checkable.keys()]),
        inArray(pins.status, UNDER_WAY),
        isNotNull(pins.requestId),
        sql`${pins.updatedAt} <= now() - make_interval(secs => ${minAge})`,
      ),
    )
    .returning({ id: pins.id, provider: pins.provider, status: pins.status, requestId: pins.requestId });

  await Promise.all(
    claimed.map(async (row) => {
      const provider = checkable.get(row.provider);
      if (!provider?.check || !row.requestId) return;
      let status: PinStatus;
      try {
        status = await provider.check(row.requestId);
      } catch (error) {
        console.warn(`El servicio de anclaje ${provider.name} no respondió por ${canonical}:`, error instanceof Error ? error.message : error);
        return;
      }
      if (status !== row.status) await db.update(pins).set({ status, updatedAt: sql`now()` }).where(eq(pins.id, row.id));
    }),
  );
}
