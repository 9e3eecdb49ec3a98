/**
 * Leases: a running job belongs to its worker until `locked_until`, which the worker pushes
 * forward while it works. A worker that dies stops doing so, and its jobs are taken back.
 */
import { and, eq, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobs, type Job } from '../db/schema.ts';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import { milliseconds } from './time.ts';

/** What identifies one attempt of a job: a worker acts on a job only while this still matches. */
export type JobLease = Pick<Job, 'id' | 'lockedBy' | 'attempts'>;

/**
 * The condition that `lease` is still held: the job is running, by the same worker, in the same
 * attempt. A worker whose lease expired (and whose job another worker may now run) matches no
 * row, so its late heartbeat or result changes nothing.
 */
export function stillHeld(lease: JobLease): SQL {
  if (lease.lockedBy === null) throw new Error(`El trabajo ${lease.id} no tiene concesión.`);
  return and(eq(jobs.id, lease.id), eq(jobs.status, 'running'), eq(jobs.lockedBy, lease.lockedBy), eq(jobs.attempts, lease.attempts))!;
}

/**
 * Extends the leases of `held` jobs to `leaseMs` from now, in one statement. Returns the ids still
 * held; a missing one was lost (expired and taken back), and its work should stop.
 */
export async function renewLeases(db: Db, held: readonly JobLease[], leaseMs: number): Promise<Set<number>> {
  if (held.length === 0) return new Set();
  const renewed = await db
    .update(jobs)
    .set({ lockedUntil: sql`now() + ${milliseconds(leaseMs)}`, updatedAt: sql`now()` })
    .where(or(...held.map(stillHeld)))
    .returning({ id: jobs.id });
  return new Set(renewed.map((row) => row.id));
}

/** Extends one job's lease; false when the lease was lost. */
export async function heartbeat(db: Db, lease: JobLease, leaseMs: number): Promise<boolean> {
  return (await renewLeases(db, [lease], leaseMs)).has(lease.id);
}

/**
 * Takes back the running jobs whose lease expired (their process died, or stalled past its
 * lease). The attempt they were in counts: each goes back to the queue after a backoff, or
 * fails when it has no attempt left, so a job that kills its process cannot do so forever.
 * Safe to run from every process at once. Returns the jobs taken back.
 */
export async function reclaimExpired(db: Db, options: { backoff?: BackoffOptions } = {}): Promise<Job[]> {
  const retry = sql`${jobs.attempts} < ${jobs.maxAttempts}`;
  return db
    .update(jobs)
    .set({
      status: sql`case when ${retry} then 'queued' else 'failed' end::job_status`,
      runAfter: sql`case when ${retry} then now() + ${backoffDelay(options.backoff)} else ${jobs.runAfter} end`,
      finishedAt: sql`case when ${retry} then null else now() end`,
      lastError: sql`'El proceso que lo ejecutaba (' || coalesce(${jobs.lockedBy}, '?') || ') dejó de responder: su concesión venció.'`,
      lockedBy: null,
      lockedUntil: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(jobs.status, 'running'), lte(jobs.lockedUntil, sql`now()`)))
    .returning();
}
