/**
 * How an attempt ends: done, failed (retried after a backoff while attempts remain), or handed
 * back untried when its worker stops. Each acts only while the worker still holds the lease
 * (`stillHeld`), and says whether it did.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobs, type Job } from '../db/schema.ts';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import { allStillHeld, stillHeld, type JobLease } from './lease.ts';

/** A failure reason longer than this is cut: it is shown to moderators, not a log. */
const REASON_LIMIT = 2000;

/** Marks the attempt done. False when the lease had been lost (the result is then ignored). */
export async function complete(db: Db, lease: JobLease): Promise<boolean> {
  const done = await db
    .update(jobs)
    .set({ status: 'done', finishedAt: sql`now()`, lockedBy: null, lockedUntil: null, updatedAt: sql`now()` })
    .where(stillHeld(lease))
    .returning({ id: jobs.id });
  return done.length > 0;
}

/**
 * Marks several attempts done in one statement, inside the transaction that wrote their results
 * (a batch's captures): the work and its completion commit together. Returns the ids whose lease
 * was still held.
 */
export async function completeMany(db: Pick<Db, 'update'>, leases: readonly JobLease[]): Promise<Set<number>> {
  if (leases.length === 0) return new Set();
  const done = await db
    .update(jobs)
    .set({ status: 'done', finishedAt: sql`now()`, lockedBy: null, lockedUntil: null, updatedAt: sql`now()` })
    .where(allStillHeld(leases))
    .returning({ id: jobs.id });
  return new Set(done.map((row) => row.id));
}

export interface FailOptions {
  /** False for a failure another attempt cannot mend: the job fails now (true). */
  retry?: boolean;
  backoff?: BackoffOptions;
}

/**
 * Records a failed attempt and its reason. While attempts remain (and `retry` is not false), the
 * job goes back to the queue, due after an exponential backoff with jitter; otherwise it fails for
 * good. Returns the job as it now stands, or null when the lease had been lost.
 */
export async function fail(db: Db, lease: JobLease, error: unknown, options: FailOptions = {}): Promise<Job | null> {
  const retry = options.retry === false ? sql`false` : sql`${jobs.attempts} < ${jobs.maxAttempts}`;
  const [job] = await db
    .update(jobs)
    .set({
      status: sql`case when ${retry} then 'queued' else 'failed' end::job_status`,
      runAfter: sql`case when ${retry} then now() + ${backoffDelay(options.backoff)} else ${jobs.runAfter} end`,
      finishedAt: sql`case when ${retry} then null else now() end`,
      lastError: reasonOf(error),
      lockedBy: null,
      lockedUntil: null,
      updatedAt: sql`now()`,
    })
    .where(stillHeld(lease))
    .returning();
  return job ?? null;
}

/**
 * Hands a job back untried, its attempt not counted, due at once: for a worker that stops (the
 * server shuts down) while the job runs. False when the lease had been lost.
 */
export async function release(db: Db, lease: JobLease): Promise<boolean> {
  return (await releaseMany(db, [lease])).has(lease.id);
}

/**
 * `release` for several jobs in one statement (a worker that stops hands back every job it holds,
 * up to a thousand); answers the ids whose lease was still held.
 */
export async function releaseMany(db: Db, leases: readonly JobLease[]): Promise<Set<number>> {
  if (leases.length === 0) return new Set();
  const released = await db
    .update(jobs)
    .set({
      status: 'queued',
      attempts: sql`${jobs.attempts} - 1`,
      runAfter: sql`now()`,
      lockedBy: null,
      lockedUntil: null,
      updatedAt: sql`now()`,
    })
    .where(allStillHeld(leases))
    .returning({ id: jobs.id });
  return new Set(released.map((row) => row.id));
}

/**
 * Queues a failed job again with all its attempts (a moderator's "reintentar"), due at once.
 * False when the job is not failed. The attempts it made move to `previous_attempts`: its backoff
 * starts short again, and the queue still tells how often it was tried in all.
 */
export async function retryFailed(db: Db, id: number): Promise<boolean> {
  return (await retryFailedMany(db, [id])) > 0;
}

/** `retryFailed` for several jobs in one statement; answers how many were failed and are queued again. */
export async function retryFailedMany(db: Db, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const retried = await db
    .update(jobs)
    .set({
      status: 'queued',
      previousAttempts: sql`${jobs.previousAttempts} + ${jobs.attempts}`,
      attempts: 0,
      runAfter: sql`now()`,
      finishedAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(inArray(jobs.id, [...ids]), eq(jobs.status, 'failed')))
    .returning({ id: jobs.id });
  return retried.length;
}

function reasonOf(error: unknown): string {
  const reason = error instanceof Error ? error.message || error.name : String(error);
  return reason.length > REASON_LIMIT ? `${reason.slice(0, REASON_LIMIT - 1)}…` : reason;
}
