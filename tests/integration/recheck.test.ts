/**
 * Watching what was captured (issue #19), on both engines, against a server on 127.0.0.1 that
 * serves a real fixture CSV, then an edited copy (rows added and changed, a column renamed), then
 * 404s: the unchanged check is a conditional request answered 304 and records only the check; the
 * edited copy becomes v2, with v1 still stored and readable by its CID; failures spanning the
 * threshold make the URL "desaparecido en origen" while the copy stays online and served; a later
 * success clears it, each change in the record's history.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveJobHandlers } from '../../src/lib/server/background.ts';
import type { Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { alexandrias, captures, harvestedRecords, recordVersions, statusHistory } from '../../src/lib/server/db/schema.ts';
import { catalogPageFetcher, registerHarvestSource, runHarvest } from '../../src/lib/server/harvest/index.ts';
import { makeDueNow, queueDueRechecks } from '../../src/lib/server/harvest/watch.ts';
import { enqueue } from '../../src/lib/server/jobs/index.ts';
import { NextToLast } from 'blockstore-fs/sharding';
import { CID } from 'multiformats/cid';
import { auditFile } from '../../src/lib/server/fixity/audit.ts';
import { AUDIT_REASON_PREFIX } from '../../src/lib/server/fixity/reasons.ts';
import { CAPTURE_JOB, type CaptureJobPayload } from '../../src/lib/server/harvest/index.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { getRecord } from '../../src/lib/server/queries/index.ts';
import { cidOf, createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { drainJobs } from '../helpers/jobs.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { editedTourismLicences, expectedChanges } from '../helpers/table-changes.ts';

const ORIGINAL = fs.readFileSync(path.join(FIXTURES_DIR, 'files/csv/empresas-servicios-turisticos-mitur-2018-2025.csv'));

/** The edited copy: a column renamed, one row changed, two rows added. */
const editedCopy = () => editedTourismLicences(ORIGINAL);

/** A one-dataset CKAN portal whose one file the test changes, honouring conditional requests. */
interface Origin {
  url: string;
  catalog: string;
  state: 'v1' | 'v2' | 'gone' | 'soft404';
  /** Every request for the file: its conditional headers and the status answered. */
  requests: Array<{ ifNoneMatch: string | undefined; status: number }>;
  close(): Promise<void>;
}

