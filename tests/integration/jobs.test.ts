/**
 * The durable job queue (lib/server/jobs) on a real database: claims never hand one job twice,
 * even to two connections at once; retries back off; dead workers' jobs come back; hosts are
 * paced; the worker loop runs handlers and stops cleanly. Times are read from the database.
 */
import { eq, sql } from 'drizzle-orm';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle, type Db } from '../../src/lib/server/db/index.ts';
import { servePglite } from '../../src/lib/server/db/pglite-socket.ts';
import { jobHosts, jobs as jobsTable } from '../../src/lib/server/db/schema.ts';
import {
  claim,
  complete,
  deferHost,
  enqueue,
  enqueueMany,
  fail,
  heartbeat,
  markBegun,
  PermanentJobError,
  reclaimExpired,
  retryFailed,
  runWorker,
  type ClaimOptions,
  type Job,
  type JobHandler,
  type WorkerOptions,
} from '../../src/lib/server/jobs/index.ts';
import { politenessKey } from '../../src/lib/server/jobs/hosts.ts';
import { databaseUrl } from '../setup/database-templates.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';

/** Polls `check` every `everyMs` until it returns a value, for at most `timeoutMs`. */
async function waitFor<T>(check: () => Promise<T | undefined | null | false>, { timeoutMs = 10_000, everyMs = 25 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Not reached within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Fails the test instead of hanging when `promise` does not settle in time. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    sleep(ms, undefined, { ref: false }).then(() => {
      throw new Error(`${what}: not settled within ${ms} ms`);
    }),
  ]);
}

/**
 * A worker's own view of the database that can be cut off, as a SIGKILL would cut it: after
 * `kill()`, nothing it sends reaches the database and it waits forever (no heartbeat, no outcome,
 * no release); a statement already sent still ends, as it would on the server. `bury()` then makes
 * its waits fail, so that the dead worker's loop can be stopped and does not outlive the test.
 */
function killable(db: Db): { db: Db; kill: () => void; bury: () => void } {
  let state: 'alive' | 'dead' | 'buried' = 'alive';
  const waiting: Array<(error: Error) => void> = [];
  const gone = () => new Error('El proceso murió.');
  // Any query builder chain (`update().set().where()`, `transaction(...)`) that never answers.
  const unanswered: unknown = new Proxy(function unanswered() {}, {
    get: (_target, property) =>
      property === 'then'
        ? (_resolve: unknown, reject: (error: Error) => void) => (state === 'buried' ? reject(gone()) : waiting.push(reject))
        : () => unanswered,
    apply: () => unanswered,
  });
  const view = new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (state === 'alive' ? (value as (...a: unknown[]) => unknown).apply(target, args) : unanswered);
    },
  });
  return {
    db: view,
    kill: () => {
      if (state === 'alive') state = 'dead';
    },
    bury: () => {
      state = 'buried';
      for (const reject of waiting.splice(0)) reject(gone());
    },
  };
}

const statusOf = async (db: Db, id: number) => (await db.select().from(jobsTable).where(eq(jobsTable.id, id)))[0]!;
const allJobs = (db: Db) => db.select().from(jobsTable).orderBy(jobsTable.id);
const ms = (later: Date | null, earlier: Date | null) => later!.getTime() - earlier!.getTime();

describe('the politeness key of a URL', () => {
  it('is the lower-cased host name without a trailing dot, with its port only when not the default', () => {
    expect(politenessKey('https://EXAMPLE.org:443/datos.csv')).toBe('example.org');
    expect(politenessKey('http://Example.ORG:80/a')).toBe('example.org');
    expect(politenessKey('https://example.org./a')).toBe('example.org');
    expect(politenessKey(new URL('https://datos.gob.do/dataset'))).toBe('datos.gob.do');
    expect(politenessKey('https://example.org:8443/a')).toBe('example.org:8443');
    expect(politenessKey('http://example.org:443/a')).toBe('example.org:443');
    expect(politenessKey('http://[::1]:8080/a')).toBe('[::1]:8080');
    expect(politenessKey('https://DATOS.gob.do:443/')).toBe(politenessKey('https://datos.gob.do/'));
  });
});

