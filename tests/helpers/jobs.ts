/**
 * Running the durable job queue in a test: a worker with the given handlers, quick to poll and to
 * retry, until no job is left to do (of `kinds`, else of any kind), bounded in time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, inArray } from 'drizzle-orm';
import type { Db } from '../../src/lib/server/db/index.ts';
import { jobs } from '../../src/lib/server/db/schema.ts';
import { runWorker, type JobHandler } from '../../src/lib/server/jobs/index.ts';

export interface DrainOptions {
  /** The kinds waited for (every kind by default): jobs of other kinds may stay queued. */
  kinds?: string[];
  /** Fails the test past it (30 s). */
  timeoutMs?: number;
  concurrency?: number;
  perHostConcurrency?: number;
}

/** Runs `handlers` until nothing is queued or running; returns the errors of the worker's loop (none, normally). */
export async function drainJobs(db: Db, handlers: Record<string, JobHandler>, options: DrainOptions = {}): Promise<unknown[]> {
  const { kinds, timeoutMs = 30_000 } = options;
  const stop = new AbortController();
  const errors: unknown[] = [];
  const worker = runWorker({
    db,
    handlers,
    signal: stop.signal,
    concurrency: options.concurrency ?? 4,
    perHostConcurrency: options.perHostConcurrency ?? 4,
    perHostDelayMs: 0,
    pollMs: 20,
    backoff: { baseMs: 10, maxMs: 20 },
    onError: (error) => errors.push(error),
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const pending = inArray(jobs.status, ['queued', 'running']);
      const [left] = await db.select({ n: count() }).from(jobs).where(kinds ? and(inArray(jobs.kind, kinds), pending) : pending);
      if (left!.n === 0) break;
      if (Date.now() > deadline) throw new Error(`Jobs still pending after ${timeoutMs} ms`);
      await sleep(25);
    }
  } finally {
    stop.abort();
    await worker;
  }
  return errors;
}
