/**
 * The capture job (issue #18) against a site of its own on 127.0.0.1, on both engines: the
 * checksum a catalogue declares is checked whatever its algorithm (MD5 and SHA-1 as well as
 * SHA-256), and the pauses a site asks for, a `Retry-After` with a 429 or 503 and a robots.txt
 * `Crawl-delay`, hold back the job's host for every worker on the database: bounded to an hour,
 * never shorter than the queue's own delay.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/lib/server/db/index.ts';
import { alexandrias, captures, harvestedRecords, statusHistory } from '../../src/lib/server/db/schema.ts';
import { CAPTURE_JOB, captureHandler, registerHarvestSource, type CaptureContext } from '../../src/lib/server/harvest/index.ts';
import { politenessKey } from '../../src/lib/server/jobs/hosts.ts';
import { claim, enqueue, PermanentJobError, type Job } from '../../src/lib/server/jobs/index.ts';
import { createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';

const CSV = 'provincia,habitantes\nSanto Domingo,1000\nSantiago,800\n';
const digestOf = (algorithm: string) => createHash(algorithm).update(CSV).digest('hex');

/** What the site answers at each path; a test sets it. */
interface Site {
  origin: string;
  robots: string;
  /** What robots.txt answers with instead of its text when not 200 (a 503: the site cannot say). */
  robotsStatus: number;
  answers: Map<string, { status: number; headers?: Record<string, string>; body?: string }>;
  served: string[];
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const site: Omit<Site, 'origin' | 'close'> = { robots: 'User-agent: *\nAllow: /\n', robotsStatus: 200, answers: new Map(), served: [] };
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    site.served.push(url);
    if (url === '/robots.txt') return void response.writeHead(site.robotsStatus, { 'Content-Type': 'text/plain' }).end(site.robots);
    const answer = site.answers.get(url) ?? { status: 200, headers: { 'Content-Type': 'text/csv' }, body: CSV };
    response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(site, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/**
 * `db`, recording the text of each `update` of the records (`alexandrias`) run in its transactions
 * into `updates`: what a capture's group write sends, to check which columns it sets.
 */
function recordingRecordUpdates(db: Db, updates: string[]): Db {
  const dialect = new PgDialect();
  const recording = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (property === 'execute') {
          return (query: SQL) => {
            const text = dialect.sqlToQuery(query).sql;
            if (/^\s*update "alexandrias"/.test(text)) updates.push(text);
            return (value as (query: SQL) => unknown).call(object, query);
          };
        }
        if (property === 'transaction') {
          return (work: (tx: T) => unknown, ...rest: unknown[]) =>
            (value as (work: (tx: T) => unknown, ...rest: unknown[]) => unknown).call(object, (tx: T) => work(recording(tx)), ...rest);
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
      },
    });
  return recording(db);
}

