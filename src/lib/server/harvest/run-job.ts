/**
 * A harvest run as a job of the queue (issue #18), so that whoever asks for it (the schedule, a
 * moderator's "Cosechar ahora", `npm run harvest` from another process) only writes a row, and
 * whichever worker is free runs it: the server's, or the command's own when no server is up.
 *
 * - `queueHarvestRun` asks for a run unless one of the source is already queued or running: two
 *   clicks, or the schedule and a click at once, make one run.
 * - `harvestRunHandler` runs it. The run's Import remembers its job: when a process dies mid-run,
 *   the job's lease expires, the queue hands the job to another worker, and that retry closes the
 *   dead attempt's Import as failed before it starts a new run. So a run killed half-way ends
 *   failed and is run again, by itself, within a lease.
 * - `queueDueHarvests` is the schedule: every source not paused whose last run started longer
 *   ago than its interval (by the database's clock) gets a run.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { calendarDate } from '../../format.ts';
import type { Db } from '../db/index.ts';
import { harvestSources, jobs, type Job } from '../db/schema.ts';
import { ConflictError } from '../http/errors.ts';
import { enqueue, PermanentJobError, type JobHandler } from '../jobs/index.ts';
import { catalogPageFetcher } from './fetch-page.ts';
import { runHarvest, type HarvestRunReport } from './run.ts';

/** The job kind of a harvest run. */
export const HARVEST_JOB = 'harvest';

export interface HarvestJobPayload {
  harvestSourceId: number;
  /** Who asked: `programada`, a moderator's wallet, `npm run harvest`. Shown to moderators. */
  requestedBy: string;
}

/** Attempts of one run: a run that dies twice more is left failed for a person to look at. */
const RUN_ATTEMPTS = 3;

/** Harvest jobs of a source, whatever their status. */
export function runsOf(harvestSourceId: number) {
  return and(eq(jobs.kind, HARVEST_JOB), sql`(${jobs.payload}->>'harvestSourceId')::int = ${harvestSourceId}`);
}

/** Harvest jobs of a source that are still to run or running. */
export function activeRunsOf(harvestSourceId: number) {
  return and(runsOf(harvestSourceId), inArray(jobs.status, ['queued', 'running']));
}

/** A run asked for a harvest source that is not there (never was, or a moderator deleted it meanwhile). */
export class HarvestSourceGoneError extends Error {
  constructor(harvestSourceId: number) {
    super(`No existe la fuente de cosecha ${harvestSourceId}.`);
    this.name = 'HarvestSourceGoneError';
  }
}

/**
 * Queues a run of `harvestSourceId`; when one is already queued or running, that job is returned
 * (`created: false`). Serialised per source by a transaction lock, so two servers asking at the
 * same moment still make one job. A snapshot is refused (`refuseSnapshot`), whoever asks.
 */
