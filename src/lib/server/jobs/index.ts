/**
 * The durable job queue: all background work of the archive (harvest runs, captures of harvested
 * files, spreadsheet previews; `background.ts` lists the handlers) is a row of `jobs`, so it survives a restart, is shared by every server process on one database without
 * running twice, is retried with backoff, and is paced per remote host.
 *
 * Why a table of our own and not pg-boss or graphile-worker: both want several connections and
 * LISTEN/NOTIFY, while the archive must run the same queue on the embedded PGlite as `npm start`
 * serves it (one session over a Unix socket, `DATABASE_POOL_MAX=1`, `db/pglite-socket.ts`), where a
 * worker holding a connection to wait for notifications would block every other query. So: a
 * small table, claimed with `FOR UPDATE SKIP LOCKED` under a short advisory lock (`claim.ts`),
 * polled, with every time taken from the database's clock.
 *
 * The life of a job: `enqueue` → queued → `claim` → running (lease renewed by `renewLeases`) →
 * `complete` → done, or `fail` → queued again after a backoff, until `max_attempts` → failed.
 * A process that dies leaves its jobs running with a lease that expires: `reclaimExpired` puts them
 * back, the lost attempt counted for the jobs that had begun their work (`markBegun`), not for those
 * only waiting for their host's turn. Done jobs are deleted after a retention (`pruneDoneJobs`).
 * `runWorker` does all of this around a set of handlers.
 */
export { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
export { claim, DEFAULT_POLITENESS, type ClaimOptions } from './claim.ts';
export { enqueue, enqueueMany, type Enqueued, type NewJob } from './enqueue.ts';
export { HandBackJobError, PermanentJobError } from './errors.ts';
export { deferHost } from './hosts.ts';
export { heartbeat, markBegun, reclaimExpired, renewLeases, type JobLease } from './lease.ts';
export { complete, completeMany, fail, release, releaseMany, retryFailed, retryFailedMany, type FailOptions } from './outcomes.ts';
export { DEFAULT_PRUNE, pruneDoneJobs, type PruneOptions } from './prune.ts';
export { JOB_STATUSES, type JobStatus } from './statuses.ts';
export { runWorker, workerId, type JobContext, type JobHandler, type WorkerOptions } from './worker.ts';
export type { Job } from '../db/schema.ts';
