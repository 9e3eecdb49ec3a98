/**
 * A worker: the loop that claims jobs, runs their handlers with bounded concurrency, keeps their
 * leases alive, records each outcome, and stops cleanly when told to.
 *
 * Per-host politeness is kept twice: the claim never gives a host more running jobs than the
 * limit, except to a worker that holds that host alone (`perHostAlone`), and this worker lets at
 * most `perHostConcurrency` of its jobs of one host ask it at once (`Turns` per host). A job holds
 * its host's turn until it ends or says it asks the host nothing more (`hostDone`), so a capture
 * whose bytes are in can wait for its transaction while the next one is fetched.
 *
 * A job at work also holds one of the worker's `concurrency` slots (`Turns` again); jobs waiting
 * for their host's turn hold none, so a host's backlog never keeps other hosts' jobs waiting. The
 * backlog of a host the worker holds alone is claimed in large batches (half the jobs a worker may
 * hold at once): a claim is a transaction, which on the embedded database's single connection
 * costs as much as the capture of a small file.
 *
 * Because a worker holds so many jobs it has not begun, it tells the database which ones began
 * (`markBegun`, at most every `BEGUN_REPORT_MS`, one statement for all of them, and none for a job
 * that ended in the meantime; before its handler, for a job once taken back from a dead worker):
 * when it dies, only those lose the attempt (`lease.ts`).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Turns } from '../concurrency/turns.ts';
import type { Db } from '../db/index.ts';
import type { Job } from '../db/schema.ts';
import type { BackoffOptions } from './backoff.ts';
import { claim, DEFAULT_POLITENESS } from './claim.ts';
import { HandBackJobError, PermanentJobError } from './errors.ts';
import { markBegun, reclaimExpired, renewLeases } from './lease.ts';
import { complete, fail, releaseMany } from './outcomes.ts';

export interface JobContext {
  db: Db;
  /** Aborted when the worker stops or the job's lease is lost: the handler should stop then. */
  signal: AbortSignal;
  /**
   * The job asks its host nothing more and only waits for its writes (a capture whose bytes are
   * in, waiting for its group's transaction): the host's turn goes to this worker's next job of
   * that host, and the job stops counting towards `concurrency`, so that more files are fetched
   * while earlier ones are written. Optional (the turn is given back when the handler ends); safe
   * to call twice.
   */
  hostDone?: () => void;
  /**
   * The jobs claimed together with this one (itself included), the same array for each of them:
   * for a handler that reads what they all need in one query rather than one per job.
   */
  batch?: readonly Job[];
}

/**
 * Runs one job; a rejection fails the attempt (at once for a `PermanentJobError`, handed back
 * untried for a `HandBackJobError`). It answers `'completed'` when it marked the job done itself,
 * in the transaction that wrote its result (`completeMany`); otherwise the worker marks it done.
 */
export type JobHandler = (job: Job, context: JobContext) => Promise<void | 'completed'>;

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

/**
 * Jobs a worker holds at most, per unit of `concurrency`, counting those that wait for their host's
 * turn or only for their writes (`hostDone`): bounds what a slow database lets pile up. With the
 * default `concurrency` of 8 that is 1,024 jobs: while one group of captures is written
 * (`harvest/capture-groups.ts`), the next fills, and a host's turns never wait for a claim, which
 * on the embedded database queues behind that group's transaction. In the benchmark 8 per slot
 * left a host's four turns idle more than half the time; 32 captured some 25% faster, and 128
 * some 20% faster again (the fetches run further ahead of the writes, and the groups are larger),
 * while a held job costs little memory (a capture waiting for its writes keeps its facts, not its
 * bytes). Only a host this worker holds alone, with no per-host delay, is taken that far ahead
 * (`claim`'s `perHostAlone`): with a delay, a claim takes one job per host.
 */
const WAITING_PER_SLOT = 128;

/**
 * Least time between two reports of the jobs that began their work (`markBegun`): one statement for
 * all the captures that began meanwhile, and none for those that ended before it. A job that kills
 * its worker within this time is taken back uncharged, once (`lease.ts`).
 */
const BEGUN_REPORT_MS = 100;

