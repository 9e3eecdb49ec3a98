/**
 * A harvest run as a job of the queue (src/lib/server/harvest/run-job.ts), on both engines, against
 * the local portal on 127.0.0.1: asking twice makes one run; the schedule queues a source when its
 * interval has passed and not while paused or already queued; a worker runs the job with the
 * server's handlers and the captures follow; a run whose process died is closed as failed by its
 * job's retry, which then completes it without duplicating a record.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveJobHandlers } from '../../src/lib/server/background.ts';
import type { Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import type { Db } from '../../src/lib/server/db/index.ts';
import { alexandrias, harvestedRecords, harvestSources, imports, jobs } from '../../src/lib/server/db/schema.ts';
import { HARVEST_JOB, queueDueHarvests, queueHarvestRun, registerHarvestSource } from '../../src/lib/server/harvest/index.ts';
import { claim, enqueue, markBegun, reclaimExpired } from '../../src/lib/server/jobs/index.ts';
import { createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { drainJobs } from '../helpers/jobs.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';

describe.each(testEngines())('harvest runs on the job queue, on %s', (engine) => {
  let database: TestDatabase;
  let portal: LocalPortal;
  let archive: Archive;
  let cleanup: () => Promise<void>;
  let harvestSourceId: number;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    portal = await startLocalPortal();
    const blocks = await createTestStore();
    const stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    const config = readConfig({ ...process.env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
    archive = {
      ...database,
      config,
      store: blocks.store,
      staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(database.db) }),
      unready: async () => null,
      warnings: async () => [],
      markWorker: async () => {},
      pinning: [],
    };
    cleanup = async () => {
      await portal.close();
      await database.destroy();
      await blocks.destroy();
      await fsp.rm(stagingDir, { recursive: true, force: true });
    };
    ({
      harvestSource: { id: harvestSourceId },
    } = await registerHarvestSource(database.db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal local' }));
  });
  afterAll(() => cleanup?.());

  const activeRuns = async () =>
    (await database.db.select({ n: count() }).from(jobs).where(and(eq(jobs.kind, HARVEST_JOB), inArray(jobs.status, ['queued', 'running']))))[0]!.n;

  /** Runs the archive's worker until no job is queued or running (bounded). */
  async function work(timeoutMs = 30_000): Promise<void> {
    expect(await drainJobs(database.db, archiveJobHandlers(archive), { timeoutMs })).toEqual([]);
  }

  it('queues one run however many times it is asked, and the schedule adds none while it waits', async () => {
    const first = await queueHarvestRun(database.db, harvestSourceId, '0xmoderador');
    const again = await Promise.all([queueHarvestRun(database.db, harvestSourceId, 'programada'), queueHarvestRun(database.db, harvestSourceId, 'npm run harvest')]);
    expect(first.created).toBe(true);
    expect(again.map((entry) => [entry.created, entry.job.id])).toEqual([
      [false, first.job.id],
      [false, first.job.id],
    ]);
    expect(await queueDueHarvests(database.db)).toEqual([]);
    expect(await activeRuns()).toBe(1);
    await expect(queueHarvestRun(database.db, 999_999, 'x')).rejects.toThrow(/No existe la fuente de cosecha/);
  });

  it('skips a source deleted after the schedule listed it as due, and queues the others', async () => {
    // The list read just before a moderator deleted a source: the database answers it with one more id.
    const { harvestSource: other } = await registerHarvestSource(database.db, { url: `${portal.origin}/otro/data.json`, kind: 'datajson', name: 'Otro catálogo' });
    const due = [other];
    let listed = false;
    const stale = new Proxy(database.db, {
      get(target, property, receiver) {
        if (property !== 'execute' || listed) return Reflect.get(target, property, receiver) as unknown;
        return async (query: Parameters<Db['execute']>[0]) => {
          listed = true;
          const result = (await target.execute(query)) as unknown as { rows: Array<{ id: number }> };
          result.rows.unshift({ id: 999_999 });
          return result;
        };
      },
    });
    expect(await queueDueHarvests(stale)).toEqual([due[0]!.id]);
    await database.db.delete(jobs).where(sql`(${jobs.payload}->>'harvestSourceId')::int = ${due[0]!.id}`);
    await database.db.delete(harvestSources).where(eq(harvestSources.id, due[0]!.id));
  });

  it('runs the queued harvest and its captures with the server\'s handlers, the Import naming its job', async () => {
    await work();
    const [job] = await database.db.select().from(jobs).where(eq(jobs.kind, HARVEST_JOB));
    expect(job).toMatchObject({ status: 'done', attempts: 1 });
    const [run] = await database.db.select().from(imports).where(eq(imports.jobId, job!.id));
    const total = portal.packages.flatMap((pkg) => pkg.resources).length;
    expect(run).toMatchObject({ type: 'harvest', status: 'done', harvestSourceId, documents: total });
    const [captured] = await database.db
      .select({ n: count() })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(sql`${alexandrias.cid} is not null`);
    expect(captured!.n).toBe(total);
  });

  it('schedules a source when its interval has passed since its last run, never a paused one', async () => {
    // The last run started just now: not due under a daily interval.
    expect(await queueDueHarvests(database.db)).toEqual([]);
    // As if it had run two days ago (the database's clock decides).
    await database.db.update(imports).set({ createdAt: sql`now() - interval '2 days'` }).where(eq(imports.harvestSourceId, harvestSourceId));
    await database.db.update(harvestSources).set({ paused: true }).where(eq(harvestSources.id, harvestSourceId));
    expect(await queueDueHarvests(database.db)).toEqual([]);
    await database.db.update(harvestSources).set({ paused: false }).where(eq(harvestSources.id, harvestSourceId));
    expect(await queueDueHarvests(database.db)).toEqual([harvestSourceId]);
    expect(await queueDueHarvests(database.db)).toEqual([]);
    await work();
    const runs = await database.db.select().from(imports).where(eq(imports.harvestSourceId, harvestSourceId));
    expect(runs.map((run) => run.status)).toEqual(['done', 'done']);
    expect(runs[1]!.harvestCounts).toMatchObject({ new: 0, updated: 0, failed: 0 });
  });

  it('never schedules nor runs a snapshot, even resumed by hand or queued before it became one', async () => {
    // Its address is a closed port on 127.0.0.1: were it ever fetched, the run would fail differently.
    const {
      harvestSource: { id: snapshotId },
    } = await registerHarvestSource(database.db, { url: 'http://127.0.0.1:9/exportacion/', kind: 'ckan', name: 'Exportación guardada' });
    await database.db.update(harvestSources).set({ snapshotOn: '2026-09-24', paused: false }).where(eq(harvestSources.id, snapshotId));
    expect(await queueDueHarvests(database.db)).not.toContain(snapshotId);
    const { job } = await enqueue(database.db, { kind: HARVEST_JOB, payload: { harvestSourceId: snapshotId, requestedBy: 'antes de la migración 0027' } });
    await work();
    const [ended] = await database.db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(ended).toMatchObject({ status: 'failed', attempts: 1 });
    expect(ended!.lastError).toBe(
      '«Exportación guardada» es una copia del catálogo tomada el 24/09/2026 y guardada con el archivo, no un catálogo en línea: no se vuelve a cosechar. Para seguir el portal, añada la dirección de su API como una fuente de cosecha propia.',
    );
    expect(await database.db.select().from(imports).where(eq(imports.harvestSourceId, snapshotId))).toEqual([]);
    await database.db.delete(jobs).where(eq(jobs.id, job.id));
    await database.db.delete(harvestSources).where(eq(harvestSources.id, snapshotId));
  });

  it('closes a run whose process died as failed when its job is retried, then runs it again without duplicates', async () => {
    const { job } = await queueHarvestRun(database.db, harvestSourceId, 'programada');
    // A worker claims it and dies mid-run: its Import stays in progress, its lease runs out.
    const [claimed] = await claim(database.db, { worker: 'muerto:1', kinds: [HARVEST_JOB], limit: 1, leaseMs: 1 });
    expect(claimed?.id).toBe(job.id);
    // Its handler began (its worker said so): the death costs that attempt.
    await markBegun(database.db, [claimed!]);
    const [dead] = await database.db
      .insert(imports)
      .values({ type: 'harvest', status: 'in_progress', harvestSourceId, jobId: job.id, documents: 3 })
      .returning({ id: imports.id });
    await sleep(20);
    await work();

    const [retried] = await database.db.select().from(jobs).where(eq(jobs.id, job.id));
    expect(retried).toMatchObject({ status: 'done', attempts: 2 });
    const [closed] = await database.db.select().from(imports).where(eq(imports.id, dead!.id));
    expect(closed!.status).toBe('failed');
    expect(closed!.errors.at(-1)?.message).toMatch(/interrumpida/);
    const [rerun] = await database.db.select().from(imports).where(and(eq(imports.jobId, job.id), eq(imports.status, 'done')));
    expect(rerun!.harvestCounts).toMatchObject({ new: 0, failed: 0 });
    // One record per (source, dataset, distribution), still.
    const identities = await database.db.select({ n: count() }).from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, harvestSourceId));
    expect(identities[0]!.n).toBe(portal.packages.flatMap((pkg) => pkg.resources).length);
  });

  it('closes the run of a job that died on its last attempt as failed, with the reason, since no retry will', async () => {
    const { job } = await queueHarvestRun(database.db, harvestSourceId, 'programada');
    await database.db.update(jobs).set({ maxAttempts: 1 }).where(eq(jobs.id, job.id));
    const [claimed] = await claim(database.db, { worker: 'muerto:2', kinds: [HARVEST_JOB], limit: 1, leaseMs: 1 });
    await markBegun(database.db, [claimed!]);
    const [dead] = await database.db
      .insert(imports)
      .values({ type: 'harvest', status: 'in_progress', harvestSourceId, jobId: job.id, documents: 3 })
      .returning({ id: imports.id });
    // An Import that no job runs stays as it is.
    const [other] = await database.db.insert(imports).values({ type: 'harvest', status: 'in_progress', harvestSourceId, documents: 0 }).returning({ id: imports.id });
    await sleep(20);
    expect((await reclaimExpired(database.db)).map((taken) => [taken.id, taken.status])).toEqual([[job.id, 'failed']]);
    const [closed] = await database.db.select().from(imports).where(eq(imports.id, dead!.id));
    expect(closed!.status).toBe('failed');
    expect(closed!.errors.at(-1)?.message).toBe('Cosecha interrumpida, sin más intentos. El proceso que lo ejecutaba (muerto:2) dejó de responder: su concesión venció.');
    const [untouched] = await database.db.select().from(imports).where(eq(imports.id, other!.id));
    expect(untouched!.status).toBe('in_progress');
    await database.db.update(imports).set({ status: 'failed' }).where(eq(imports.id, other!.id));
  });
});