export async function queueHarvestRun(db: Db, harvestSourceId: number, requestedBy: string): Promise<{ job: Job; created: boolean }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('harvest-queue'), ${harvestSourceId})`);
    const [source] = await tx
      .select({ name: harvestSources.name, snapshotOn: harvestSources.snapshotOn })
      .from(harvestSources)
      .where(eq(harvestSources.id, harvestSourceId));
    if (!source) throw new HarvestSourceGoneError(harvestSourceId);
    refuseSnapshot(source);
    const [active] = await tx.select().from(jobs).where(activeRunsOf(harvestSourceId)).orderBy(jobs.id).limit(1);
    if (active) return { job: active, created: false };
    const payload: HarvestJobPayload = { harvestSourceId, requestedBy };
    const { job } = await enqueue(tx as unknown as Db, { kind: HARVEST_JOB, payload, maxAttempts: RUN_ATTEMPTS });
    return { job, created: true };
  });
}

/**
 * Why a run of `source` is refused, or null for a live catalogue: a snapshot (the seed's export)
 * has a web page at its address, not a catalogue's API, so a run could only fail; it stays as it
 * was harvested.
 */
export function snapshotRefusal(source: { name: string; snapshotOn: string | null }): string | null {
  if (source.snapshotOn === null) return null;
  return `«${source.name}» es una copia del catálogo tomada el ${calendarDate(source.snapshotOn)} y guardada con el archivo, no un catálogo en línea: no se vuelve a cosechar. Para seguir el portal, añada la dirección de su API como una fuente de cosecha propia.`;
}

/** A 409 with `snapshotRefusal`'s reason, for a moderator (or the command) asking to run a snapshot. */
export function refuseSnapshot(source: { name: string; snapshotOn: string | null }): void {
  const refusal = snapshotRefusal(source);
  if (refusal !== null) throw new ConflictError(refusal);
}

/**
 * Queues a run for every harvest source that is due: not paused, nothing queued or running, and
 * no run started within its interval. Returns the ids of the sources queued.
 */
export async function queueDueHarvests(db: Db, requestedBy = 'programada'): Promise<number[]> {
  const due = (await db.execute(sql`
    select s.id
      from harvest_sources s
     where not s.paused
       and s.snapshot_on is null
       and not exists (
             select 1 from jobs j
              where j.kind = ${HARVEST_JOB} and j.status in ('queued', 'running')
                and (j.payload->>'harvestSourceId')::int = s.id)
       and coalesce((select max(i.created_at) from imports i where i.harvest_source_id = s.id), '-infinity') < now() - s.interval
     order by s.id`)) as unknown as { rows: Array<{ id: number }> };
  const queued: number[] = [];
  for (const { id } of due.rows) {
    // A source deleted since the list was read is skipped: the rest of the schedule's turn (the
    // other sources, the rechecks, the audit) still goes.
    const run = await queueHarvestRun(db, Number(id), requestedBy).catch((error: unknown) => {
      if (error instanceof HarvestSourceGoneError) return null;
      throw error;
    });
    if (run?.created) queued.push(Number(id));
  }
  return queued;
}

export interface HarvestRunHandlerOptions {
  /** `captureAllowPrivate` from the configuration: the catalogue is fetched under the same policy as its files. */
  allowPrivate: boolean;
  /**
   * `config.worker.perHostDelayMs`: when a catalogue's host asks for a pause (Retry-After, Crawl-delay),
   * the least its captures are held back (as a capture's own answer would). The pages themselves are
   * spaced by what the site asks, not by this.
   */
  hostDelayMs?: number;
  /** Called with each finished run's report (the command prints it). */
  onReport?: (report: HarvestRunReport, job: Job) => void;
  /** The archive's own hosts (`allowedHosts`), whose pages a run never reads (`capture/own-address.ts`). */
  ownHosts?: readonly string[];
}

/**
 * The handler of `harvest` jobs. A run that fails because of its catalogue is a finished job (the
 * Import says why); only a run cut short by this worker stopping goes back to the queue.
 */
export function harvestRunHandler(options: HarvestRunHandlerOptions): JobHandler {
  return async (job, { db, signal }) => {
    const { harvestSourceId } = job.payload as HarvestJobPayload;
    // A run queued before its source became a snapshot (migration 0027) is not run either.
    const [source] = await db
      .select({ name: harvestSources.name, snapshotOn: harvestSources.snapshotOn })
      .from(harvestSources)
      .where(eq(harvestSources.id, harvestSourceId));
    const refusal = source ? snapshotRefusal(source) : null;
    if (refusal !== null) throw new PermanentJobError(refusal);
    const report = await runHarvest(db, harvestSourceId, {
      // The run's own database: a catalogue host asking for a pause holds its captures back too.
      fetchPage: catalogPageFetcher({ allowPrivate: options.allowPrivate, signal, db, hostDelayMs: options.hostDelayMs, ownHosts: options.ownHosts }),
      signal,
      jobId: job.id,
    });
    // Stopped by the worker (shutdown, lost lease): not finished, let the queue hand it on.
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('Cosecha interrumpida.');
    options.onReport?.(report, job);
  };
}
