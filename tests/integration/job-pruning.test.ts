/**
 * Pruning done jobs (src/lib/server/jobs/prune.ts), on both engines: only done jobs older than the
 * retention go, a bounded batch at a time, never failed, queued or running ones nor the kinds kept;
 * and across a prune, after a real harvest of the local portal on 127.0.0.1 with its captures and
 * their checks, what moderators read does not change (the capture counts, the progress sentence,
 * the failed captures, who asked for the run), nor does a pruned check's dedupe key let the same
 * check be queued again.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harvestProgressText } from '../../src/lib/harvest-progress.ts';
import type { Archive } from '../../src/lib/server/archive.ts';
import { archiveJobHandlers, pruneArchiveJobs } from '../../src/lib/server/background.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import type { Db } from '../../src/lib/server/db/index.ts';
import { imports, jobs } from '../../src/lib/server/db/schema.ts';
import { CAPTURE_JOB, HARVEST_JOB, queueHarvestRun, registerHarvestSource } from '../../src/lib/server/harvest/index.ts';
import { getHarvestSource } from '../../src/lib/server/harvest/manage.ts';
import { makeDueNow, queueDueRechecks } from '../../src/lib/server/harvest/watch.ts';
import { SHEET_PREVIEWS_JOB } from '../../src/lib/server/spreadsheets/preview-job.ts';
import { claim, complete, enqueueMany, fail, pruneDoneJobs, retryFailed } from '../../src/lib/server/jobs/index.ts';
import { createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { drainJobs } from '../helpers/jobs.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal, type PortalFile } from '../helpers/portal/index.ts';

const DAY_MS = 24 * 60 * 60_000;

describe.each(testEngines())('pruning done jobs on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = database.db;
  });
  afterAll(() => database?.destroy());

  describe('which jobs go', () => {
    beforeEach(async () => {
      await db.execute(sql`truncate jobs, job_hosts cascade`);
    });

    /** Queues `n` jobs of `kind` and ends them as `end` says, finished `daysAgo` days ago. */
    async function jobsThat(kind: string, n: number, end: 'done' | 'failed' | 'running' | 'queued', daysAgo = 0): Promise<number[]> {
      const queued = await enqueueMany(db, Array.from({ length: n }, (_, i) => ({ kind, payload: { i }, maxAttempts: 1, dedupeKey: `${kind}:${end}:${daysAgo}:${i}` })));
      const ids = queued.map(({ job }) => job.id);
      if (end === 'queued') return ids;
      const held = await claim(db, { worker: 'W', kinds: [kind], limit: n, leaseMs: 60_000 });
      expect(held.map((job) => job.id).sort()).toEqual([...ids].sort());
      if (end === 'done') await Promise.all(held.map((job) => complete(db, job)));
      if (end === 'failed') await Promise.all(held.map((job) => fail(db, job, new Error('HTTP 404'))));
      if (daysAgo > 0) await db.update(jobs).set({ finishedAt: sql`now() - ${daysAgo} * interval '1 day'` }).where(inArray(jobs.id, ids));
      return ids;
    }

    it('deletes only done jobs older than the retention, of the kinds not kept, a bounded batch at a time', async () => {
      const old = await jobsThat('capture', 7, 'done', 8);
      const recent = await jobsThat('capture', 2, 'done', 6);
      const failed = await jobsThat('capture', 2, 'failed', 30);
      const kept = await jobsThat(HARVEST_JOB, 2, 'done', 30);
      const running = await jobsThat('fixity', 1, 'running');
      const waiting = await jobsThat('fixity', 1, 'queued');
      // A run's import names its job: a pruned one would leave it without (the foreign key sets null).
      const [run] = await db.insert(imports).values({ type: 'harvest', jobId: kept[0]! }).returning({ id: imports.id });

      const prune = () => pruneDoneJobs(db, { olderThanMs: 7 * DAY_MS, keepKinds: [HARVEST_JOB], batchRows: 3, maxBatches: 2 });
      // Two batches of three at most: the seventh waits for the next call.
      expect(await prune()).toBe(6);
      const left = async () => (await db.select({ id: jobs.id }).from(jobs).orderBy(jobs.id)).map((row) => row.id);
      const others = [...recent, ...failed, ...kept, ...running, ...waiting];
      expect((await left()).filter((id) => old.includes(id))).toHaveLength(1);
      expect(await prune()).toBe(1);
      expect(await prune()).toBe(0);
      expect(await left()).toEqual([...others].sort((a, b) => a - b));
      expect((await db.select({ jobId: imports.jobId }).from(imports).where(eq(imports.id, run!.id)))[0]).toEqual({ jobId: kept[0] });
      // The dedupe key of a pruned job is free again; the others still hold theirs.
      const again = await enqueueMany(db, [
        { kind: 'capture', dedupeKey: 'capture:done:8:0' },
        { kind: 'capture', dedupeKey: 'capture:done:6:0' },
      ]);
      expect(again.map((entry) => entry.created)).toEqual([true, false]);
      await expect(pruneDoneJobs(db, { olderThanMs: -1 })).rejects.toThrow(RangeError);
      await expect(pruneDoneJobs(db, { olderThanMs: 0, batchRows: 0 })).rejects.toThrow(RangeError);
    });
  });

  describe('what moderators read, across a prune', () => {
    let portal: LocalPortal;
    let archive: Archive;
    let cleanup: () => Promise<void>;
    let harvestSourceId: number;
    const gone = new Map<string, PortalFile>();

    beforeAll(async () => {
      await db.execute(sql`truncate jobs, job_hosts cascade`);
      portal = await startLocalPortal();
      const blocks = await createTestStore();
      const stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
      const config = readConfig({ ...process.env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true', ARCHIVE_CAPTURE_HOST_DELAY_MS: '0' });
      archive = {
        ...database,
        config,
        store: blocks.store,
        staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(db) }),
        unready: async () => null,
        warnings: async () => [],
        markWorker: async () => {},
        pinning: [],
      };
      cleanup = async () => {
        await portal.close();
        await blocks.destroy();
        await fsp.rm(stagingDir, { recursive: true, force: true });
      };
      ({
        harvestSource: { id: harvestSourceId },
      } = await registerHarvestSource(db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal local' }));
    }, 60_000);
    afterAll(() => cleanup?.());

    const drain = async () => {
      const errors = await drainJobs(db, archiveJobHandlers(archive), { kinds: [HARVEST_JOB, CAPTURE_JOB], timeoutMs: 60_000 });
      expect(errors).toEqual([]);
    };
    const doneCaptureJobs = async () => (await db.select({ n: count() }).from(jobs).where(and(eq(jobs.kind, CAPTURE_JOB), eq(jobs.status, 'done'))))[0]!.n;
    /** What the moderation page shows of the source: its detail (counts, failures, runs) and the progress sentence. */
    const moderatorsView = async () => {
      const source = await getHarvestSource(db, harvestSourceId);
      return { source, progress: harvestProgressText(source) };
    };

    it('keeps the capture counts, the progress and the failures, and queues no check twice', async () => {
      // One file is gone when the archive comes to capture it: a failed capture, kept.
      const [id, file] = [...portal.files][0]!;
      gone.set(id, file);
      portal.files.delete(id);
      await queueHarvestRun(db, harvestSourceId, 'moderador de prueba');
      await drain();
      const files = portal.packages.flatMap((pkg) => pkg.resources).length;
      // Every captured URL is checked once: the checks' jobs are done too.
      expect((await makeDueNow(db)).length).toBe(files - 1);
      expect(await queueDueRechecks(db)).toBe(files - 1);
      await drain();
      expect(await doneCaptureJobs()).toBe(2 * (files - 1));

      const before = await moderatorsView();
      expect(before.source.captures.counts).toEqual({ queued: 0, running: 0, done: files - 1, failed: 1 });
      expect(before.source.captures.failed).toHaveLength(1);
      expect(before.source.lastRun).toMatchObject({ status: 'done', requestedBy: 'moderador de prueba' });
      expect(before.progress).toMatch(/^Última cosecha terminada: /);

      // A retention of nothing, as the schedule prunes: every done job goes but the run's (whose
      // import names it) and the sheet previews' (whose keys keep them from being queued again).
      const doneByKind = async () =>
        Object.fromEntries((await db.select({ kind: jobs.kind, n: count() }).from(jobs).where(eq(jobs.status, 'done')).groupBy(jobs.kind)).map((row) => [row.kind, row.n]));
      const { [HARVEST_JOB]: runs, [SHEET_PREVIEWS_JOB]: previews, ...pruneable } = await doneByKind();
      expect(runs).toBe(1);
      const pruned = await pruneArchiveJobs(db, 0);
      expect(pruned).toBe(Object.values(pruneable).reduce((sum, n) => sum + n, 0));
      expect(pruned).toBeGreaterThanOrEqual(2 * (files - 1));
      expect(await doneByKind()).toEqual({ [HARVEST_JOB]: 1, ...(previews ? { [SHEET_PREVIEWS_JOB]: previews } : {}) });
      expect(await moderatorsView()).toEqual(before);

      // The checks' keys are gone with their jobs, but each check moved its URL's next one: none is due again.
      expect(await queueDueRechecks(db)).toBe(0);
      // While captures run, the progress counts them the same way: a failed one retried and captured.
      portal.files.set(id, gone.get(id)!);
      const [failedJob] = before.source.captures.failed;
      expect(await retryFailed(db, failedJob!.jobId)).toBe(true);
      const capturing = await moderatorsView();
      expect(capturing.source.captures.counts).toEqual({ queued: 1, running: 0, done: files - 1, failed: 0 });
      expect(capturing.progress).toBe(`Catálogo leído. Capturando archivos: queda 1 por capturar; la fuente tiene ${files - 1} de ${files} capturados…`);
      await drain();
      expect((await moderatorsView()).source.captures.counts).toEqual({ queued: 0, running: 0, done: files, failed: 0 });
    });
  });
});
