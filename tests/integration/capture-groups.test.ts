/**
 * Captures written in groups (issue #18, "Fast"; `harvest/capture-groups.ts`), run by the queue's
 * worker against a site of its own on 127.0.0.1, on both engines:
 *
 * - politeness holds with groups larger than the per-host limit: the site itself counts the
 *   requests it is answering at once, and never sees more than the limit;
 * - a file cut off mid-stream fails its own job only: the files of its group go back to the queue
 *   untried (their attempt not counted) and are captured in another group, and no block of the
 *   cut file, or of the handed-back ones' first fetch, is left in the store;
 * - a group is all or nothing: when its transaction fails after its blocks were moved into the
 *   store, no record holds a CID, no capture row says it was stored, and the store holds no block.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/lib/server/db/index.ts';
import { alexandrias, captures, harvestedRecords, jobs } from '../../src/lib/server/db/schema.ts';
import { CAPTURE_JOB, captureHandler, registerHarvestSource, type CaptureContext } from '../../src/lib/server/harvest/index.ts';
import { politenessKey } from '../../src/lib/server/jobs/hosts.ts';
import { enqueue, runWorker } from '../../src/lib/server/jobs/index.ts';
import { createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';

const PER_HOST = 4;

/** A CSV of its own for each path, so that every file has its own CID (about 6 KB). */
function csvOf(filePath: string): string {
  const lines = ['ruta,fila,valor'];
  for (let row = 0; row < 200; row += 1) lines.push(`${filePath},${row},${createHash('sha256').update(`${filePath}:${row}`).digest('hex').slice(0, 12)}`);
  return `${lines.join('\n')}\n`;
}