describe.each(testEngines())('the capture job on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;
  let site: Site;
  let context: CaptureContext;
  let harvestSourceId: number;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = database.db;
    site = await startSite();
    const blocks = await createTestStore();
    const stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    context = {
      store: blocks.store,
      staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(db) }),
      allowPrivate: true,
      maxBytes: 1_000_000,
      fetchOptions: { totalTimeoutMs: 10_000, idleTimeoutMs: 5_000, headersTimeoutMs: 5_000 },
      hostDelayMs: 0,
    };
    ({ harvestSource: { id: harvestSourceId } } = await registerHarvestSource(db, { url: `${site.origin}/data.json`, kind: 'datajson' }));
    cleanup = async () => {
      await blocks.destroy();
      await fsp.rm(stagingDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await site?.close();
    await database?.destroy();
    await cleanup?.();
  });
  beforeEach(async () => {
    await db.execute(sql`truncate jobs, job_hosts cascade`);
    site.robots = 'User-agent: *\nAllow: /\n';
    site.robotsStatus = 200;
    site.answers.clear();
  });

  /** A harvested CSV record waiting for its file at `path` of the site, with what its catalogue declared, and its capture job. */
  async function recordToCapture(
    filePath: string,
    declaredChecksum: string | null = null,
    origin = site.origin,
    fileName: string | null = null,
  ): Promise<{ alexandriaId: number; job: Job }> {
    const [record] = await db.insert(alexandrias).values({ title: `Archivo ${filePath}`, type: 'csv', fileName }).returning({ id: alexandrias.id });
    const url = `${origin}${filePath}`;
    await db.insert(harvestedRecords).values({
      alexandriaId: record!.id,
      harvestSourceId,
      datasetIdentifier: `conjunto-${record!.id}`,
      distributionKey: url,
      distributionUrl: url,
      declaredFormat: 'CSV',
      declaredChecksum,
    });
    const { job } = await enqueue(db, { kind: CAPTURE_JOB, host: politenessKey(url), payload: { alexandriaId: record!.id, url, importId: 0 } });
    return { alexandriaId: record!.id, job };
  }

  const captureOf = async (alexandriaId: number) => (await db.select().from(captures).where(eq(captures.alexandriaId, alexandriaId)).orderBy(captures.id)).at(-1)!;
  const run = (job: Job, options: Partial<CaptureContext> = {}) => captureHandler({ ...context, ...options })(job, { db, signal: new AbortController().signal });

  /** Seconds from the database's now until the site's host may be asked again (negative when it may now). */
  async function hostHeldFor(origin = site.origin): Promise<number> {
    const { rows } = (await db.execute(
      sql`select extract(epoch from next_allowed_at - now())::float8 as seconds from job_hosts where host = ${politenessKey(origin)}`,
    )) as unknown as { rows: Array<{ seconds: number }> };
    return Number(rows[0]!.seconds);
  }

  it('names the file after the URL that answered: the name the harvest gave stays, a redirect renames it, and search finds the new name', async () => {
    const kept = await recordToCapture('/informe-anual.csv', null, site.origin, 'informe-anual.csv');
    const moved = await recordToCapture('/descargar/antiguo.csv', null, site.origin, 'antiguo.csv');
    const unnamed = await recordToCapture('/descargas/Gasto%20p%C3%BAblico.csv');
    site.answers.set('/descargar/antiguo.csv', { status: 302, headers: { Location: '/archivos/presupuesto-municipal.csv' } });
    // Each capture's update of its record, as sent: a name left as it was is not set again, since
    // setting file_name makes the database compute the record's search text anew.
    const setsName: boolean[] = [];
    for (const { job } of [kept, moved, unnamed]) {
      const updates: string[] = [];
      await captureHandler(context)(job, { db: recordingRecordUpdates(db, updates), signal: new AbortController().signal });
      expect(updates).toHaveLength(1);
      setsName.push(/\bfile_name\s*=/.test(updates[0]!));
    }
    expect(setsName).toEqual([false, true, true]);
    const named = async (alexandriaId: number) => {
      const { rows } = (await db.execute(sql`
        select file_name, file_extension, cid is not null as captured,
          search @@ websearch_to_tsquery('archivo_es', 'presupuesto-municipal.csv') as found_by_new_name,
          search @@ websearch_to_tsquery('archivo_es', 'antiguo.csv') as found_by_old_name
        from ${alexandrias} where id = ${alexandriaId}`)) as unknown as { rows: Array<Record<string, unknown>> };
      return rows[0];
    };
    expect(await named(kept.alexandriaId)).toEqual({ file_name: 'informe-anual.csv', file_extension: 'csv', captured: true, found_by_new_name: false, found_by_old_name: false });
    expect(await named(moved.alexandriaId)).toEqual({ file_name: 'presupuesto-municipal.csv', file_extension: 'csv', captured: true, found_by_new_name: true, found_by_old_name: false });
    expect(await named(unnamed.alexandriaId)).toMatchObject({ file_name: 'Gasto público.csv', captured: true });
    // Its history says where it came from as a reader reads the address, its letters unescaped.
    const [line] = await db.select({ reason: statusHistory.reason }).from(statusHistory).where(eq(statusHistory.alexandriaId, unnamed.alexandriaId));
    expect(line?.reason).toBe(`Capturado por el archivo desde ${site.origin}/descargas/Gasto%20público.csv (HTTP 200).`);
  });

  it('checks a declared MD5 or SHA-1 as it checks a SHA-256, and reports a mismatch', async () => {
    const cases: Array<[string, string | null]> = [
      [`md5:${digestOf('md5')}`, null],
      [`sha1:${digestOf('sha1')}`, null],
      [`sha256:${digestOf('sha256')}`, null],
      [`md5:${'0'.repeat(32)}`, `el catálogo declara MD5 ${'0'.repeat(32)} y el archivo tiene ${digestOf('md5')}`],
      [`sha1:${'ab'.repeat(20)}`, `el catálogo declara SHA-1 ${'ab'.repeat(20)} y el archivo tiene ${digestOf('sha1')}`],
      [`sha512:${'cd'.repeat(64)}`, `el catálogo declara SHA-512 ${'cd'.repeat(64)} y el archivo tiene ${digestOf('sha512')}`],
      // An algorithm the archive does not compute is not held against the file.
      [`crc32:${'0'.repeat(8)}`, null],
    ];
    for (const [index, [declared, mismatch]] of cases.entries()) {
      const { alexandriaId, job } = await recordToCapture(`/datos-${index}.csv`, declared);
      await run(job);
      const capture = await captureOf(alexandriaId);
      expect(capture, declared).toMatchObject({ status: 200, sha256: digestOf('sha256'), size: CSV.length, declaredChecksum: declared, mismatch });
      const [record] = await db.select().from(alexandrias).where(eq(alexandrias.id, alexandriaId));
      expect(record!.cid, declared).toBe(capture.cid);
    }
  });

  it("holds the host back as long as a 429's Retry-After asks, for every job of the host", async () => {
    site.answers.set('/limitado.csv', { status: 429, headers: { 'Retry-After': '120' } });
    const { alexandriaId, job } = await recordToCapture('/limitado.csv');
    const attempt = run(job);
    await expect(attempt).rejects.toThrow('el servidor respondió HTTP 429 y pidió esperar 120 s');
    await expect(attempt).rejects.not.toBeInstanceOf(PermanentJobError);
    expect(await captureOf(alexandriaId)).toMatchObject({ status: 429, cid: null, errorReason: 'el servidor respondió HTTP 429 y pidió esperar 120 s' });
    const held = await hostHeldFor();
    expect(held).toBeGreaterThan(110);
    expect(held).toBeLessThanOrEqual(120);
    // Another file of the same host, spelt otherwise, waits too.
    await enqueue(db, { kind: CAPTURE_JOB, host: politenessKey(`${site.origin.replace('127.0.0.1', '127.0.0.1.')}/otro.csv`), payload: {} });
    expect(await claim(db, { worker: 'otro', kinds: [CAPTURE_JOB], limit: 5, leaseMs: 60_000, perHostDelayMs: 0 })).toEqual([]);
  });

  it("reads a 503's Retry-After as an HTTP date, and bounds what a host asks to an hour", async () => {
    const inHalfAnHour = new Date(Date.now() + 30 * 60_000).toUTCString();
    site.answers.set('/caido.csv', { status: 503, headers: { 'Retry-After': inHalfAnHour } });
    await expect(run((await recordToCapture('/caido.csv')).job)).rejects.toThrow(/^el servidor respondió HTTP 503 y pidió esperar 1[78]\d\d s$/);
    expect(await hostHeldFor()).toBeGreaterThan(1750);
    expect(await hostHeldFor()).toBeLessThanOrEqual(1800);

    site.answers.set('/semana.csv', { status: 429, headers: { 'Retry-After': String(7 * 24 * 3600) } });
    await expect(run((await recordToCapture('/semana.csv')).job)).rejects.toThrow('el servidor respondió HTTP 429 y pidió esperar 604800 s');
    expect(await hostHeldFor()).toBeGreaterThan(3590);
    expect(await hostHeldFor()).toBeLessThanOrEqual(3600);
  });

  it('never holds a host back less than the configured delay, and not at all for a 500 or without Retry-After', async () => {
    site.answers.set('/pronto.csv', { status: 429, headers: { 'Retry-After': '1' } });
    await expect(run((await recordToCapture('/pronto.csv')).job, { hostDelayMs: 20_000 })).rejects.toThrow('HTTP 429 y pidió esperar 1 s');
    expect(await hostHeldFor()).toBeGreaterThan(15);

    await db.execute(sql`truncate jobs, job_hosts cascade`);
    site.answers.set('/roto.csv', { status: 500, headers: { 'Retry-After': '600' } });
    site.answers.set('/sin-aviso.csv', { status: 429 });
    await expect(run((await recordToCapture('/roto.csv')).job)).rejects.toThrow(/^el servidor respondió HTTP 500$/);
    await expect(run((await recordToCapture('/sin-aviso.csv')).job)).rejects.toThrow(/^el servidor respondió HTTP 429$/);
    expect(await hostHeldFor()).toBeLessThanOrEqual(0);
  });

  it('tries again later, and holds the host back meanwhile, when robots.txt cannot be read (503): the site did not say no', async () => {
    site.robotsStatus = 503;
    const { alexandriaId, job } = await recordToCapture('/datos.csv');
    const attempt = run(job);
    await expect(attempt).rejects.toThrow(/^no se pudo leer el robots\.txt del sitio, y sin él no se captura \(robots\.txt inalcanzable \(HTTP 503\)\)$/);
    await expect(attempt).rejects.not.toBeInstanceOf(PermanentJobError);
    expect(site.served).not.toContain('/datos.csv');
    expect((await captureOf(alexandriaId)).errorReason).toMatch(/^no se pudo leer el robots\.txt del sitio/);
    // Until robots.txt is asked again (10 minutes), the host's other captures wait rather than fail.
    const held = await hostHeldFor();
    expect(held).toBeGreaterThan(590);
    expect(held).toBeLessThanOrEqual(600);
  });

  it('tries again later, and holds the host back meanwhile, when the site cannot be reached at all (its name does not resolve)', async () => {
    const origin = `http://sin-nombre.test:${new URL(site.origin).port}`;
    const { alexandriaId, job } = await recordToCapture('/datos.csv', null, origin);
    const resolver = async (): Promise<never> => {
      throw new Error('getaddrinfo ENOTFOUND sin-nombre.test');
    };
    const attempt = run(job, { fetchOptions: { ...context.fetchOptions, resolver } });
    // The reason is the site's, not robots.txt's.
    await expect(attempt).rejects.toThrow(/^no se pudo resolver el nombre del servidor: sin-nombre\.test$/);
    await expect(attempt).rejects.not.toBeInstanceOf(PermanentJobError);
    expect((await captureOf(alexandriaId)).errorReason).toBe('no se pudo resolver el nombre del servidor: sin-nombre.test');
    // The unreachable verdict is kept 10 minutes: the host's captures wait it out rather than spend their attempts on it.
    const held = await hostHeldFor(origin);
    expect(held).toBeGreaterThan(590);
    expect(held).toBeLessThanOrEqual(600);
  });

  it("paces the host by its robots.txt Crawl-delay for the archive's crawler", async () => {
    site.robots = 'User-agent: *\nCrawl-delay: 5\n\nUser-agent: ArchivoAbierto\nCrawl-delay: 45\nDisallow: /privado/\n';
    const { alexandriaId, job } = await recordToCapture('/datos.csv');
    await run(job);
    expect(await captureOf(alexandriaId)).toMatchObject({ status: 200, errorReason: null });
    const held = await hostHeldFor();
    expect(held).toBeGreaterThan(40);
    expect(held).toBeLessThanOrEqual(45);
  });
});