describe.each(testEngines())('job queue on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;
  /** A second connection pool on the same database (PostgreSQL), or the same Db (PGlite: one process). */
  let other: DatabaseHandle | undefined;
  let otherDb: Db;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = database.db;
    otherDb = db;
    if (engine === 'postgres') {
      const { rows } = (await db.execute(sql`select current_database() as name`)) as unknown as { rows: Array<{ name: string }> };
      other = await openDatabase({ url: databaseUrl(process.env.TEST_DATABASE_URL!, rows[0]!.name) });
      otherDb = other.db;
    }
  });
  afterAll(async () => {
    await other?.close();
    await database?.destroy();
  });
  beforeEach(async () => {
    // Imports name the job that runs them (a harvest run): they go too, with whatever refers to them.
    await db.execute(sql`truncate jobs, job_hosts cascade`);
  });

  /**
   * Workers a test started: stopped after it even when it fails, so none outlives its test and
   * claims the next test's jobs. A killable one is buried first, or its waits would never end.
   */
  const workers: Array<{ stop: AbortController; done: Promise<void>; bury?: () => void }> = [];
  function startWorker(options: Omit<WorkerOptions, 'signal'>) {
    const stop = new AbortController();
    const done = runWorker({ ...options, signal: stop.signal });
    workers.push({ stop, done });
    return { stop: () => stop.abort(), done: () => within(done, 5000, 'runWorker after abort') };
  }
  /** A worker on a view of the database that `kill()` cuts off, as a SIGKILL would; see `killable`. */
  function startKillableWorker(options: Omit<WorkerOptions, 'signal' | 'db'>) {
    const cut = killable(db);
    const stop = new AbortController();
    const done = runWorker({ ...options, db: cut.db, signal: stop.signal });
    workers.push({ stop, done, bury: cut.bury });
    return {
      kill: cut.kill,
      /** Ends the dead worker's loop: its waits fail, and it is told to stop. */
      bury: () => {
        cut.bury();
        stop.abort();
        return within(done, 5000, 'a dead worker once buried');
      },
    };
  }
  afterEach(async () => {
    for (const { stop, bury } of workers) {
      bury?.();
      stop.abort();
    }
    await within(Promise.all(workers.splice(0).map(({ done }) => done)), 10_000, 'workers left running');
  });

  const base: Omit<ClaimOptions, 'worker' | 'kinds'> = { limit: 10, leaseMs: 60_000, perHostConcurrency: 10, perHostDelayMs: 0 };

  it('queues, claims and completes a job, once, with its lease timed by the database', async () => {
    const { job, created } = await enqueue(db, { kind: 'capture', payload: { url: 'https://example.org/a.csv' } });
    expect(created).toBe(true);
    expect(job).toMatchObject({ status: 'queued', attempts: 0, maxAttempts: 5, lockedBy: null });
    await enqueue(db, { kind: 'capture', payload: { late: true }, delayMs: 60_000 });
    await enqueue(db, { kind: 'capture', payload: { late: true }, delayMs: 60_000, host: 'example.org' });
    await enqueue(db, { kind: 'otra-cosa' });

    const claimed = await claim(db, { ...base, worker: 'A', kinds: ['capture'] });
    expect(claimed.map((row) => row.id)).toEqual([job.id]);
    const [running] = claimed;
    expect(running).toMatchObject({ status: 'running', attempts: 1, lockedBy: 'A', payload: { url: 'https://example.org/a.csv' } });
    expect(ms(running!.lockedUntil, running!.startedAt)).toBe(60_000);
    // The delayed jobs are not due, the other kind is not asked for, and the running one is held.
    expect(await claim(otherDb, { ...base, worker: 'B', kinds: ['capture'] })).toEqual([]);

    expect(await complete(db, running!)).toBe(true);
    const done = await statusOf(db, job.id);
    expect(done).toMatchObject({ status: 'done', lockedBy: null, lockedUntil: null, attempts: 1 });
    expect(ms(done.finishedAt, done.startedAt)).toBeGreaterThanOrEqual(0);
    expect(await complete(db, running!)).toBe(false);
  });

  it('never hands one job to two claimers: 100 jobs claimed at once by eight loops on two connections', async () => {
    const hosts = [null, 'a.example', 'b.example', 'c.example'];
    await enqueueMany(
      db,
      Array.from({ length: 100 }, (_, n) => ({ kind: 'capture', payload: { n }, host: hosts[n % hosts.length] })),
    );
    const taken: Array<{ worker: string; job: Job }> = [];
    const loop = async (worker: string, on: Db) => {
      for (let turn = 0; turn < 100; turn++) {
        const claimed = await claim(on, { ...base, worker, kinds: ['capture'], limit: 3, perHostConcurrency: 100 });
        if (claimed.length === 0) return;
        taken.push(...claimed.map((job) => ({ worker, job })));
      }
    };
    await within(
      Promise.all(Array.from({ length: 8 }, (_, n) => loop(`w${n}`, n % 2 ? otherDb : db))),
      30_000,
      'eight claim loops',
    );
    const ids = taken.map((entry) => entry.job.id);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    const rows = await allJobs(db);
    expect(rows.every((row) => row.status === 'running' && row.attempts === 1)).toBe(true);
    const holder = new Map(taken.map((entry) => [entry.job.id, entry.worker]));
    expect(rows.every((row) => row.lockedBy === holder.get(row.id))).toBe(true);
    expect(new Set(taken.map((entry) => entry.worker)).size).toBeGreaterThan(1);
  });

  it('holds the global and per-host limits when claimers race', async () => {
    await enqueueMany(db, [
      ...Array.from({ length: 30 }, () => ({ kind: 'capture', host: 'uno.example' })),
      ...Array.from({ length: 30 }, () => ({ kind: 'capture' })),
    ]);
    const limits = { ...base, kinds: ['capture'], globalConcurrency: 7, perHostConcurrency: 2 };
    const claimed = await within(
      Promise.all(Array.from({ length: 8 }, (_, n) => claim(n % 2 ? otherDb : db, { ...limits, worker: `w${n}`, limit: 4 }))),
      30_000,
      'eight claims',
    );
    const taken = claimed.flat();
    expect(taken).toHaveLength(7);
    expect(taken.filter((job) => job.host === 'uno.example')).toHaveLength(2);
    expect((await allJobs(db)).filter((row) => row.status === 'running')).toHaveLength(7);
  });

  it('retries a failing job after growing, jittered delays, then fails it with its reason', async () => {
    const { job } = await enqueue(db, { kind: 'capture', maxAttempts: 3 });
    const backoff = { baseMs: 10_000, maxMs: 600_000 };
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      // Time passes: the retry is due now (the wait itself is what the delays below measure).
      await db.update(jobsTable).set({ runAfter: sql`now()` }).where(eq(jobsTable.id, job.id));
      const [running] = await claim(db, { ...base, worker: 'A', kinds: ['capture'] });
      expect(running?.attempts).toBe(attempt);
      const after = await fail(db, running!, new Error(`Servidor caído (${attempt})`), { backoff });
      expect(after?.lastError).toBe(`Servidor caído (${attempt})`);
      if (attempt < 3) {
        expect(after).toMatchObject({ status: 'queued', lockedBy: null, finishedAt: null });
        delays.push(ms(after!.runAfter, after!.updatedAt));
        // Not due before its backoff.
        expect(await claim(db, { ...base, worker: 'A', kinds: ['capture'] })).toEqual([]);
      } else {
        expect(after).toMatchObject({ status: 'failed', attempts: 3, lockedBy: null });
        expect(after!.finishedAt).not.toBeNull();
      }
    }
    // Equal jitter: the n-th delay lies between half and all of base·2^(n-1).
    expect(delays[0]).toBeGreaterThanOrEqual(5_000);
    expect(delays[0]).toBeLessThanOrEqual(10_000);
    expect(delays[1]).toBeGreaterThanOrEqual(10_000);
    expect(delays[1]).toBeLessThanOrEqual(20_000);

    // Jobs failing together come back at different times; a permanent failure is not retried.
    await enqueueMany(db, Array.from({ length: 20 }, () => ({ kind: 'burst' })));
    const burst = await claim(db, { ...base, worker: 'A', kinds: ['burst'], limit: 20 });
    const retried = await Promise.all(burst.map((running) => fail(db, running, new Error('503'), { backoff })));
    expect(new Set(retried.map((row) => row!.runAfter.getTime())).size).toBeGreaterThan(10);
    const { job: doomed } = await enqueue(db, { kind: 'doomed' });
    const [running] = await claim(db, { ...base, worker: 'A', kinds: ['doomed'] });
    expect(await fail(db, running!, new PermanentJobError('404 Not Found'), { retry: false })).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: '404 Not Found',
    });
    // A moderator's retry queues it again with all its attempts.
    expect(await retryFailed(db, doomed.id)).toBe(true);
    expect(await statusOf(db, doomed.id)).toMatchObject({ status: 'queued', attempts: 0, previousAttempts: 1, finishedAt: null });
    expect(await retryFailed(db, doomed.id)).toBe(false);
  });

  it("takes back a dead worker's job, counting the attempt it began, and ignores that worker afterwards", async () => {
    const { job } = await enqueue(db, { kind: 'capture', maxAttempts: 2 });
    const noWait = { backoff: { baseMs: 0, maxMs: 0 } };
    const [dead] = await claim(db, { ...base, worker: 'muerto', kinds: ['capture'], leaseMs: 100 });
    // Its handler began: the worker's death costs this attempt.
    await markBegun(db, [dead!]);
    const [reclaimed] = await waitFor(async () => {
      const back = await reclaimExpired(db, noWait);
      return back.length > 0 && back;
    });
    expect(reclaimed).toMatchObject({ id: job.id, status: 'queued', attempts: 1, lockedBy: null, lockedUntil: null });
    expect(reclaimed!.lastError).toMatch(/muerto.*concesión venció/);

    const [alive] = await claim(otherDb, { ...base, worker: 'vivo', kinds: ['capture'], leaseMs: 1000 });
    expect(alive).toMatchObject({ id: job.id, attempts: 2, lockedBy: 'vivo', workBegan: false });
    await markBegun(otherDb, [alive!]);
    // The first worker wakes up: its heartbeat and its result change nothing.
    expect(await heartbeat(db, dead!, 60_000)).toBe(false);
    expect(await complete(db, dead!)).toBe(false);
    expect(await fail(db, dead!, new Error('tarde'))).toBeNull();
    expect(await statusOf(db, job.id)).toMatchObject({ status: 'running', lockedBy: 'vivo' });

    // A renewed lease is not taken back, however long the job runs.
    for (let beat = 0; beat < 4; beat++) {
      await sleep(300);
      expect(await heartbeat(otherDb, alive!, 1000)).toBe(true);
      expect(await reclaimExpired(db, noWait)).toEqual([]);
    }
    // Its last attempt dies too: the job fails with the reason.
    const [failed] = await waitFor(async () => {
      const back = await reclaimExpired(db, noWait);
      return back.length > 0 && back;
    });
    expect(failed).toMatchObject({ id: job.id, status: 'failed', attempts: 2 });
    expect(failed!.lastError).toMatch(/vivo/);
    expect(failed!.finishedAt).not.toBeNull();
  });

  it('gives the jobs a dead worker held without beginning them their attempts back; the one at work loses its attempt', async () => {
    const queued = await enqueueMany(db, Array.from({ length: 20 }, (_, n) => ({ kind: 'capture', host: 'lento.example', payload: n, maxAttempts: 3 })));
    const ids = queued.map(({ job }) => job.id);
    const begun: number[] = [];
    const never = new Promise<void>(() => {});
    // One request at a time to the host: the worker holds all twenty, one at work, nineteen waiting for their turn.
    const dead = startKillableWorker({
      handlers: {
        capture: async (job, { signal }) => {
          begun.push(job.id);
          await Promise.race([never, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
        },
      },
      worker: 'muerto',
      concurrency: 2,
      perHostConcurrency: 1,
      perHostDelayMs: 0,
      leaseMs: 600,
      pollMs: 20,
      stopGraceMs: 100,
      onError: () => {},
    });
    // The worker says which one began (in its next report), then dies.
    const atWork = await waitFor(async () => {
      const rows = await allJobs(db);
      const began = rows.filter((row) => row.workBegan);
      return rows.every((row) => row.status === 'running' && row.lockedBy === 'muerto') && began.length > 0 && began;
    });
    expect(atWork.map((row) => row.id)).toEqual([ids[0]]);
    expect(begun).toEqual([ids[0]]);
    dead.kill();

    const back = await waitFor(async () => {
      const rows = await reclaimExpired(otherDb, { backoff: { baseMs: 60_000, maxMs: 60_000 } });
      return rows.length > 0 && rows;
    });
    expect(back).toHaveLength(20);
    const now = await db.execute(sql`select now() as now`);
    const dbNow = new Date((now as unknown as { rows: Array<{ now: string | Date }> }).rows[0]!.now);
    for (const row of back) {
      if (row.id === ids[0]) {
        // The one at work: its attempt counted, and it waits its backoff.
        expect(row).toMatchObject({ status: 'queued', attempts: 1, reclaims: 1, workBegan: false, lockedBy: null });
        expect(row.lastError).toMatch(/muerto.*concesión venció/);
        expect(row.runAfter.getTime()).toBeGreaterThan(dbNow.getTime() + 30_000);
      } else {
        // The others never began: all their attempts, due at once.
        expect(row).toMatchObject({ status: 'queued', attempts: 0, reclaims: 1, workBegan: false, lockedBy: null });
        expect(row.lastError).toMatch(/muerto.*antes de empezarlo/);
        expect(row.runAfter.getTime()).toBeLessThanOrEqual(dbNow.getTime());
      }
    }

    // A live worker does the nineteen at once; each counts one attempt, its first.
    await db.update(jobsTable).set({ runAfter: sql`now()` }).where(eq(jobsTable.id, ids[0]!));
    const alive = startWorker({ db, handlers: { capture: async () => {} }, worker: 'vivo', concurrency: 2, perHostConcurrency: 1, perHostDelayMs: 0, pollMs: 20 });
    await waitFor(async () => (await allJobs(db)).every((row) => row.status === 'done'));
    alive.stop();
    await alive.done();
    expect((await allJobs(db)).map((row) => [row.id, row.attempts])).toEqual(ids.map((id) => [id, id === ids[0] ? 2 : 1]));
    await dead.bury();
  });

  /**
   * Runs workers on `kinds` one after the other, each killed by its job `killer` (the handler calls
   * `die`), each of its jobs taken back once its lease expired, until `killer` is failed; returns how
   * many workers died. The killer is the oldest job of its host, which asks one request at a time:
   * the others wait behind it in each worker and never begin.
   */
  async function killWorkersUntilFailed(killerId: number, dieWhen: 'at once' | 'once its start is reported', most: number): Promise<number> {
    for (let deaths = 0; deaths < most; ) {
      const handler: JobHandler = async (job) => {
        if (job.id !== killerId) throw new Error('Solo debía empezar el trabajo que mata a su proceso.');
        if (dieWhen === 'once its start is reported') await waitFor(async () => (await statusOf(otherDb, job.id)).workBegan, { everyMs: 5 });
        dead.kill();
        await new Promise(() => {});
      };
      const dead = startKillableWorker({ handlers: { capture: handler }, worker: `muerto-${deaths}`, perHostConcurrency: 1, perHostDelayMs: 0, leaseMs: 300, pollMs: 20, stopGraceMs: 50, onError: () => {} });
      await waitFor(async () => (await allJobs(db)).every((row) => row.status === 'running'));
      await waitFor(async () => (await reclaimExpired(otherDb, { backoff: { baseMs: 0, maxMs: 0 } })).length > 0);
      deaths++;
      await dead.bury();
      if ((await statusOf(db, killerId)).status === 'failed') return deaths;
    }
    throw new Error(`The killer job was not failed after ${most} deaths`);
  }

  it('fails a job that kills its worker every time once it began, after its max_attempts, and only it', async () => {
    const [killer, ...bystanders] = await enqueueMany(db, Array.from({ length: 5 }, (_, n) => ({ kind: 'capture', host: 'mortal.example', payload: n, maxAttempts: 3 })));
    expect(await killWorkersUntilFailed(killer!.job.id, 'once its start is reported', 10)).toBe(3);
    const failed = await statusOf(db, killer!.job.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, reclaims: 3 });
    expect(failed.lastError).toMatch(/muerto-2.*concesión venció/);
    // The jobs that waited behind it in each dead worker kept every attempt.
    for (const { job } of bystanders) expect(await statusOf(db, job.id)).toMatchObject({ status: 'queued', attempts: 0, reclaims: 3 });
  });

  it('fails a job that kills its worker before its start is reported after max_attempts + 1 deaths, and only it', async () => {
    const [killer, bystander] = await enqueueMany(db, [0, 1].map((n) => ({ kind: 'capture', host: 'fulminante.example', payload: n, maxAttempts: 2 })));
    // Its first death costs it nothing, as it was never seen at work; from then on its start is on
    // record before its handler runs, and each death costs an attempt.
    expect(await killWorkersUntilFailed(killer!.job.id, 'at once', 10)).toBe(3);
    expect(await statusOf(db, killer!.job.id)).toMatchObject({ status: 'failed', attempts: 2, reclaims: 3 });
    expect(await statusOf(db, bystander!.job.id)).toMatchObject({ status: 'queued', attempts: 0, reclaims: 3 });
  });

  it('never lets a worker whose lease was taken back record over its new holder, even itself', async () => {
    const { job } = await enqueue(db, { kind: 'capture' });
    const [first] = await claim(db, { ...base, worker: 'W', kinds: ['capture'], leaseMs: 100 });
    expect(first).toMatchObject({ attempts: 1, reclaims: 0 });
    await waitFor(async () => (await reclaimExpired(db)).length > 0);
    // It never began: the attempt is given back, so the count alone would not tell the two holds apart.
    const [second] = await claim(db, { ...base, worker: 'W', kinds: ['capture'] });
    expect(second).toMatchObject({ id: job.id, attempts: 1, reclaims: 1, lockedBy: 'W' });
    expect(await heartbeat(db, first!, 60_000)).toBe(false);
    expect(await markBegun(db, [first!])).toEqual(new Set());
    expect(await statusOf(db, job.id)).toMatchObject({ workBegan: false });
    expect(await complete(db, first!)).toBe(false);
    expect(await fail(db, first!, new Error('tarde'))).toBeNull();
    expect(await statusOf(db, job.id)).toMatchObject({ status: 'running', lockedBy: 'W', attempts: 1, reclaims: 1 });
    expect(await complete(db, second!)).toBe(true);
  });

  it('stops its old run of a job it claims again after losing its lease, so the handler runs once', async () => {
    // One turn on the host: the first job works until released; the second waits for the turn.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const handlers: Record<string, JobHandler> = {
      capture: async (job) => {
        ran.push(String(job.payload));
        if (job.payload === 'primero') await released;
      },
    };
    const [first, second] = await enqueueMany(db, [
      { kind: 'capture', host: 'uno.example', payload: 'primero' },
      { kind: 'capture', host: 'uno.example', payload: 'segundo' },
    ]);
    const errors: unknown[] = [];
    const worker = startWorker({ db, handlers, worker: 'W', concurrency: 2, perHostConcurrency: 1, perHostDelayMs: 0, pollMs: 20, onError: (error) => errors.push(error) });
    await waitFor(async () => (await statusOf(db, second!.job.id))?.status === 'running' && ran.includes('primero'));
    // The waiting job's lease runs out (as when the worker's heartbeats stall): not begun, it is
    // taken back due at once, and this same worker claims it again.
    await db.update(jobsTable).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobsTable.id, second!.job.id));
    await waitFor(async () => (await statusOf(db, second!.job.id))?.reclaims === 1 && (await statusOf(db, second!.job.id))?.status === 'running');
    release();
    await waitFor(async () => (await allJobs(db)).every((row) => row.status === 'done'));
    await sleep(100);
    worker.stop();
    await worker.done();
    expect(ran.filter((payload) => payload === 'segundo')).toEqual(['segundo']);
    expect(await statusOf(db, first!.job.id)).toMatchObject({ status: 'done' });
    expect(await statusOf(db, second!.job.id)).toMatchObject({ status: 'done', attempts: 1, reclaims: 1 });
    expect(errors).toEqual([]);
  });

  it('paces each host: at most N of its jobs at once, while other hosts go ahead', async () => {
    const queued = await enqueueMany(db, [
      { kind: 'capture', host: 'a.example', payload: 'a1' },
      { kind: 'capture', host: 'A.example', payload: 'a2' },
      { kind: 'capture', host: 'a.example', payload: 'a3' },
      { kind: 'capture', host: 'b.example', payload: 'b1' },
    ]);
    const polite = { ...base, perHostConcurrency: 2, kinds: ['capture'] };
    const first = await claim(db, { ...polite, worker: 'A' });
    expect(first.map((job) => job.payload).sort()).toEqual(['a1', 'a2', 'b1']);
    expect(await claim(otherDb, { ...polite, worker: 'B' })).toEqual([]);
    // A job of another kind on the same host counts too: the host sees every request.
    await enqueue(db, { kind: 'robots', host: 'a.example' });
    expect(await claim(db, { ...polite, worker: 'B', kinds: ['robots'] })).toEqual([]);
    await complete(db, first.find((job) => job.payload === 'a1')!);
    const next = await claim(otherDb, { ...polite, worker: 'B', kinds: ['capture', 'robots'] });
    expect(next.map((job) => job.id)).toEqual([queued[2]!.job.id]);
  });

  it('lets a worker alone with a host hold more of its jobs, which keep every other worker off it', async () => {
    await enqueueMany(db, Array.from({ length: 8 }, (_, n) => ({ kind: 'capture', host: 'solo.example', payload: `s${n}` })));
    await enqueue(db, { kind: 'capture', host: 'otro.example', payload: 'o1' });
    const polite = { ...base, perHostConcurrency: 2, kinds: ['capture'] };
    // The other host's first job comes before the ones past solo.example's limit.
    const first = await claim(db, { ...polite, worker: 'A', limit: 3, perHostAlone: 6 });
    expect(first.map((job) => job.payload).sort()).toEqual(['o1', 's0', 's1']);
    const more = await claim(db, { ...polite, worker: 'A', perHostAlone: 6 });
    expect(more.map((job) => job.payload)).toEqual(['s2', 's3', 's4', 's5']);
    // B sees solo.example busy beyond its limit; nor may A go past what it may hold alone.
    expect(await claim(otherDb, { ...polite, worker: 'B', perHostAlone: 6 })).toEqual([]);
    expect(await claim(db, { ...polite, worker: 'A', perHostAlone: 6 })).toEqual([]);
    // With a per-host delay, never more than one start at a time, alone or not.
    await Promise.all([...first, ...more].map((job) => complete(db, job)));
    const paced = await claim(db, { ...polite, worker: 'A', perHostAlone: 6, perHostDelayMs: 1000 });
    expect(paced.map((job) => job.payload)).toEqual(['s6']);
  });

  it("takes a lone host's backlog in one claim without taking more other hosts than it has slots for", async () => {
    await enqueueMany(db, Array.from({ length: 6 }, (_, n) => ({ kind: 'capture', host: 'solo.example', payload: `s${n}` })));
    await enqueueMany(db, ['x', 'y', 'z'].map((name) => ({ kind: 'capture', host: `${name}.example`, payload: name })));
    const polite = { ...base, perHostConcurrency: 2, kinds: ['capture'], perHostAlone: 6 };
    // One slot free: one job within its host's limit (the oldest, s0), and solo.example's jobs past
    // its limit, which wait in the worker for a turn; none of the other hosts' jobs.
    const first = await claim(db, { ...polite, worker: 'A', limit: 10, withinHostLimits: 1 });
    expect(first.map((job) => job.payload)).toEqual(['s0', 's2', 's3', 's4', 's5']);
    // No slot free: only a lone host's backlog may come (s1, now past the limit as A holds five).
    const backlog = await claim(db, { ...polite, worker: 'A', limit: 10, withinHostLimits: 0 });
    expect(backlog.map((job) => job.payload)).toEqual(['s1']);
    expect(await claim(db, { ...polite, worker: 'A', limit: 10, withinHostLimits: 0 })).toEqual([]);
    const rest = await claim(db, { ...polite, worker: 'A', limit: 10, withinHostLimits: 10 });
    expect(rest.map((job) => job.payload)).toEqual(['x', 'y', 'z']);
  });

  it('runs at most the per-host limit of its jobs of one host at once, the rest waiting for a turn or their writes', async () => {
    let asking = 0;
    let peakAsking = 0;
    let peakHeld = 0;
    let held = 0;
    const handlers: Record<string, JobHandler> = {
      capture: async (_job, { hostDone }) => {
        held++;
        peakHeld = Math.max(peakHeld, held);
        asking++;
        peakAsking = Math.max(peakAsking, asking);
        await sleep(15);
        asking--;
        // The bytes are in: the next job of the host may ask while this one "writes".
        hostDone?.();
        await sleep(60);
        held--;
      },
    };
    await enqueueMany(db, Array.from({ length: 24 }, (_, n) => ({ kind: 'capture', host: 'solo.example', payload: n })));
    const errors: unknown[] = [];
    const worker = startWorker({ db, handlers, worker: 'W', concurrency: 4, perHostConcurrency: 2, perHostDelayMs: 0, pollMs: 20, onError: (error) => errors.push(error) });
    await waitFor(async () => (await allJobs(db)).every((row) => row.status === 'done'));
    worker.stop();
    await worker.done();
    expect(errors).toEqual([]);
    expect(peakAsking).toBe(2);
    // More jobs than the per-host limit were held at once: those done asking waited for their writes.
    expect(peakHeld).toBeGreaterThan(2);
  });

  it('waits the per-host delay between two starts on one host, and as long as the host asks', async () => {
    await enqueueMany(db, [
      { kind: 'capture', host: 'lento.example', payload: 's1' },
      { kind: 'capture', host: 'lento.example', payload: 's2' },
      { kind: 'capture', host: 'otro.example', payload: 'o1' },
      { kind: 'capture', host: 'otro.example', payload: 'o2' },
    ]);
    const paced = { ...base, kinds: ['capture'], perHostConcurrency: 5, perHostDelayMs: 1000 };
    const first = await claim(db, { ...paced, worker: 'A' });
    expect(first.map((job) => job.payload).sort()).toEqual(['o1', 's1']);
    // Room for more at once, but not so soon; finishing the job does not shorten the delay.
    await Promise.all(first.map((job) => complete(db, job)));
    expect(await claim(otherDb, { ...paced, worker: 'B' })).toEqual([]);
    // otro.example asks for a minute (a Retry-After): lento.example's second job goes first.
    await deferHost(db, 'OTRO.example', 60_000);
    await deferHost(db, 'otro.example', 10); // a shorter request does not undo the longer one
    const [second] = await waitFor(async () => {
      const claimed = await claim(otherDb, { ...paced, worker: 'B' });
      return claimed.length > 0 && claimed;
    });
    expect(second!.payload).toBe('s2');
    const s1 = first.find((job) => job.payload === 's1')!;
    expect(ms(second!.startedAt, s1.startedAt)).toBeGreaterThanOrEqual(1000);
    const [host] = await db.select().from(jobHosts).where(eq(jobHosts.host, 'otro.example'));
    expect(ms(host!.nextAllowedAt, second!.startedAt)).toBeGreaterThan(50_000);
    expect(await claim(db, { ...paced, worker: 'A' })).toEqual([]);
  });

  it('holds a host back at most an hour, whatever it asks, and one host under all its spellings', async () => {
    const week = 7 * 24 * 60 * 60_000;
    await deferHost(db, politenessKey('https://EXAMPLE.org:443/datos.csv'), week);
    const { rows } = (await db.execute(sql`select host, extract(epoch from next_allowed_at - now())::float8 as seconds from job_hosts`)) as unknown as {
      rows: Array<{ host: string; seconds: number }>;
    };
    expect(rows.map((row) => row.host)).toEqual(['example.org']);
    expect(Number(rows[0]!.seconds)).toBeGreaterThan(3590);
    expect(Number(rows[0]!.seconds)).toBeLessThanOrEqual(3600);
    // Jobs of the host, however their URL spelled it, wait; another port is another host.
    await enqueueMany(db, [
      { kind: 'capture', host: politenessKey('http://example.org/a.csv'), payload: 'a' },
      { kind: 'capture', host: politenessKey('https://example.org./b.csv'), payload: 'b' },
      { kind: 'capture', host: politenessKey('https://example.org:8443/c.csv'), payload: 'c' },
    ]);
    const claimed = await claim(db, { ...base, kinds: ['capture'], worker: 'A', perHostDelayMs: 0 });
    expect(claimed.map((job) => [job.payload, job.host])).toEqual([['c', 'example.org:8443']]);
  });

  it('keeps the global concurrency limit across workers, counting only live leases of its kinds', async () => {
    await enqueueMany(db, [...Array.from({ length: 10 }, () => ({ kind: 'capture' })), { kind: 'preview' }, { kind: 'preview' }]);
    const limited = { ...base, kinds: ['capture'], globalConcurrency: 3 };
    const first = await claim(db, { ...limited, worker: 'A' });
    expect(first).toHaveLength(3);
    expect(await claim(otherDb, { ...limited, worker: 'B' })).toEqual([]);
    // Another kind has its own limit.
    expect(await claim(otherDb, { ...limited, worker: 'B', kinds: ['preview'] })).toHaveLength(2);
    await complete(db, first[0]!);
    expect(await claim(otherDb, { ...limited, worker: 'B' })).toHaveLength(1);
    // A lease that expired (its worker died) frees its slot.
    await db.update(jobsTable).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobsTable.id, first[1]!.id));
    expect(await claim(otherDb, { ...limited, worker: 'B' })).toHaveLength(1);
    const running = (await allJobs(db)).filter((row) => row.kind === 'capture' && row.status === 'running');
    expect(running).toHaveLength(4); // three live leases and the expired one, not yet taken back
  });

  it('makes enqueueing idempotent with a dedupe key, also for concurrent callers', async () => {
    const first = await enqueue(db, { kind: 'capture', dedupeKey: 'run-1:a.csv', payload: 1 });
    const again = await enqueue(otherDb, { kind: 'capture', dedupeKey: 'run-1:a.csv', payload: 2 });
    expect(again).toEqual({ job: first.job, created: false });

    const batch = await enqueueMany(db, [
      { kind: 'capture', dedupeKey: 'run-1:b.csv' },
      { kind: 'capture', dedupeKey: 'run-1:b.csv' },
      { kind: 'capture', dedupeKey: 'run-1:a.csv' },
      { kind: 'capture', payload: 'sin clave' },
    ]);
    expect(batch.map((entry) => entry.created)).toEqual([true, false, false, true]);
    expect(batch[1]!.job.id).toBe(batch[0]!.job.id);
    expect(batch[2]!.job.id).toBe(first.job.id);
    expect(batch[3]!.job.payload).toBe('sin clave');

    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, n) => enqueue(n % 2 ? otherDb : db, { kind: 'capture', dedupeKey: 'run-1:c.csv' })),
    );
    expect(racing.filter((entry) => entry.created)).toHaveLength(1);
    expect(new Set(racing.map((entry) => entry.job.id)).size).toBe(1);
    expect(await allJobs(db)).toHaveLength(4);
  });

  it('runs handlers within the worker concurrency, records each outcome, and stops', async () => {
    let active = 0;
    let peak = 0;
    const seen: number[] = [];
    const handlers: Record<string, JobHandler> = {
      ok: async (job) => {
        active++;
        peak = Math.max(peak, active);
        await sleep(30);
        seen.push(job.payload as number);
        active--;
      },
      flaky: async (job) => {
        if (job.attempts === 1) throw new Error('ECONNRESET');
      },
      broken: async () => {
        throw new PermanentJobError('404 Not Found');
      },
    };
    await enqueueMany(db, [
      ...Array.from({ length: 12 }, (_, n) => ({ kind: 'ok', payload: n })),
      { kind: 'flaky' },
      { kind: 'broken' },
    ]);
    const errors: unknown[] = [];
    const worker = startWorker({
      db,
      handlers,
      worker: 'W',
      concurrency: 3,
      pollMs: 20,
      backoff: { baseMs: 0, maxMs: 0 },
      onError: (error) => errors.push(error),
    });
    await waitFor(async () => (await allJobs(db)).every((row) => row.status === 'done' || row.status === 'failed'));
    worker.stop();
    await worker.done();

    expect(errors).toEqual([]);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, n) => n));
    expect(peak).toBe(3);
    const rows = await allJobs(db);
    expect(rows.filter((row) => row.kind === 'ok').every((row) => row.status === 'done' && row.attempts === 1)).toBe(true);
    expect(rows.find((row) => row.kind === 'flaky')).toMatchObject({ status: 'done', attempts: 2, lastError: 'ECONNRESET' });
    expect(rows.find((row) => row.kind === 'broken')).toMatchObject({ status: 'failed', attempts: 1, lastError: '404 Not Found' });
  });

  it('keeps a long job by its heartbeats: the lease outlives its length many times over', async () => {
    const { job } = await enqueue(db, { kind: 'largo' });
    const worker = startWorker({ db, handlers: { largo: () => sleep(2000) }, leaseMs: 700, pollMs: 20 });
    await waitFor(async () => (await statusOf(db, job.id)).status === 'running');
    const takenBack: Job[] = [];
    for (let turn = 0; turn < 100 && (await statusOf(db, job.id)).status === 'running'; turn++) {
      takenBack.push(...(await reclaimExpired(otherDb)));
      await sleep(50);
    }
    worker.stop();
    await worker.done();
    expect(takenBack).toEqual([]);
    expect(await statusOf(db, job.id)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('stops on abort leaving no job running: aborted handlers and those that ignore it are handed back', async () => {
    const ignored: Array<Promise<void>> = [];
    let stubbornLease: Job | undefined;
    const handlers: Record<string, JobHandler> = {
      // Stops when asked, as a capture would.
      polite: (_job, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
      // Ignores the signal and finishes later.
      stubborn: (job) => {
        stubbornLease = job;
        const late = sleep(800);
        ignored.push(late);
        return late;
      },
    };
    const queued = await enqueueMany(db, [{ kind: 'polite' }, { kind: 'stubborn' }]);
    const worker = startWorker({ db, handlers, concurrency: 2, pollMs: 20, stopGraceMs: 200, leaseMs: 10_000 });
    await waitFor(async () => (await allJobs(db)).every((row) => row.status === 'running'));
    worker.stop();
    await worker.done();
    for (const { job } of queued) {
      expect(await statusOf(db, job.id)).toMatchObject({ status: 'queued', attempts: 0, lockedBy: null });
    }
    // Another worker takes the stubborn job (in the same attempt number, as the first was handed
    // back uncounted); the first handler ends later: its success is not recorded.
    const [again] = await claim(otherDb, { ...base, worker: 'siguiente', kinds: ['stubborn'] });
    expect(again).toMatchObject({ id: queued[1]!.job.id, attempts: 1 });
    expect(stubbornLease).toMatchObject({ id: again!.id, attempts: 1 });
    expect(await complete(db, stubbornLease!)).toBe(false);
    await Promise.all(ignored);
    await sleep(50);
    expect(await statusOf(db, queued[1]!.job.id)).toMatchObject({ status: 'running', attempts: 1, lockedBy: 'siguiente' });
  });

  if (engine === 'pglite') {
    it('runs as `npm start` serves the embedded database: one connection over its socket', async () => {
      const client = (db as unknown as { $client: Parameters<typeof servePglite>[0] }).$client;
      const served = await servePglite(client);
      const remote = await openDatabase({ url: served.url, poolMax: 1 });
      try {
        await enqueueMany(
          remote.db,
          Array.from({ length: 20 }, (_, n) => ({ kind: 'capture', payload: n, host: n % 2 ? 'a.example' : null })),
        );
        const worker = startWorker({
          db: remote.db,
          handlers: { capture: () => sleep(30) },
          concurrency: 4,
          perHostConcurrency: 2,
          perHostDelayMs: 0,
          // Heartbeats share the one connection with everything else: a short lease would expire
          // on a busy machine (a job taken back is run again at once, and must still end done).
          leaseMs: 2000,
          pollMs: 20,
          backoff: { baseMs: 0, maxMs: 0 },
        });
        // Enqueueing while the worker claims and beats through the same single connection.
        await enqueueMany(remote.db, Array.from({ length: 5 }, () => ({ kind: 'capture' })));
        await waitFor(async () => (await allJobs(remote.db)).every((row) => row.status === 'done'), { timeoutMs: 20_000 });
        worker.stop();
        await worker.done();
        expect(await allJobs(remote.db)).toHaveLength(25);
      } finally {
        for (const { stop, done } of workers.splice(0)) {
          stop.abort();
          await done;
        }
        await remote.close();
        await served.close();
      }
    });
  }
});