/** A name for a worker that says where it runs: host, process, and a random part. */
export function workerId(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

interface Running {
  job: Job;
  controller: AbortController;
  /** The lease was lost (or handed back): the handler's outcome must not be recorded. */
  lost: boolean;
  /**
   * Where it stands: waiting for its host's turn, then for a slot of `concurrency`, at work, or
   * only waiting for its writes (it called `hostDone`, and holds neither turn nor slot).
   */
  stage: 'turn' | 'slot' | 'work' | 'writes';
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
  const perHostConcurrency = options.perHostConcurrency ?? DEFAULT_POLITENESS.perHostConcurrency;
  // A job with a host takes its host's turn (keyed by host) before one of the slots (one key), and
  // gives both back when it ends or calls `hostDone`.
  const turns = new Turns(perHostConcurrency);
  const slots = new Turns(concurrency);
  /** Jobs this worker holds at most, whatever their stage. */
  const held = concurrency * WAITING_PER_SLOT;
  // Counted in place: it runs after every job, over up to `held` entries.
  const countAt = (stage: Running['stage']) => {
    let count = 0;
    for (const entry of running.values()) if (entry.stage === stage) count += 1;
    return count;
  };
  /** Jobs that could start now: slots of `concurrency` neither at work nor promised to a job waiting for one. */
  const freeSlots = () => Math.min(concurrency - countAt('work') - countAt('slot'), held - running.size);
  /** The last claim brought jobs past their host's limit: a host this worker holds alone has a backlog to feed. */
  let feedingAHost = false;
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

  /** Jobs whose handlers began since the last report, reported in one statement (`markBegun`). */
  const begun: Job[] = [];
  let reportTimer: NodeJS.Timeout | undefined;
  let reporting: Promise<void> | undefined;
  let lastReport = Number.NEGATIVE_INFINITY;
  function reportBegunSoon() {
    if (reporting || reportTimer || begun.length === 0 || signal.aborted) return;
    const wait = Math.max(0, lastReport + BEGUN_REPORT_MS - performance.now());
    reportTimer = setTimeout(() => {
      reportTimer = undefined;
      lastReport = performance.now();
      // Those that ended meanwhile, or were lost, have nothing to report.
      const batch = begun.splice(0).filter((job) => running.get(job.id)?.job === job && !running.get(job.id)?.lost);
      reporting = markBegun(db, batch)
        .then(
          () => {},
          (error: unknown) => {
            begun.push(...batch);
            onError(error);
            // The database is unreachable: the next try waits as the loop's does.
            lastReport = performance.now() + pollMs - BEGUN_REPORT_MS;
          },
        )
        .finally(() => {
          reporting = undefined;
          reportBegunSoon();
        });
    }, wait);
  }

  /**
   * Hands a job back untried, together with the others handed back in the same turn of the event
   * loop: when the worker stops, every job it holds (up to a thousand) ends at once, and one
   * statement hands them all back. A failure is reported once; the jobs then wait for their leases
   * to expire, as after a crash.
   */
  let handingBack: { jobs: Job[]; done: Promise<void> } | null = null;
  function handBack(job: Job): Promise<void> {
    if (!handingBack) {
      const batch: { jobs: Job[]; done: Promise<void> } = { jobs: [], done: Promise.resolve() };
      batch.done = new Promise((resolve) => setImmediate(resolve)).then(async () => {
        if (handingBack === batch) handingBack = null;
        await releaseMany(db, batch.jobs).catch(onError);
      });
      handingBack = batch;
    }
    handingBack.jobs.push(job);
    return handingBack.done;
  }

  function start(job: Job, batch: readonly Job[]) {
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    // Counted from now where it will stand once its host's turn is taken (at once, or later).
    const stage = job.host && !turns.free(job.host) ? 'turn' : 'slot';
    const entry: Running = { job, controller, lost: false, stage, finished: Promise.resolve() };
    // Claimed again while this worker still runs it under a lease it lost (its heartbeats stalled
    // past the lease, and the job, not begun, was taken back and due at once): the old run stops,
    // and records nothing.
    const stale = running.get(job.id);
    if (stale) {
      stale.lost = true;
      stale.controller.abort(new Error(`Se perdió la concesión del trabajo ${job.id}.`));
    }
    running.set(job.id, entry);
    let giveTurnBack = () => {};
    let giveSlotBack = () => {};
    entry.finished = (async () => {
      try {
        if (job.host) giveTurnBack = await turns.take(job.host, controller.signal);
        entry.stage = 'slot';
        giveSlotBack = await slots.take('', controller.signal);
        entry.stage = 'work';
        if (job.reclaims === 0) {
          begun.push(job);
          reportBegunSoon();
        } else if (!(await markBegun(db, [job])).has(job.id)) {
          // Taken back from a dead worker before: it may be what killed it, so its start is on
          // record before its handler runs. The lease was lost meanwhile: another worker has it.
          entry.lost = true;
          return;
        }
        const hostDone = () => {
          giveTurnBack();
          giveSlotBack();
          if (entry.stage === 'writes') return;
          entry.stage = 'writes';
          // A slot is free: the loop may claim the next job at once.
          endedSinceClaim = true;
          wake();
        };
        const outcome = await handlers[job.kind]!(job, { db, signal: controller.signal, hostDone, batch });
        if (!entry.lost && outcome !== 'completed') await complete(db, job);
      } catch (error) {
        if (entry.lost) return;
        if (signal.aborted || error instanceof HandBackJobError) await handBack(job);
        else await fail(db, job, error, { retry: !(error instanceof PermanentJobError), backoff: options.backoff });
      } finally {
        giveTurnBack();
        giveSlotBack();
      }
    })()
      // Recording the outcome failed: the job stays running until its lease expires and a
      // worker takes it back (`reclaimExpired`).
      .catch(onError)
      .finally(() => {
        signal.removeEventListener('abort', stop);
        if (running.get(job.id) === entry) running.delete(job.id);
        endedSinceClaim = true;
        wake();
      });
  }

  /** One turn: take back expired jobs now and then, and claim as many as there is room for. */
  let lastReclaim = 0;
  async function claimFreeSlots(): Promise<'busy' | 'full' | 'partial' | 'idle'> {
    endedSinceClaim = false;
    if (Date.now() - lastReclaim >= pollMs) {
      lastReclaim = Date.now();
      await reclaimExpired(db, { backoff: options.backoff });
    }
    const free = freeSlots();
    const room = held - running.size;
    // A claim is a transaction of its own: with jobs at work or waiting, it waits until half the
    // slots are free, so that it takes several jobs at once rather than one each time one ends; or,
    // feeding a host's backlog, until half the jobs the worker may hold have ended.
    const busy = running.size - countAt('writes') > 0;
    const worthIt = !busy || free >= Math.ceil(concurrency / 2) || (feedingAHost && room >= held / 2);
    if (room <= 0 || !worthIt) return 'busy';
    const claimed = await claim(db, {
      worker,
      kinds,
      limit: room,
      withinHostLimits: Math.max(free, 0),
      leaseMs,
      globalConcurrency: options.globalConcurrency,
      perHostConcurrency: options.perHostConcurrency,
      perHostDelayMs: options.perHostDelayMs,
      // A host this worker holds alone may fill it: at most `perHostConcurrency` of its jobs ask the
      // host at once, and the rest wait for their turn or their writes.
      perHostAlone: held,
    });
    feedingAHost = claimed.length > Math.max(free, 0);
    // Stopped while claiming: hand them back rather than start them.
    if (signal.aborted) await releaseMany(db, claimed);
    else for (const job of claimed) start(job, claimed);
    return claimed.length > 0 && claimed.length >= free ? 'full' : claimed.length > 0 ? 'partial' : 'idle';
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
      let turn: 'busy' | 'full' | 'partial' | 'idle' = 'idle';
      try {
        turn = await claimFreeSlots();
      } catch (error) {
        onError(error);
      }
      // A job ended while claiming: its slot, and more due jobs, may be there now; look at once.
      if (endedSinceClaim && freeSlots() > 0) continue;
      // All slots filled: wait for one to free up (or pollMs, to take back expired jobs). Too few
      // due jobs: look again after pollMs, or as soon as a job ends. Some claimed but not all: a
      // host's pause may be what held the rest back, so look again once it has passed.
      if (turn === 'full' && freeSlots() > 0) continue;
      const wait = turn === 'partial' && perHostDelayMs > 0 ? Math.min(pollMs, perHostDelayMs) : pollMs;
      await pause(wait);
    }
    const stopGraceMs = options.stopGraceMs ?? 5000;
    const allFinished = Promise.all([...running.values()].map((entry) => entry.finished));
    await Promise.race([allFinished, sleep(stopGraceMs, undefined, { ref: false })]);
  } finally {
    clearInterval(heartbeats);
    clearTimeout(reportTimer);
    await reporting;
  }
  // Handlers that ignored the abort: their jobs go back to the queue now, and what they record
  // later is ignored (they no longer hold the lease).
  const left = [...running.values()];
  for (const entry of left) entry.lost = true;
  await releaseMany(
    db,
    left.map((entry) => entry.job),
  ).catch(onError);
}
