/**
 * A worker: the loop that claims jobs, runs their handlers with bounded concurrency, keeps their
 * leases alive, records each outcome, and stops cleanly when told to.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/index.ts';
import type { Job } from '../db/schema.ts';
import type { BackoffOptions } from './backoff.ts';
import { claim } from './claim.ts';
import { PermanentJobError } from './errors.ts';
import { reclaimExpired, renewLeases } from './lease.ts';
import { complete, fail, release } from './outcomes.ts';

export interface JobContext {
  db: Db;
  /** Aborted when the worker stops or the job's lease is lost: the handler should stop then. */
  signal: AbortSignal;
}

/** Runs one job; a rejection fails the attempt (at once for a `PermanentJobError`). */
export type JobHandler = (job: Job, context: JobContext) => Promise<void>;

export interface WorkerOptions {
  db: Db;
  /** One handler per kind; the worker claims only these kinds. */
  handlers: Readonly<Record<string, JobHandler>>;
  /** Stops the worker: no new claims, running handlers are aborted and their jobs handed back. */
  signal: AbortSignal;
  /** The worker's name in `locked_by` (`workerId()`). */
  worker?: string | undefined;
  /** Jobs this worker runs at once (1). */
  concurrency?: number | undefined;
  /** See `ClaimOptions`. */
  globalConcurrency?: number | undefined;
  perHostConcurrency?: number | undefined;
  perHostDelayMs?: number | undefined;
  /** A running job's lease (60 s), renewed every third of it while the handler works. */
  leaseMs?: number | undefined;
  /** How often to look for due jobs when there were none (1 s). */
  pollMs?: number | undefined;
  backoff?: BackoffOptions | undefined;
  /** How long to wait, once stopped, for handlers to finish before handing their jobs back (5 s). */
  stopGraceMs?: number | undefined;
  /** Where errors of the loop itself go (the database unreachable...); console.error by default. */
  onError?: ((error: unknown) => void) | undefined;
}

/** A name for a worker that says where it runs: host, process, and a random part. */
export function workerId(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

interface Running {
  job: Job;
  controller: AbortController;
  /** The lease was lost (or handed back): the handler's outcome must not be recorded. */
  lost: boolean;
  finished: Promise<void>;
}

/**
 * Runs jobs until `signal` aborts, then returns once no job of this worker is left running (each
 * finished, or handed back untried). Errors of the loop are reported and retried after `pollMs`:
 * a worker outlives a database restart.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const { db, handlers, signal } = options;
  const worker = options.worker ?? workerId();
  const concurrency = options.concurrency ?? 1;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1000;
  const onError = options.onError ?? ((error: unknown) => console.error('Cola de trabajos:', error));
  const kinds = Object.keys(handlers);
  const running = new Map<number, Running>();
  /** Ends the loop's wait early: a job ended (a slot is free) or the worker stops. */
  let wake = () => {};
  /** A job ended since the last claim began: a slot it freed may have gone unseen by that claim. */
  let endedSinceClaim = false;

  let renewing = false;
  const heartbeats = setInterval(() => void renewAll(), Math.max(10, Math.floor(leaseMs / 3)));
  async function renewAll() {
    if (renewing || running.size === 0) return;
    renewing = true;
    try {
      const held = await renewLeases(db, [...running.values()].map((entry) => entry.job), leaseMs);
      for (const entry of running.values()) {
        if (held.has(entry.job.id) || entry.lost) continue;
        entry.lost = true;
        entry.controller.abort(new Error(`Se perdió la concesión del trabajo ${entry.job.id}.`));
      }
    } catch (error) {
      onError(error);
    } finally {
      renewing = false;
    }
  }

  function start(job: Job) {
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const entry: Running = { job, controller, lost: false, finished: Promise.resolve() };
    running.set(job.id, entry);
    entry.finished = (async () => {
      try {
        await handlers[job.kind]!(job, { db, signal: controller.signal });
        if (!entry.lost) await complete(db, job);
      } catch (error) {
        if (entry.lost) return;
        if (signal.aborted) await release(db, job);
        else await fail(db, job, error, { retry: !(error instanceof PermanentJobError), backoff: options.backoff });
      }
    })()
      // Recording the outcome failed: the job stays running until its lease expires and a
      // worker takes it back (`reclaimExpired`).
      .catch(onError)
      .finally(() => {
        signal.removeEventListener('abort', stop);
        running.delete(job.id);
        endedSinceClaim = true;
        wake();
      });
  }

  /** One turn: take back expired jobs now and then, and claim as many as there is room for. */
  let lastReclaim = 0;
  async function claimFreeSlots(): Promise<'full' | 'partial' | 'idle'> {
    endedSinceClaim = false;
    if (Date.now() - lastReclaim >= pollMs) {
      lastReclaim = Date.now();
      await reclaimExpired(db, { backoff: options.backoff });
    }
    const free = concurrency - running.size;
    if (free <= 0) return 'full';
    const claimed = await claim(db, {
      worker,
      kinds,
      limit: free,
      leaseMs,
      globalConcurrency: options.globalConcurrency,
      perHostConcurrency: options.perHostConcurrency,
      perHostDelayMs: options.perHostDelayMs,
    });
    // Stopped while claiming: hand them back rather than start them.
    if (signal.aborted) await Promise.all(claimed.map((job) => release(db, job)));
    else claimed.forEach(start);
    return claimed.length === free ? 'full' : claimed.length > 0 ? 'partial' : 'idle';
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        wake = () => {};
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      wake = done;
    });
  }

  try {
    const perHostDelayMs = options.perHostDelayMs ?? 0;
    while (!signal.aborted && kinds.length > 0) {
      let turn: 'full' | 'partial' | 'idle' = 'idle';
      try {
        turn = await claimFreeSlots();
      } catch (error) {
        onError(error);
      }
      // A job ended while claiming: its slot, and more due jobs, may be there now; look at once.
      if (endedSinceClaim && running.size < concurrency) continue;
      // All slots filled: wait for one to free up (or pollMs, to take back expired jobs). Too few
      // due jobs: look again after pollMs, or as soon as a job ends. Some claimed but not all: a
      // host's pause may be what held the rest back, so look again once it has passed.
      if (turn === 'full' && running.size < concurrency) continue;
      const wait = turn === 'partial' && perHostDelayMs > 0 ? Math.min(pollMs, perHostDelayMs) : pollMs;
      await pause(wait);
    }
    const stopGraceMs = options.stopGraceMs ?? 5000;
    const allFinished = Promise.all([...running.values()].map((entry) => entry.finished));
    await Promise.race([allFinished, sleep(stopGraceMs, undefined, { ref: false })]);
  } finally {
    clearInterval(heartbeats);
  }
  // Handlers that ignored the abort: their jobs go back to the queue now, and what they record
  // later is ignored (they no longer hold the lease).
  await Promise.all(
    [...running.values()].map(async (entry) => {
      entry.lost = true;
      await release(db, entry.job).catch(onError);
    }),
  );
}