async function startOrigin(): Promise<Origin> {
  const bodies = { v1: ORIGINAL, v2: editedCopy() };
  const origin: Origin = {
    url: '',
    catalog: '',
    state: 'v1',
    requests: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((request, response) => {
    if (request.url === '/robots.txt') return response.writeHead(404).end();
    if (request.url?.startsWith('/api/3/action/package_search')) {
      const start = Number(new URL(request.url, origin.url).searchParams.get('start') ?? 0);
      const results =
        start > 0
          ? []
          : [
              {
                id: 'turismo',
                name: 'turismo',
                title: 'Licencias de empresas turísticas',
                notes: null,
                organization: { id: 'mitur', name: 'mitur', title: 'Ministerio de Turismo (MITUR)' },
                groups: [],
                tags: [],
                resources: [{ id: 'csv', name: 'Licencias', format: 'CSV', url: `${origin.url}/files/licencias.csv` }],
              },
            ];
      response.writeHead(200, { 'Content-Type': 'application/json' });
      return response.end(JSON.stringify({ success: true, result: { count: 1, results } }));
    }
    if (request.url === '/files/licencias.csv') {
      const ifNoneMatch = request.headers['if-none-match'];
      if (origin.state === 'gone') {
        origin.requests.push({ ifNoneMatch, status: 404 });
        return response.writeHead(404).end();
      }
      if (origin.state === 'soft404') {
        // A portal's "page not found" served with a 200.
        origin.requests.push({ ifNoneMatch, status: 200 });
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return response.end('<!doctype html><html><head><title>No encontrado</title></head><body><h1>La página no existe</h1></body></html>');
      }
      const etag = `"${origin.state}"`;
      const status = ifNoneMatch === etag ? 304 : 200;
      origin.requests.push({ ifNoneMatch, status });
      if (status === 304) return response.writeHead(304, { ETag: etag }).end();
      const body = bodies[origin.state];
      response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': body.length, ETag: etag });
      return response.end(body);
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin.catalog = `${origin.url}/api/3/action/package_search`;
  return origin;
}

describe.each(testEngines())('watching a captured URL on %s', (engine) => {
  let database: TestDatabase;
  let archive: Archive;
  let origin: Origin;
  let cleanup: () => Promise<void>;
  let recordId: number;
  let v1Cid: string;
  let v2Cid: string;
  let storeDir: string;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    origin = await startOrigin();
    const blocks = await createTestStore();
    const stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    archive = {
      ...database,
      config: readConfig({ ...process.env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true', ARCHIVE_GONE_AFTER_DAYS: '3' }),
      store: blocks.store,
      staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(database.db) }),
      unready: async () => null,
      warnings: async () => [],
      markWorker: async () => {},
      pinning: [],
    };
    storeDir = blocks.dir;
    cleanup = async () => {
      await origin.close();
      await database.destroy();
      await blocks.destroy();
      await fsp.rm(stagingDir, { recursive: true, force: true });
    };
    const { harvestSource } = await registerHarvestSource(database.db, { url: origin.catalog, kind: 'ckan', name: 'Turismo' });
    const report = await runHarvest(database.db, harvestSource.id, { fetchPage: catalogPageFetcher({ allowPrivate: true }) });
    expect(report.status).toBe('done');
    await work();
    recordId = (await database.db.select({ id: alexandrias.id }).from(alexandrias))[0]!.id;
    v1Cid = (await cidOf(ORIGINAL)).cid;
    v2Cid = (await cidOf(editedCopy())).cid;
  });
  afterAll(() => cleanup?.());

  /** Runs the archive's handlers until no job is queued or running (bounded). */
  async function work(timeoutMs = 30_000): Promise<void> {
    expect(await drainJobs(database.db, archiveJobHandlers(archive), { timeoutMs, concurrency: 2 })).toEqual([]);
  }

  /** Makes the record's check due now, queues it as the schedule would, and runs it. */
  async function checkNow(): Promise<void> {
    expect(await makeDueNow(database.db, { alexandriaIds: [recordId] })).toEqual([recordId]);
    expect(await queueDueRechecks(database.db)).toBe(1);
    await work();
  }

  const watched = async () => (await database.db.select().from(harvestedRecords).where(eq(harvestedRecords.alexandriaId, recordId)))[0]!;
  const versions = () => database.db.select().from(recordVersions).where(eq(recordVersions.alexandriaId, recordId)).orderBy(asc(recordVersions.number));
  const record = async () => (await database.db.select().from(alexandrias).where(eq(alexandrias.id, recordId)))[0]!;
  const history = async () => (await database.db.select().from(statusHistory).where(eq(statusHistory.alexandriaId, recordId)).orderBy(asc(statusHistory.id))).map((row) => row.reason ?? '');
  const bytesOf = async (cid: string) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of archive.store.cat(cid)) chunks.push(chunk);
    return Buffer.concat(chunks);
  };
  const interval = async () => (await database.db.execute(sql`select extract(epoch from check_interval)::int as s from harvested_records where alexandria_id = ${recordId}`)) as unknown as { rows: Array<{ s: number }> };

  it('keeps the first capture as v1 and watches its URL from then on, daily', async () => {
    expect(await versions()).toMatchObject([{ number: 1, cid: v1Cid, size: ORIGINAL.length, diffStatus: 'none' }]);
    expect((await record()).cid).toBe(v1Cid);
    const state = await watched();
    expect(state.nextCheckAt).toBeInstanceOf(Date);
    expect((await interval()).rows[0]!.s).toBe(86_400);
  });

  it('checks an unchanged file with a conditional request: a 304, only the check recorded, the interval doubled', async () => {
    await checkNow();
    expect(origin.requests.at(-1)).toEqual({ ifNoneMatch: '"v1"', status: 304 });
    const [check] = await database.db.select().from(captures).where(eq(captures.purpose, 'recheck'));
    expect(check).toMatchObject({ status: 304, cid: v1Cid, errorReason: null });
    expect(await versions()).toHaveLength(1);
    expect((await interval()).rows[0]!.s).toBe(2 * 86_400);
    // The record page's proof stays the capture that brought the file; the check is told after it.
    const page = await getRecord(database.db, recordId);
    expect(page?.capture).toMatchObject({ status: 200, cid: v1Cid, errorReason: null });
    expect(page?.laterCheck).toMatchObject({ status: 304, cid: v1Cid, errorReason: null });
  });

  it('keeps different bytes as v2, the record pointing at the newest, v1 still stored, and says what changed', async () => {
    origin.state = 'v2';
    await checkNow();
    const [first, second] = await versions();
    expect(second).toMatchObject({ number: 2, cid: v2Cid, size: editedCopy().length, diffStatus: 'done' });
    expect(second!.diff).toMatchObject({ sizeBefore: ORIGINAL.length, sizeAfter: editedCopy().length, typeBefore: 'csv', typeAfter: 'csv' });
    // What changed, as a table, equal to an independent computation on the two texts.
    expect(second!.diff).toMatchObject({ kind: 'table', ...expectedChanges(ORIGINAL.toString('utf8'), editedCopy().toString('utf8')) });
    expect(second!.diff).toMatchObject({ columnsAdded: ['Renovaciones'], columnsRemoved: ['Renovacion'], rowsAdded: 2, rowsChanged: 1, rowsRemoved: 0 });
    expect((await record()).cid).toBe(v2Cid);
    // Both stored, byte-identical.
    expect(Buffer.compare(await bytesOf(first!.cid), ORIGINAL)).toBe(0);
    expect(Buffer.compare(await bytesOf(second!.cid), editedCopy())).toBe(0);
    expect((await history()).at(-1)).toMatch(/^Nueva versión \(v2\) capturada desde/);
    // The gateway serves the older version by its CID, as the file it is (type and name declared).
    const url = new URL(`http://archivo.test/ipfs/${v1Cid}`);
    const served = await serveFile(database.db, archive.store, readGatewayRequest(v1Cid, new Request(url), url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(Buffer.compare(Buffer.from(await served.arrayBuffer()), ORIGINAL)).toBe(0);
    // Back to daily after a change.
    expect((await interval()).rows[0]!.s).toBe(86_400);
    const page = await getRecord(database.db, recordId);
    expect(page?.capture).toMatchObject({ status: 200, cid: v2Cid });
    expect(page?.laterCheck).toBeNull();
  });

  it('counts 404s towards a disappearance only once they span the threshold, and keeps serving the copy', async () => {
    origin.state = 'gone';
    await checkNow();
    let state = await watched();
    expect(state.failingSince).toBeInstanceOf(Date);
    expect(state.goneSince).toBeNull();
    // Three days and more of failures (the database's clock decides).
    await database.db.update(harvestedRecords).set({ failingSince: sql`now() - interval '4 days'` }).where(eq(harvestedRecords.alexandriaId, recordId));
    await checkNow();
    state = await watched();
    expect(state.goneSince).toEqual(state.failingSince);
    expect((await history()).at(-1)).toMatch(/^Desaparecido en origen desde el .*: el servidor respondió HTTP 404\. El archivo conserva su copia/);
    // The moderation status is another matter: the copy stays online, and its bytes are served.
    expect(await record()).toMatchObject({ status: 'on_line', cid: v2Cid });
    expect(Buffer.compare(await bytesOf(v2Cid), editedCopy())).toBe(0);
    const failed = await database.db.select().from(captures).where(and(eq(captures.purpose, 'recheck'), eq(captures.status, 404)));
    expect(failed).toHaveLength(2);
    // Its page still shows where its bytes came from, and then the failed check.
    const page = await getRecord(database.db, recordId);
    expect(page?.capture).toMatchObject({ status: 200, cid: v2Cid, errorReason: null });
    expect(page?.laterCheck).toMatchObject({ status: 404, cid: null, errorReason: 'el servidor respondió HTTP 404' });
  });

  it('clears the disappearance at the next success, with history', async () => {
    origin.state = 'v2';
    await checkNow();
    const state = await watched();
    expect({ failing: state.failingSince, gone: state.goneSince }).toEqual({ failing: null, gone: null });
    expect((await history()).at(-1)).toMatch(/^De nuevo disponible en el origen/);
    expect(await versions()).toHaveLength(2);
    // A record a moderator blocks withdraws every version of its file from the gateway.
    await database.db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, recordId));
    const url = new URL(`http://archivo.test/ipfs/${v1Cid}`);
    await expect(serveFile(database.db, archive.store, readGatewayRequest(v1Cid, new Request(url), url))).rejects.toMatchObject({ status: 410 });
    await database.db.update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, recordId));
  });

  it('takes an error page served with a 200 where the file was for a failed check, not a new version', async () => {
    origin.state = 'soft404';
    await checkNow();
    const state = await watched();
    expect(state.failingSince).toBeInstanceOf(Date);
    expect(await versions()).toHaveLength(2);
    expect((await record()).cid).toBe(v2Cid);
    const [last] = await database.db.select().from(captures).where(eq(captures.alexandriaId, recordId)).orderBy(desc(captures.id)).limit(1);
    expect(last).toMatchObject({ purpose: 'recheck', status: 200, cid: null, errorReason: 'el origen respondió una página web donde estaba el archivo' });
    origin.state = 'v2';
    await checkNow();
    expect((await watched()).failingSince).toBeNull();
  });

  it('repairs a copy the fixity audit found damaged when the origin sends the same bytes again, giving back its status', async () => {
    // The audit's verdict: a block altered on disk, the record broken with the audit's reason.
    const { dir, file } = new NextToLast().encode(CID.parse(v2Cid));
    const blockPath = path.join(storeDir, dir, file);
    const good = await fsp.readFile(blockPath);
    const bad = Buffer.from(good);
    bad[bad.length >> 1]! ^= 0xff;
    await fsp.writeFile(blockPath, bad);
    expect((await auditFile(archive.store, v2Cid)).ok).toBe(false);
    await database.db.update(alexandrias).set({ status: 'broken' }).where(eq(alexandrias.id, recordId));
    await database.db.insert(statusHistory).values({ alexandriaId: recordId, fromStatus: 'on_line', toStatus: 'broken', reason: `${AUDIT_REASON_PREFIX} de prueba: bloque alterado.` });
    // A line that changes no status may come after it (a harvest's update): the audit's verdict stands.
    await database.db.insert(statusHistory).values({ alexandriaId: recordId, fromStatus: 'broken', toStatus: 'broken', reason: 'Actualizado desde el catálogo: descripción cambiada' });

    // What the audit queues: an unconditional capture of the same URL.
    await enqueue(database.db, { kind: CAPTURE_JOB, payload: { alexandriaId: recordId, url: `${origin.url}/files/licencias.csv`, repair: true } satisfies CaptureJobPayload, host: '127.0.0.1' });
    const asked = origin.requests.length;
    await work();
    expect(origin.requests.slice(asked)).toEqual([{ ifNoneMatch: undefined, status: 200 }]);
    expect((await auditFile(archive.store, v2Cid)).ok).toBe(true);
    expect(Buffer.compare(await bytesOf(v2Cid), editedCopy())).toBe(0);
    expect(await record()).toMatchObject({ status: 'on_line', cid: v2Cid });
    expect((await history()).at(-1)).toMatch(/^Copia reparada: el origen volvió a servir los mismos bytes/);
    expect(await versions()).toHaveLength(2);
    // The repair got the same bytes with a 200: a check after the capture that brought v2, which
    // stays the page's proof.
    const [, second] = await versions();
    const page = await getRecord(database.db, recordId);
    expect(page?.capture).toMatchObject({ status: 200, cid: v2Cid });
    const [brought] = await database.db.select({ capturedAt: captures.capturedAt }).from(captures).where(eq(captures.id, second!.captureId!));
    expect(page?.capture?.capturedAt).toEqual(brought!.capturedAt);
    expect(page?.laterCheck).toMatchObject({ status: 200, cid: v2Cid, errorReason: null });
    expect(page?.laterCheck?.capturedAt.getTime()).toBeGreaterThan(brought!.capturedAt.getTime());
  });

  it('keeps a file that changed back as a new version, and its history says which one it is like', async () => {
    origin.state = 'v1';
    await checkNow();
    const kept = await versions();
    expect(kept.map((version) => [version.number, version.cid])).toEqual([
      [1, v1Cid],
      [2, v2Cid],
      [3, v1Cid],
    ]);
    expect((await history()).at(-1)).toMatch(/^Nueva versión \(v3\) capturada desde .*: el archivo volvió a ser como en la v1 \(los mismos bytes\); las versiones anteriores siguen disponibles\.$/);
  });
});