interface Site {
  origin: string;
  /** Milliseconds each answer waits before its body. */
  delayMs: number;
  /** Paths whose body is cut off half-way, after `cutAfterMs`. */
  cut: Set<string>;
  cutAfterMs: number;
  /** Requests per path, and the most answered at once. */
  served: Map<string, number>;
  mostAtOnce: number;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  let atOnce = 0;
  const site: Omit<Site, 'origin' | 'close'> = { delayMs: 0, cut: new Set(), cutAfterMs: 0, served: new Map(), mostAtOnce: 0 };
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === '/robots.txt') return void response.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    site.served.set(url, (site.served.get(url) ?? 0) + 1);
    atOnce += 1;
    site.mostAtOnce = Math.max(site.mostAtOnce, atOnce);
    let counted = true;
    const done = () => {
      if (counted) atOnce -= 1;
      counted = false;
    };
    response.on('close', done);
    const body = Buffer.from(csvOf(url));
    void (async () => {
      await sleep(site.delayMs);
      response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': String(body.length) });
      if (!site.cut.has(url)) return void response.end(body);
      // Half the file, then the connection dies: the capture fails while streaming.
      response.write(body.subarray(0, body.length >> 1));
      await sleep(site.cutAfterMs);
      response.destroy();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(site, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Every file under `dir` (a store's blocks, a staging area's leftovers). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe.each(testEngines())('captures written in groups on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;
  let site: Site;
  let harvestSourceId: number;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  let stagingDir: string;
  let context: CaptureContext;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = database.db;
    site = await startSite();
    ({ harvestSource: { id: harvestSourceId } } = await registerHarvestSource(db, { url: `${site.origin}/data.json`, kind: 'datajson' }));
  });
  afterAll(async () => {
    await site?.close();
    await database?.destroy();
  });
  beforeEach(async () => {
    await db.execute(sql`truncate jobs, job_hosts cascade`);
    await blocks?.destroy();
    if (stagingDir) await fsp.rm(stagingDir, { recursive: true, force: true });
    blocks = await createTestStore();
    stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    context = {
      store: blocks.store,
      staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(db) }),
      allowPrivate: true,
      maxBytes: 1_000_000,
      fetchOptions: { totalTimeoutMs: 10_000, idleTimeoutMs: 5_000, headersTimeoutMs: 5_000 },
      hostDelayMs: 0,
    };
    Object.assign(site, { delayMs: 0, cut: new Set(), cutAfterMs: 0, served: new Map(), mostAtOnce: 0 });
  });

  /** Harvested CSV records waiting for their files at `paths`, and their capture jobs. */
  async function recordsToCapture(paths: string[], maxAttempts?: number): Promise<Array<{ alexandriaId: number; jobId: number; path: string }>> {
    const records = await db
      .insert(alexandrias)
      .values(paths.map((filePath) => ({ title: `Archivo ${filePath}`, type: 'csv' as const })))
      .returning({ id: alexandrias.id });
    const made: Array<{ alexandriaId: number; jobId: number; path: string }> = [];
    for (const [index, filePath] of paths.entries()) {
      const url = `${site.origin}${filePath}`;
      const alexandriaId = records[index]!.id;
      await db.insert(harvestedRecords).values({ alexandriaId, harvestSourceId, datasetIdentifier: `conjunto-${alexandriaId}`, distributionKey: url, distributionUrl: url, declaredFormat: 'CSV' });
      const { job } = await enqueue(db, { kind: CAPTURE_JOB, host: politenessKey(url), payload: { alexandriaId, url }, maxAttempts });
      made.push({ alexandriaId, jobId: job.id, path: filePath });
    }
    return made;
  }

  /** Runs the server's worker over the queue until no capture is queued or running (at most 60 s). */
  async function runQueue(): Promise<void> {
    const errors: unknown[] = [];
    const controller = new AbortController();
    const worker = runWorker({
      db,
      handlers: { [CAPTURE_JOB]: captureHandler(context) },
      signal: controller.signal,
      concurrency: 8,
      perHostConcurrency: PER_HOST,
      perHostDelayMs: 0,
      pollMs: 50,
      backoff: { baseMs: 60_000, maxMs: 60_000 },
      onError: (error) => errors.push(error),
    });
    const deadline = Date.now() + 60_000;
    try {
      for (;;) {
        await sleep(50);
        const [left] = await db.select({ n: sql<number>`count(*)::int` }).from(jobs).where(sql`status = 'running' or (status = 'queued' and run_after <= now())`);
        if (Number(left!.n) === 0) break;
        if (Date.now() > deadline) throw new Error('Las capturas no terminaron en 60 s.');
      }
    } finally {
      controller.abort(new Error('fin de la prueba'));
      await worker;
    }
    // The worker's own loop (claims, outcomes) never failed.
    expect(errors).toEqual([]);
  }

  it('never asks a host more than the per-host limit at once, while files are written in groups larger than it', async () => {
    const paths = Array.from({ length: 60 }, (_, index) => `/grupo/${index}.csv`);
    const made = await recordsToCapture(paths);
    site.delayMs = 15;
    await runQueue();

    expect(site.mostAtOnce).toBeLessThanOrEqual(PER_HOST);
    expect(site.mostAtOnce).toBeGreaterThan(1);
    const records = await db.select({ id: alexandrias.id, cid: alexandrias.cid, sha256: alexandrias.fileSha256, status: alexandrias.status }).from(alexandrias).where(inArray(alexandrias.id, made.map((one) => one.alexandriaId)));
    for (const one of made) {
      const record = records.find((row) => row.id === one.alexandriaId)!;
      expect(record.sha256).toBe(createHash('sha256').update(csvOf(one.path)).digest('hex'));
      expect(await blocks.store.has(record.cid!)).toBe(true);
      expect(record.status).toBe('on_line');
    }
    // One transaction per group, and now() is its start: groups are told apart by their capture time.
    const [groups] = await db.select({ n: sql<number>`count(distinct ${captures.capturedAt})::int` }).from(captures).where(isNotNull(captures.cid));
    // Files fetched while a group is written wait for the next (about four, at this limit); groups
    // fill up to `GROUP_FILES` or a tenth of a second: well over six files each on average.
    expect(Number(groups!.n)).toBeLessThanOrEqual(paths.length / 6);
    expect((await db.select({ status: jobs.status }).from(jobs)).every((job) => job.status === 'done')).toBe(true);
  });

  it('fails only the job of a file cut off mid-stream; its group goes back to the queue untried and leaves no block behind', async () => {
    const made = await recordsToCapture(['/entero/a.csv', '/entero/b.csv', '/entero/c.csv'], 5);
    const [cut] = await recordsToCapture(['/cortado.csv'], 1);
    site.cut.add('/cortado.csv');
    // The cut file streams while the others come in whole: all four are in one group when it fails.
    site.cutAfterMs = 400;
    await runQueue();

    const [failed] = await db.select().from(jobs).where(eq(jobs.id, cut!.jobId));
    expect(failed!.status).toBe('failed');
    const [failure] = await db.select().from(captures).where(eq(captures.alexandriaId, cut!.alexandriaId));
    expect(failure!.cid).toBeNull();
    expect(failure!.errorReason).toBeTruthy();
    for (const one of made) {
      const [job] = await db.select().from(jobs).where(eq(jobs.id, one.jobId));
      expect(job!.status).toBe('done');
      // Handed back untried: the attempt in the refused group does not count.
      expect(job!.attempts).toBe(1);
      // Fetched twice (the refused group, then its own), recorded once.
      expect(site.served.get(one.path)).toBe(2);
      const rows = await db.select().from(captures).where(eq(captures.alexandriaId, one.alexandriaId));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.cid).toBeTruthy();
    }
    // The store holds exactly the three whole files (one block each), nothing of the cut one.
    const kept = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(inArray(alexandrias.id, made.map((one) => one.alexandriaId)));
    const stored = await filesUnder(blocks.dir);
    expect(stored).toHaveLength(3);
    for (const { cid } of kept) expect(await blocks.store.has(cid!)).toBe(true);
    expect(await filesUnder(stagingDir)).toEqual([]);
  });

  it('writes nothing for a job whose lease was lost while its group was fetching: the worker that took it back writes it', async () => {
    const made = await recordsToCapture(['/perdido/a.csv', '/perdido/b.csv', '/perdido/c.csv']);
    const lost = made[1]!;
    // Slow answers: the three are fetched together, and the lease of one is lost meanwhile (its
    // process is taken for dead; here, the job is handed back to the queue, for later).
    site.delayMs = 600;
    const running = runQueue();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, lost.jobId));
      if (job!.status === 'running') break;
      if (Date.now() > deadline) throw new Error('The job never started.');
      await sleep(20);
    }
    await db.update(jobs).set({ status: 'queued', lockedBy: null, lockedUntil: null, runAfter: sql`now() + interval '1 hour'` }).where(eq(jobs.id, lost.jobId));
    await running;

    const [record] = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(eq(alexandrias.id, lost.alexandriaId));
    expect(record!.cid).toBeNull();
    expect(await db.select().from(captures).where(eq(captures.alexandriaId, lost.alexandriaId))).toEqual([]);
    const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, lost.jobId));
    expect(job!.status).toBe('queued');
    for (const one of [made[0]!, made[2]!]) {
      const rows = await db.select().from(captures).where(eq(captures.alexandriaId, one.alexandriaId));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.cid).toBeTruthy();
    }
  });

  it('writes a group all or nothing: a transaction that fails after the blocks moved leaves no record, capture or block', async () => {
    const made = await recordsToCapture(['/todo/a.csv', '/todo/b.csv', '/todo/c.csv'], 1);
    // The group's last statement, after its blocks moved into the store, fails.
    await db.execute(sql`create or replace function pins_refused() returns trigger language plpgsql as $$
      begin raise exception 'anclaje rechazado por la prueba'; end $$`);
    await db.execute(sql`create trigger pins_refused before insert on pins for each row execute function pins_refused()`);
    try {
      await runQueue();
    } finally {
      await db.execute(sql`drop trigger pins_refused on pins`);
      await db.execute(sql`drop function pins_refused()`);
    }

    const ids = made.map((one) => one.alexandriaId);
    const records = await db.select({ cid: alexandrias.cid, status: alexandrias.status }).from(alexandrias).where(inArray(alexandrias.id, ids));
    expect(records.every((record) => record.cid === null && record.status === 'under_review')).toBe(true);
    const stored = await db.select().from(captures).where(inArray(captures.alexandriaId, ids));
    expect(stored).toHaveLength(3);
    expect(stored.every((row) => row.cid === null && Boolean(row.errorReason))).toBe(true);
    expect((await db.select({ status: jobs.status }).from(jobs).where(inArray(jobs.id, made.map((one) => one.jobId)))).map((job) => job.status)).toEqual(['failed', 'failed', 'failed']);
    expect(await filesUnder(blocks.dir)).toEqual([]);
    expect(await filesUnder(stagingDir)).toEqual([]);
  });
});
