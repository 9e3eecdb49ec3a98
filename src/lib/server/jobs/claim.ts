/**
 * Taking due jobs to run, within the limits every worker of every process shares: a global
 * concurrency, and per host at most N jobs at once and a minimum delay between two starts.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobHosts, jobs, type Job } from '../db/schema.ts';
import { milliseconds } from './time.ts';

export interface ClaimOptions {
  /** Who takes the jobs (`workerId()`): their `locked_by`. */
  worker: string;
  /** Which kinds of job this worker runs. */
  kinds: readonly string[];
  /** Most jobs taken by this call. */
  limit: number;
  /**
   * Most of them within their host's limit (`limit` when not given); the rest can only be jobs past
   * the limit of a host this worker holds alone (`perHostAlone`): a worker may take a host's backlog
   * in one claim without taking more hosts than it has slots to work on.
   */
  withinHostLimits?: number | undefined;
  /** How long a job stays the worker's without a heartbeat (`renewLeases`). */
  leaseMs: number;
  /**
   * Most running jobs of these `kinds` across all workers and processes (no limit by default).
   * Per kinds, not for the whole queue: CPU work and downloads should not wait for each other.
   */
  globalConcurrency?: number | undefined;
  /** Most running jobs per host, of any kind: a host is asked by everything we do (2). */
  perHostConcurrency?: number | undefined;
  /** Least time between the starts of two jobs for one host (1 s); 0 for none. */
  perHostDelayMs?: number | undefined;
  /**
   * Running jobs of one host this worker may hold when no other worker holds any and there is no
   * per-host delay (`perHostConcurrency` when not given). For a worker that keeps its own requests
   * to a host within `perHostConcurrency` (`runWorker` does): its jobs past that number wait for a
   * turn or write what they fetched, so a host's captures can be fetched while earlier ones commit.
   * The host's running jobs keep every other worker off it, so the limit holds across processes.
   */
  perHostAlone?: number | undefined;
}

export const DEFAULT_POLITENESS = { perHostConcurrency: 2, perHostDelayMs: 1000 } as const;

/**
 * Any constant shared by every process: claims take this transaction-scoped advisory lock, so
 * they run one at a time and each sees the jobs the previous one started. Without it two
 * processes could both see a free slot and both fill it, breaking the limits (never duplicating
 * a job: that is what `FOR UPDATE SKIP LOCKED` and the status check prevent). A claim is a few
 * milliseconds, so the queue behind this lock stays short.
 */
const CLAIM_LOCK = 0x6a6f6273; // 'jobs'

/**
 * Takes up to `limit` due jobs of `kinds`, oldest due first, and marks them running under the
 * worker's lease, counting an attempt. Jobs whose host is at its limit, or asked too recently,
 * wait; other hosts' jobs go ahead of them. Returns the jobs taken (possibly none).
 */
export async function claim(db: Db, options: ClaimOptions): Promise<Job[]> {
  const { worker, kinds, limit, leaseMs } = options;
  const perHost = options.perHostConcurrency ?? DEFAULT_POLITENESS.perHostConcurrency;
  const delayMs = options.perHostDelayMs ?? DEFAULT_POLITENESS.perHostDelayMs;
  const global = options.globalConcurrency ?? Number.MAX_SAFE_INTEGER;
  const alone = options.perHostAlone ?? perHost;
  const within = Math.min(options.withinHostLimits ?? limit, limit);
  if (kinds.length === 0 || limit < 1) return [];
  for (const [name, value] of Object.entries({ limit, perHost, global, alone, within: within + 1 })) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} no válido: ${value}`);
  }
  const lease = milliseconds(leaseMs);
  const pause = milliseconds(delayMs);
  // With a delay, a host can start at most one job per claim: the next must wait the delay.
  const perHostPerClaim = delayMs > 0 ? 1 : perHost;
  // More than the per-host limit only for a host no other worker holds, and with no delay to keep.
  const perHostMine = delayMs > 0 ? perHost : Math.max(alone, perHost);
  const ofKinds = inArray(jobs.kind, [...kinds]);

  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    // statement_timestamp(), not now(): now() is when the transaction began, before the wait for
    // the lock, and a stale clock would shorten the per-host delay by that wait.
    const chosen = (await tx.execute(sql`
      with live as (
        select host, ${ofKinds} as of_kinds, locked_by = ${worker} as mine from jobs
        where status = 'running' and locked_until > statement_timestamp()
      ),
      open_hosts as (
        select h.host, busy.mine,
          case when busy.others = 0 and ${delayMs}::double precision = 0 then ${perHostMine}::int - busy.mine
            else least(${perHostPerClaim}::int, ${perHost}::int - busy.mine - busy.others) end as slots
        from job_hosts h
        cross join lateral (
          select count(*) filter (where live.mine)::int as mine, count(*) filter (where not live.mine)::int as others
          from live where live.host = h.host
        ) busy
        where h.next_allowed_at <= statement_timestamp()
      ),
      candidates as (
        select due.id, due.run_after, h.mine + due.nth > ${perHost}::int as beyond_limit from open_hosts h
        cross join lateral (
          select id, run_after, row_number() over (order by run_after, id) as nth from jobs
          where jobs.host = h.host and status = 'queued' and run_after <= statement_timestamp() and ${ofKinds}
          order by run_after, id limit greatest(h.slots, 0)
        ) due
        where h.slots > 0
        union all
        (select id, run_after, false from jobs
          where host is null and status = 'queued' and run_after <= statement_timestamp() and ${ofKinds}
          order by run_after, id limit ${limit}::int)
      ),
      -- A host's jobs past its limit (a worker alone with it) come after every other host's first ones.
      first_due as (
        select id from (
          (select id, beyond_limit, run_after from candidates where not beyond_limit order by run_after, id limit ${within}::int)
          union all
          (select id, beyond_limit, run_after from candidates where beyond_limit order by run_after, id limit ${limit}::int)
        ) c
        order by beyond_limit, run_after, id
        limit greatest(0, least(${limit}::int, ${global}::bigint - (select count(*) from live where of_kinds)))
      )
      select id from jobs where id in (select id from first_due) and status = 'queued'
      for update skip locked`)) as unknown as { rows: Array<{ id: number }> };
    const ids = chosen.rows.map((row) => Number(row.id));
    if (ids.length === 0) return [];
    const claimed = await tx
      .update(jobs)
      .set({
        status: 'running',
        lockedBy: worker,
        lockedUntil: sql`statement_timestamp() + ${lease}`,
        // Counted now, so that a handler knows whether it runs the last attempt; given back when
        // its worker dies before the job began its work (`lease.ts`).
        attempts: sql`${jobs.attempts} + 1`,
        workBegan: false,
        startedAt: sql`statement_timestamp()`,
        updatedAt: sql`statement_timestamp()`,
      })
      .where(and(inArray(jobs.id, ids), eq(jobs.status, 'queued')))
      .returning();
    const hosts = [...new Set(claimed.flatMap((job) => (job.host ? [job.host] : [])))];
    if (delayMs > 0 && hosts.length > 0) {
      await tx
        .update(jobHosts)
        .set({ nextAllowedAt: sql`statement_timestamp() + ${pause}` })
        .where(inArray(jobHosts.host, hosts));
    }
    return claimed.sort((a, b) => a.runAfter.getTime() - b.runAfter.getTime() || a.id - b.id);
  });
}
