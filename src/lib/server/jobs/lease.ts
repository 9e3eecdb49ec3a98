/**
 * Leases: a running job belongs to its worker until `locked_until`, which the worker pushes
 * forward while it works. A worker that dies stops doing so, and its jobs are taken back.
 *
 * A worker holds many more jobs than it runs (`worker.ts`: up to 128 per slot, most waiting for
 * their host's turn), and a crash (SIGKILL, out of memory) would cost each of them an attempt if
 * the attempt counted at the claim were kept: a few crashes during a large harvest, and files never
 * asked for would fail for good. So the worker reports which of its jobs began their work
 * (`markBegun`, `work_began`), and `reclaimExpired` charges the lost attempt only to those; the
 * others go back to the queue as they were.
 *
 * The report is a batch, one statement for all the jobs that began within a tenth of a second and
 * none for those that ended before it, not awaited before a handler starts: on the embedded
 * database's single connection a statement costs about as much as the capture of a small file, so
 * a statement per job would slow every capture. A job that kills its worker before the report is
 * written is then taken back uncharged, once: a job that was ever taken back reports its start
 * alone, awaited, before its handler runs (it may be what killed that worker), so from its second
 * death on each costs an attempt, and a job that kills every worker it meets fails after at most
 * `max_attempts` + 1 deaths. Such jobs are few (only those held when a worker died), and only they
 * pay that statement.
 *
 * Since `attempts` then goes down as well as up, it no longer tells one hold of a job from the next
 * (a worker that stalled past its lease could claim the job again with the same count): `reclaims`,
 * which only grows, is part of a lease's identity.
 */
import { and, eq, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobs, type Job } from '../db/schema.ts';
import { backoffDelay, type BackoffOptions } from './backoff.ts';
import { milliseconds } from './time.ts';

/** What identifies one attempt of a job: a worker acts on a job only while this still matches. */
export type JobLease = Pick<Job, 'id' | 'lockedBy' | 'attempts' | 'reclaims'>;

/**
 * The condition that `lease` is still held: the job is running, by the same worker, in the same
 * attempt, and was not taken back since. A worker whose lease expired (and whose job another
 * worker, or itself, may now run) matches no row, so its late heartbeat or result changes nothing.
 */
export function stillHeld(lease: JobLease): SQL {
  if (lease.lockedBy === null) throw new Error(`El trabajo ${lease.id} no tiene concesión.`);
  return and(
    eq(jobs.id, lease.id),
    eq(jobs.status, 'running'),
    eq(jobs.lockedBy, lease.lockedBy),
    eq(jobs.attempts, lease.attempts),
    eq(jobs.reclaims, lease.reclaims),
  )!;
}

/**
 * `stillHeld` for many leases at once, as one condition with one bound value (a JSON list) however
 * many there are: a worker reports, renews and completes its jobs by the hundred, and an `or` of a
 * hundred five-part conditions cost more to build and to plan than the rows it changed (issue
 * #18, "Fast"). A lease without a holder throws, as with `stillHeld`.
 */
export function allStillHeld(leases: readonly JobLease[]): SQL {
  const rows = JSON.stringify(
    leases.map((lease) => {
      if (lease.lockedBy === null) throw new Error(`El trabajo ${lease.id} no tiene concesión.`);
      return { id: lease.id, locked_by: lease.lockedBy, attempts: lease.attempts, reclaims: lease.reclaims };
    }),
  );
  return sql`${jobs.status} = 'running' and (${jobs.id}, ${jobs.lockedBy}, ${jobs.attempts}, ${jobs.reclaims}) in (
    select l.id, l.locked_by, l.attempts, l.reclaims
      from jsonb_to_recordset(${rows}::jsonb) as l(id int, locked_by text, attempts int, reclaims int))`;
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
    .where(allStillHeld(held))
    .returning({ id: jobs.id });
  return new Set(renewed.map((row) => row.id));
}

/** Extends one job's lease; false when the lease was lost. */
export async function heartbeat(db: Db, lease: JobLease, leaseMs: number): Promise<boolean> {
  return (await renewLeases(db, [lease], leaseMs)).has(lease.id);
}

/**
 * Records that the attempts of `begun` began their work (their handlers were called), in one
 * statement: from now on, their worker's death costs them this attempt. Jobs whose lease was lost,
 * or that ended meanwhile, are left as they are. Returns the ids marked.
 */
export async function markBegun(db: Db, begun: readonly JobLease[]): Promise<Set<number>> {
  if (begun.length === 0) return new Set();
  const marked = await db
    .update(jobs)
    .set({ workBegan: true })
    .where(allStillHeld(begun))
    .returning({ id: jobs.id });
  return new Set(marked.map((row) => row.id));
}

/**
 * Takes back the running jobs whose lease expired (their process died, or stalled past its
 * lease). An attempt that had begun its work counts: the job goes back to the queue after a
 * backoff, or fails when it has no attempt left, so a job that kills its process cannot do so
 * forever. A job that had not begun (as far as its worker reported) gets its attempt back and is
 * due at once. Safe to run from every process at once. Returns the jobs taken back.
 */
export async function reclaimExpired(db: Db, options: { backoff?: BackoffOptions } = {}): Promise<Job[]> {
  const began = jobs.workBegan;
  const retry = sql`(not ${began} or ${jobs.attempts} < ${jobs.maxAttempts})`;
  const holder = sql`coalesce(${jobs.lockedBy}, '?')`;
  return db
    .update(jobs)
    .set({
      status: sql`case when ${retry} then 'queued' else 'failed' end::job_status`,
      attempts: sql`case when ${began} then ${jobs.attempts} else greatest(${jobs.attempts} - 1, 0) end`,
      reclaims: sql`${jobs.reclaims} + 1`,
      runAfter: sql`case when not ${began} then now() when ${retry} then now() + ${backoffDelay(options.backoff)} else ${jobs.runAfter} end`,
      finishedAt: sql`case when ${retry} then null else now() end`,
      lastError: sql`case when ${began}
        then 'El proceso que lo ejecutaba (' || ${holder} || ') dejó de responder: su concesión venció.'
        else 'El proceso que lo tenía en espera (' || ${holder} || ') dejó de responder antes de empezarlo: el intento no cuenta.' end`,
      lockedBy: null,
      lockedUntil: null,
      workBegan: false,
      updatedAt: sql`now()`,
    })
    .where(and(eq(jobs.status, 'running'), lte(jobs.lockedUntil, sql`now()`)))
    .returning();
}
