/**
 * Every file pinned by the remote service (issue #21), not only the uploads that asked it once:
 * files seeded at the first start, uploads from before a service was configured, and pins that
 * failed (the service was down, refused, or later lost them) each get a job of the durable queue,
 * which asks the service and is retried with the queue's backoff until the service takes the pin.
 *
 * The jobs are queued when the archive starts with a remote provider, and every six hours after
 * (`background.ts`: a job that gave up must not wait for a restart), one per
 * file that lacks a live remote pin (`queued`, `pinning` or `pinned`) and has no such job waiting
 * already; paced per service host like every remote request of the queue. A file held only by
 * blocked records is left out: the gateway refuses it, so the service could not fetch it anyway.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobs, pins } from '../db/schema.ts';
import { catalogueFiles } from '../gateway/served-files.ts';
import { enqueueMany, retryFailedMany, type JobHandler, type NewJob } from '../jobs/index.ts';
import { pinCid, type PinningProvider } from './index.ts';

export const REMOTE_PIN_JOB = 'remote-pin';

export interface RemotePinPayload {
  cid: string;
  /** The provider's name (`PinningProvider.name`), as recorded in `pins`. */
  provider: string;
}

/** Attempts before a job gives up; with the queue's backoff (30 s doubling to 1 h), about half a day. */
const MAX_ATTEMPTS = 15;

/** The job that pins `cid` with `provider`. */
function remotePinJob(provider: PinningProvider, cid: string): NewJob {
  const payload: RemotePinPayload = { cid, provider: provider.name };
  return { kind: REMOTE_PIN_JOB, payload, host: provider.host ?? null, maxAttempts: MAX_ATTEMPTS };
}

/**
 * How long a pin job that gave up (the service kept refusing) waits before the same job is tried
 * again: a day, so a service that refuses for good (a revoked token) is asked once a day per file,
 * not with a fresh job and its fifteen attempts at every look.
 */
const GAVE_UP_RETRY_AFTER = '1 day';

/**
 * Queues a pin job for every served file that `provider` has no live pin of and no job waiting
 * for; returns how many were queued. A file whose last job gave up gets that job back, with its
 * attempts, once it has rested `GAVE_UP_RETRY_AFTER`; only a file with no failed job gets a new
 * one, so the queue does not grow while a service refuses. Two servers looking at the same moment
 * may both queue a new file: its second job finds the pin under way (`pinCid` does not ask twice)
 * and ends.
 */
async function queueMissingFor(db: Db, provider: PinningProvider): Promise<number> {
  const result = (await db.execute(sql`
    with missing as (
      select distinct f.file_cid as cid from (${catalogueFiles}) f
      where f.status <> 'blocked'
        and not exists (select 1 from ${pins} p where p.cid = f.file_cid and p.provider = ${provider.name} and p.status in ('queued', 'pinning', 'pinned'))
        and not exists (select 1 from ${jobs} j where j.kind = ${REMOTE_PIN_JOB} and j.status in ('queued', 'running')
                          and j.payload->>'cid' = f.file_cid and j.payload->>'provider' = ${provider.name})
    )
    select m.cid, gave_up.id as gave_up_job, coalesce(gave_up.finished_at < now() - ${GAVE_UP_RETRY_AFTER}::interval, true) as rested
      from missing m
      left join lateral (
        select j.id, j.finished_at from ${jobs} j
         where j.kind = ${REMOTE_PIN_JOB} and j.status = 'failed' and j.payload->>'cid' = m.cid and j.payload->>'provider' = ${provider.name}
         order by j.id desc limit 1
      ) gave_up on true
     order by m.cid`)) as unknown as { rows: Array<{ cid: string; gave_up_job: number | null; rested: boolean }> };
  const fresh = result.rows.filter((row) => row.gave_up_job === null);
  const again = result.rows.filter((row) => row.gave_up_job !== null && row.rested).map((row) => Number(row.gave_up_job));
  const queued = await enqueueMany(db, fresh.map((row) => remotePinJob(provider, row.cid)));
  return queued.filter((entry) => entry.created).length + (await retryFailedMany(db, again));
}

/**
 * Queues the pins of new files (an upload's document and proof, a capture's file) with every
 * remote provider among `providers`: the queue asks the service, paced and retried, so the
 * contributor never waits for it and a crash loses nothing (a pin never queued is found by
 * `queueMissingRemotePins` within hours). Returns how many were queued.
 */
export async function queueRemotePins(db: Db, providers: readonly PinningProvider[], cids: readonly string[]): Promise<number> {
  const wanted = providers.filter((provider) => provider.host).flatMap((provider) => cids.map((cid) => remotePinJob(provider, cid)));
  if (wanted.length === 0) return 0;
  return (await enqueueMany(db, wanted)).filter((entry) => entry.created).length;
}

/** Queues the missing pins of every remote provider among `providers` (the local store needs none); returns how many. */
export async function queueMissingRemotePins(db: Db, providers: readonly PinningProvider[]): Promise<number> {
  let queued = 0;
  for (const provider of providers) if (provider.host) queued += await queueMissingFor(db, provider);
  return queued;
}

/**
 * The handler of `remote-pin` jobs: asks the provider through `pinCid` (which records the answer
 * and does not ask again for a pin already under way), and fails the attempt when the service did
 * not take it, so the queue tries again later. A provider no longer configured has nothing to do.
 */
export function remotePinHandler(providers: readonly PinningProvider[]): JobHandler {
  return async (job, { db }) => {
    const { cid, provider: name } = job.payload as RemotePinPayload;
    const provider = providers.find((candidate) => candidate.name === name);
    if (!provider) return;
    const status = await pinCid(db, provider, cid);
    if (status === 'failed') throw new Error(`El servicio de anclaje ${name} no ancló ${cid}; se intentará de nuevo.`);
  };
}
