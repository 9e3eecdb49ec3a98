/**
 * Pruning the queue: every capture, every check of a captured URL, every slice of the fixity audit
 * leaves a done job, and a watched archive does thousands a day. Done jobs finished longer ago than
 * a retention (`ARCHIVE_JOB_RETENTION_DAYS`, 7) are deleted, a bounded batch per statement so that
 * neither database holds a long transaction nor the embedded one's single connection for long.
 *
 * Kept: queued and running jobs; failed ones (moderators see and retry them, and a remote pin that
 * gave up is retried from its failed job); and done jobs of the kinds the caller names, whose rows
 * something still reads (`background.ts` says which and why).
 *
 * What the counts read instead: the moderators' "Capturados" counts records whose file a capture
 * brought (`captures`, `harvest/manage.ts`), not done jobs.
 *
 * A dedupe key goes with its job, and no key of a pruned kind has to keep blocking a re-queue:
 * - `capture:<run>:<record>`: only that run queues it, while it runs; and a capture of a record
 *   that has its file already does nothing.
 * - `recheck:<record>:<due date>`: a check that ends moved the record's next check (`watch.ts`,
 *   in every way it ends), so the same due date is never queued again once its job is done.
 * - `fixity:<pass>:<slice>:<minute>`, `fixity-recapture:<pass>:<record>`, `version-diff:<version>`:
 *   the slice, the pass and the version move on once their job is done; nothing asks for them again.
 */
import { and, eq, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobs } from '../db/schema.ts';
import { milliseconds } from './time.ts';

export interface PruneOptions {
  /** Done jobs that finished longer ago than this are deleted. */
  olderThanMs: number;
  /** Kinds whose done jobs are kept however old. */
  keepKinds?: readonly string[] | undefined;
  /** Jobs deleted per statement (1000). */
  batchRows?: number | undefined;
  /** Statements per call at most (20): a larger backlog is left for the next call. */
  maxBatches?: number | undefined;
}

export const DEFAULT_PRUNE = { batchRows: 1000, maxBatches: 20 } as const;

/** Deletes old done jobs, in batches; returns how many. */
export async function pruneDoneJobs(db: Db, options: PruneOptions): Promise<number> {
  const batchRows = options.batchRows ?? DEFAULT_PRUNE.batchRows;
  const maxBatches = options.maxBatches ?? DEFAULT_PRUNE.maxBatches;
  for (const [name, value] of Object.entries({ batchRows, maxBatches })) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} no válido: ${value}`);
  }
  const old = and(
    eq(jobs.status, 'done'),
    lt(jobs.finishedAt, sql`now() - ${milliseconds(options.olderThanMs)}`),
    options.keepKinds?.length ? notInArray(jobs.kind, [...options.keepKinds]) : undefined,
  );
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const rows = await db
      .delete(jobs)
      .where(and(inArray(jobs.id, db.select({ id: jobs.id }).from(jobs).where(old).orderBy(jobs.finishedAt).limit(batchRows)), eq(jobs.status, 'done')))
      .returning({ id: jobs.id });
    deleted += rows.length;
    if (rows.length < batchRows) break;
  }
  return deleted;
}
