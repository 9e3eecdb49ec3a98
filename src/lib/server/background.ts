/**
 * The work a running archive does besides answering requests: a worker of the job queue (harvest
 * runs, the captures they queue and their later checks, the sheet previews of spreadsheets, the
 * comparison of versions, the fixity audit's slices) and the schedule of harvests and checks,
 * which also deletes old done jobs. Every server process on a database runs both, and they share
 * the work through the database: the queue never runs a job twice, and the schedule queues a
 * source's run only when none is queued or running (`harvest/run-job.ts`).
 * `npm run harvest` runs the same worker while it waits for its run.
 */
import type { Archive } from './archive.ts';
import type { Db } from './db/index.ts';
import { CAPTURE_JOB, captureHandler, HARVEST_JOB, harvestRunHandler, queueDueHarvests, type HarvestRunReport } from './harvest/index.ts';
import { pruneDoneJobs, runWorker, type Job, type JobHandler } from './jobs/index.ts';
import { queueMissingSheetPreviews, SHEET_PREVIEWS_JOB, sheetPreviewsHandler } from './spreadsheets/preview-job.ts';
import { queueDueRechecks } from './harvest/watch.ts';
import { VERSION_DIFF_JOB, versionDiffHandler } from './versions/index.ts';
import { FIXITY_JOB, fixityHandler, queueDueFixity } from './fixity/index.ts';
import { queueMissingRemotePins, REMOTE_PIN_JOB, remotePinHandler } from './pinning/index.ts';

/** How often the schedule looks for harvest sources that are due. */
const SCHEDULE_EVERY_MS = 60_000;

/**
 * How often files without a live remote pin are looked for again: a pin job gives up after about
 * half a day of a service refusing it, and its file must not wait for the next restart. The query
 * reads every served CID, so not every minute.
 */
const MISSING_PINS_EVERY_MS = 6 * 60 * 60_000;

/**
 * How often done jobs older than the retention (`ARCHIVE_JOB_RETENTION_DAYS`) are deleted: a call
 * deletes at most 20 batches of 1000, more than the schedule queues in that time (500 checks a minute).
 */
const PRUNE_JOBS_EVERY_MS = 10 * 60_000;

/**
 * Done jobs kept however old, as something still reads them: a harvest run's job names who asked
 * for the run (its import's `requestedBy`, one job per run); and a spreadsheet's previews job, done
 * without previews for a file that cannot be read, is what keeps `queueMissingSheetPreviews` from
 * queueing it again at every start (its dedupe key).
 */
const KEEP_DONE_KINDS = [HARVEST_JOB, SHEET_PREVIEWS_JOB];

/** Deletes the archive's done jobs that finished longer ago than `olderThanMs`, but those of `KEEP_DONE_KINDS`. */
export function pruneArchiveJobs(db: Db, olderThanMs: number): Promise<number> {
  return pruneDoneJobs(db, { olderThanMs, keepKinds: KEEP_DONE_KINDS });
}

export interface BackgroundWork {
  /** Stops claiming, hands running jobs back (or lets them finish within the grace), then resolves. */
  stop(): Promise<void>;
}

export interface BackgroundOptions {
  /** Run the harvest schedule too (true); `npm run harvest` runs the worker only. */
  schedule?: boolean;
  /** Told of every harvest run this worker finishes. */
  onReport?: (report: HarvestRunReport, job: Job) => void;
  onError?: (error: unknown) => void;
}

