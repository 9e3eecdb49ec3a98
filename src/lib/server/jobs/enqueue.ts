/** Putting work on the queue: one job or many, idempotently when they carry a dedupe key. */
import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobHosts, jobs, type Job } from '../db/schema.ts';
import { milliseconds } from './time.ts';

export interface NewJob {
  /** Which handler runs it. */
  kind: string;
  /** The handler's input, stored as JSON. */
  payload?: unknown;
  /** The remote host the job will ask (e.g. `new URL(url).host`), for per-host politeness. */
  host?: string | null | undefined;
  /**
   * How long from now (the database's now) before it may run. A delay rather than a date: a
   * date would come from this process's clock, which may disagree with the database's.
   */
  delayMs?: number | undefined;
  /**
   * Makes enqueueing idempotent: while a job with this key exists (whatever its status), no second
   * one is made. Include whatever makes the work distinct, e.g. `capture:<run id>:<resource url>`.
   */
  dedupeKey?: string | null | undefined;
  /** Attempts before the job fails for good (5). */
  maxAttempts?: number | undefined;
}

export interface Enqueued {
  job: Job;
  /** False when a job with the same dedupe key was there already (`job` is that one). */
  created: boolean;
}

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters at 7 per row. */
const BATCH_ROWS = 1000;

/** Queues one job; see `enqueueMany`. */
export async function enqueue(db: Db, job: NewJob): Promise<Enqueued> {
  const [result] = await enqueueMany(db, [job]);
  return result!;
}

/**
 * Queues jobs, in batches, and returns them in the order given. A job whose dedupe key is taken
 * (by an earlier job, or earlier in the same list) is not created: its entry is the existing job.
 */
export async function enqueueMany(db: Db, list: readonly NewJob[]): Promise<Enqueued[]> {
  const rows = list.map(toRow);
  const results: Enqueued[] = [];
  for (let start = 0; start < rows.length; start += BATCH_ROWS) {
    results.push(...(await insertBatch(db, rows.slice(start, start + BATCH_ROWS))));
  }
  return results;
}

function toRow(job: NewJob) {
  if (!job.kind) throw new TypeError('Un trabajo necesita un tipo (kind).');
  const maxAttempts = job.maxAttempts ?? 5;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts no válido: ${maxAttempts}`);
  return {
    kind: job.kind,
    payload: job.payload ?? {},
    // Hosts are case-insensitive: one politeness budget for Example.org and example.org.
    host: job.host ? job.host.toLowerCase() : null,
    dedupeKey: job.dedupeKey ?? null,
    maxAttempts,
    runAfter: sql`now() + ${milliseconds(job.delayMs ?? 0)}`,
  };
}

async function insertBatch(db: Db, rows: ReturnType<typeof toRow>[]): Promise<Enqueued[]> {
  const inserted = await db.transaction(async (tx) => {
    const hosts = [...new Set(rows.flatMap((row) => (row.host ? [row.host] : [])))];
    // A job's host must have its row (foreign key) before the job: claims walk the hosts.
    if (hosts.length > 0) await tx.insert(jobHosts).values(hosts.map((host) => ({ host }))).onConflictDoNothing();
    return tx.insert(jobs).values(rows).onConflictDoNothing({ target: jobs.dedupeKey }).returning();
  });
  const byKey = new Map(inserted.flatMap((job) => (job.dedupeKey === null ? [] : [[job.dedupeKey, job] as const])));
  const missing = rows.flatMap((row) => (row.dedupeKey !== null && !byKey.has(row.dedupeKey) ? [row.dedupeKey] : []));
  // Fresh statement, fresh snapshot: a concurrent enqueue that won the key has committed by now
  // (the insert waited for it), so its job is seen.
  const existing = missing.length > 0 ? await db.select().from(jobs).where(inArray(jobs.dedupeKey, missing)) : [];
  const existingByKey = new Map(existing.map((job) => [job.dedupeKey!, job]));
  // Without a key, RETURNING gives the new rows in the order of VALUES (PostgreSQL inserts them in turn).
  const unkeyed = inserted.filter((job) => job.dedupeKey === null);
  const claimedKeys = new Set<string>();
  return rows.map((row) => {
    if (row.dedupeKey === null) return { job: unkeyed.shift()!, created: true };
    const fresh = byKey.get(row.dedupeKey);
    if (fresh && !claimedKeys.has(row.dedupeKey)) {
      claimedKeys.add(row.dedupeKey);
      return { job: fresh, created: true };
    }
    const job = fresh ?? existingByKey.get(row.dedupeKey);
    if (!job) throw new Error(`El trabajo con clave ${row.dedupeKey} no se creó ni se encontró.`);
    return { job, created: false };
  });
}