/** The handlers of every job kind the archive queues, built on its store and configuration. */
export function archiveJobHandlers(archive: Archive, options: Pick<BackgroundOptions, 'onReport'> = {}): Record<string, JobHandler> {
  const { config } = archive;
  return {
    [HARVEST_JOB]: harvestRunHandler({
      allowPrivate: config.captureAllowPrivate,
      hostDelayMs: config.worker.perHostDelayMs,
      ownHosts: config.allowedHosts,
      onReport: options.onReport,
    }),
    [CAPTURE_JOB]: captureHandler({
      store: archive.store,
      staging: archive.staging,
      pinning: archive.pinning,
      allowPrivate: config.captureAllowPrivate,
      maxBytes: config.captureMaxBytes,
      hostDelayMs: config.worker.perHostDelayMs,
      watch: config.watch,
    }),
    [SHEET_PREVIEWS_JOB]: sheetPreviewsHandler(archive),
    [VERSION_DIFF_JOB]: versionDiffHandler(archive.store),
    [FIXITY_JOB]: fixityHandler({ store: archive.store, settings: config.fixity }),
    [REMOTE_PIN_JOB]: remotePinHandler(archive.pinning),
  };
}

/**
 * `work` for a schedule that ticks more often than it should run: a call runs it when `everyMs` have
 * passed since the last run that succeeded (the first call always runs it), and otherwise does
 * nothing. A run that fails is tried again at the next call, not `everyMs` later.
 */
export function atMostEvery(everyMs: number, work: () => Promise<unknown>, now: () => number = () => performance.now()): () => Promise<void> {
  let lastSuccess = Number.NEGATIVE_INFINITY;
  return async () => {
    if (now() - lastSuccess < everyMs) return;
    const started = now();
    await work();
    lastSuccess = started;
  };
}

/** Starts the worker (and the schedule) for `archive`; see the module's header. */
export function startBackgroundWork(archive: Archive, options: BackgroundOptions = {}): BackgroundWork {
  const { config, db } = archive;
  const onError = options.onError ?? ((error: unknown) => console.error('Trabajo en segundo plano:', error));
  const controller = new AbortController();
  // Before its first claim: `npm run harvest` counts on it to leave a run to this process.
  void archive.markWorker().catch(onError);
  const worker = runWorker({
    db,
    handlers: archiveJobHandlers(archive, options),
    signal: controller.signal,
    concurrency: config.worker.concurrency,
    perHostConcurrency: config.worker.perHostConcurrency,
    perHostDelayMs: config.worker.perHostDelayMs,
    leaseMs: config.worker.leaseMs,
    onError,
  });

  let timer: NodeJS.Timeout | undefined;
  let scheduling: Promise<unknown> = Promise.resolve();
  if (options.schedule ?? true) {
    // Spreadsheets that entered before previews were jobs, or whose job was lost, get theirs.
    scheduling = queueMissingSheetPreviews(db).catch(onError);
    // Every file gets a remote pin when a service is configured, seeded and earlier ones included:
    // at start, and again every few hours for pins whose jobs gave up.
    const queueMissingPins = atMostEvery(MISSING_PINS_EVERY_MS, () => queueMissingRemotePins(db, archive.pinning));
    const pruneJobs = atMostEvery(PRUNE_JOBS_EVERY_MS, () => pruneArchiveJobs(db, config.worker.jobRetentionDays * 24 * 60 * 60_000));
    const tick = () => {
      scheduling = scheduling
        // Its failure is its own: the harvests, rechecks and audit of this tick still go.
        .then(() => queueMissingPins().catch(onError))
        .then(() => queueDueHarvests(db))
        .then(() => queueDueRechecks(db))
        // A slice of the fixity audit when one is due (a few MB every ten minutes).
        .then(() => queueDueFixity(db, config.fixity))
        .catch(onError)
        // Last, and on its own: the tick's work first, the housekeeping after.
        .then(() => pruneJobs().catch(onError));
    };
    tick();
    timer = setInterval(tick, SCHEDULE_EVERY_MS);
    // The schedule alone must not keep a process alive (a script that opened the archive and is done).
    timer.unref();
  }

  return {
    async stop() {
      clearInterval(timer);
      controller.abort(new Error('El servidor se detiene.'));
      await Promise.all([worker, scheduling]);
    },
  };
}
