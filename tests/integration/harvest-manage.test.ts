/**
 * Moderators driving the harvest (issue #18, "Where people drive it"), on both engines: through
 * the REST routes under /v2/ops (the same service the page `/moderacion/cosechas` calls) a
 * moderator adds a catalogue of the local portal on 127.0.0.1, edits and pauses it, asks for a run
 * (which the queue's worker then runs, as the server's would), reads the run's counts and the
 * capture queue, sees two captures fail with their reason and URL and puts them back in the queue,
 * one by one and all at once. Everyone else is refused (401/403); bad input is a 400 in Spanish;
 * an unknown id a 404.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { APIContext } from 'astro';
import { and, eq, inArray, isNotNull, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toUser, type User } from '../../src/lib/domain/user.ts';
import { HARVEST_OPS_PATHS, openApiDocument } from '../../src/lib/server/api/openapi.ts';
import type { Db, Engine } from '../../src/lib/server/db/index.ts';
import { alexandrias, captures, categories, harvestedRecords, harvestSources, imports, jobs, sources, statusHistory } from '../../src/lib/server/db/schema.ts';
import { CAPTURE_JOB, captureHandler, HARVEST_JOB, harvestRunHandler, queueDueHarvests } from '../../src/lib/server/harvest/index.ts';
import {
  harvestSourceEdit,
  harvestSourceEditFromForm,
  newHarvestSourceFromForm,
  newHarvestSourceInput,
  themeMapFromText,
  themeMapToText,
  FAILED_CAPTURES_LIMIT,
  type CaptureQueue,
  type HarvestSourceDetail,
  type HarvestSourceSummary,
  type RunDetail,
} from '../../src/lib/server/harvest/manage.ts';
import { claim, enqueue, enqueueMany, markBegun, retryFailedMany } from '../../src/lib/server/jobs/index.ts';
import { isModerator } from '../../src/lib/server/moderation/index.ts';
import { listCatalogueSource } from '../../src/lib/server/harvest/sources.ts';
import { getGroupItem, listGroup } from '../../src/lib/server/queries/groups.ts';
import { archiveTotals } from '../../src/lib/server/queries/stats.ts';
import { createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { drainJobs } from '../helpers/jobs.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal, type PortalFile } from '../helpers/portal/index.ts';
import { portalFileBytes } from '../helpers/portal/packages.ts';
import { ALICE, MALLORY } from '../helpers/siwe.ts';

// The endpoints read the running archive; here it is the test's database.
const running = vi.hoisted(() => ({ archive: undefined as unknown }));
vi.mock('../../src/lib/server/archive.ts', () => ({ getArchive: async () => running.archive }));
const sourcesRoute = await import('../../src/pages/v2/ops/harvest-sources.ts');
const sourceRoute = await import('../../src/pages/v2/ops/harvest-sources/[id].ts');
const runRoute = await import('../../src/pages/v2/ops/harvest-sources/[id]/run.ts');
const runsRoute = await import('../../src/pages/v2/ops/harvest-sources/[id]/runs.ts');
const capturesRoute = await import('../../src/pages/v2/ops/harvest-sources/[id]/captures.ts');
const retryAllRoute = await import('../../src/pages/v2/ops/harvest-sources/[id]/captures/retry.ts');
const checkRoute = await import('../../src/pages/v2/ops/harvest-sources/[id]/captures/check.ts');
const retryJobRoute = await import('../../src/pages/v2/ops/jobs/[id]/retry.ts');

const MODERATOR = ALICE.address.toLowerCase();
/** Where the archive answers (`allowedHosts`): a catalogue there is its own. */
const ARCHIVE_HOST = 'archivo.example.org';
const moderator = toUser(ALICE.address, 'metamask');
const stranger = toUser(MALLORY.address, 'metamask');

type Route = (context: APIContext) => Response | Promise<Response>;

/** Calls an endpoint as the middleware would leave it: `user` resolved, `moderator` decided. */
async function call(
  route: Route,
  { user = moderator, id, method = 'GET', body }: { user?: User | null; id?: string | number; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: { code: number; body?: unknown; message?: string } }> {
  const request = new Request('https://archivo.example/v2/ops/harvest-sources', {
    method,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
  });
  const locals = { user, moderator: isModerator(user, [MODERATOR]) };
  const response = await route({ request, params: id === undefined ? {} : { id: String(id) }, locals } as unknown as APIContext);
  return { status: response.status, body: (await response.json()) as { code: number; body?: unknown; message?: string } };
}

describe.each(testEngines())('moderators drive the harvest on %s', (engine: Engine) => {
  let database: TestDatabase;
  let db: Db;
  let portal: LocalPortal;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  let stagingDir: string;
  let categoryIds: number[];
  let sourceId: number;
  /** The seed's own harvest source (the datos.gob.do export, paused), there before any test adds one. */
  let seededSources: Array<typeof harvestSources.$inferSelect>;
  const missing = new Map<string, PortalFile>();

  beforeAll(async () => {
    database = await createTestDatabase(engine, 'seeded');
    db = database.db;
    blocks = await createTestStore();
    stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    portal = await startLocalPortal();
    // The local portal is on 127.0.0.1, as ARCHIVE_CAPTURE_ALLOW_PRIVATE=true lets tests reach.
    running.archive = { db, config: { moderators: [MODERATOR], captureAllowPrivate: true, allowedHosts: [ARCHIVE_HOST] } };
    categoryIds = (await db.select({ id: categories.id }).from(categories).orderBy(categories.id)).map((row) => row.id);
    seededSources = await db.select().from(harvestSources);
    expect(seededSources.map((source) => [source.kind, source.paused, source.snapshotOn])).toEqual([['ckan', true, '2026-09-24']]);
  }, 120_000);

  afterAll(async () => {
    await portal?.close();
    await database?.destroy();
    await blocks?.destroy();
    if (stagingDir) await fsp.rm(stagingDir, { recursive: true, force: true });
  });

  /** Runs the queue's harvest and capture jobs until none is queued or running, as the server's worker does. */
  async function drainQueue(timeoutMs = 30_000): Promise<void> {
    const handlers = {
      [HARVEST_JOB]: harvestRunHandler({ allowPrivate: true }),
      [CAPTURE_JOB]: captureHandler({
        store: blocks.store,
        staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(database.db) }),
        allowPrivate: true,
        maxBytes: 50_000_000,
        fetchOptions: { totalTimeoutMs: 15_000, idleTimeoutMs: 5_000, headersTimeoutMs: 5_000 },
      }),
    };
    // The harvest and its captures; the sheet previews they queue are another worker's.
    await drainJobs(db, handlers, { kinds: [HARVEST_JOB, CAPTURE_JOB], timeoutMs });
  }

  it('refuses anyone who is not a moderator: 401 signed out, 403 for another wallet', async () => {
    for (const [route, method, id] of [
      [sourcesRoute.GET, 'GET', undefined],
      [sourcesRoute.POST, 'POST', undefined],
      [sourceRoute.GET, 'GET', 1],
      [sourceRoute.PATCH, 'PATCH', 1],
      [sourceRoute.DELETE, 'DELETE', 1],
      [runRoute.POST, 'POST', 1],
      [runsRoute.GET, 'GET', 1],
      [capturesRoute.GET, 'GET', 1],
      [retryAllRoute.POST, 'POST', 1],
      [checkRoute.POST, 'POST', 1],
      [retryJobRoute.POST, 'POST', 1],
    ] as Array<[Route, string, number | undefined]>) {
      const body = method === 'GET' ? undefined : { url: portal.urls.ckan, kind: 'ckan' };
      expect((await call(route, { user: null, method, id, body })).body).toEqual({ code: 401, message: 'Inicie sesión con una cartera de moderación.' });
      expect((await call(route, { user: stranger, method, id, body })).status).toBe(403);
    }
    expect(await db.select().from(harvestSources)).toEqual(seededSources);
    expect(await db.select().from(jobs)).toEqual([]);
  });

  it('refuses a catalogue address that is not http(s), or no URL at all, with a Spanish 400', async () => {
    for (const url of ['ftp://datos.gob.do/catalogo', 'datos.gob.do', 'javascript:alert(1)', '']) {
      const answer = await call(sourcesRoute.POST, { method: 'POST', body: { url, kind: 'ckan' } });
      expect(answer.status, url).toBe(400);
      expect(answer.body.message, url).toMatch(/^(La dirección del catálogo debe ser una URL http o https completa|Indique la dirección del catálogo)/);
    }
    const kind = await call(sourcesRoute.POST, { method: 'POST', body: { url: portal.urls.ckan, kind: 'sparql' } });
    expect(kind).toMatchObject({ status: 400, body: { message: 'Elija el tipo de catálogo: ckan, dcat o datajson.' } });
    const interval = await call(sourcesRoute.POST, { method: 'POST', body: { url: portal.urls.ckan, kind: 'ckan', interval: 'cada hora' } });
    expect(interval.body.message).toBe('Elija la frecuencia: diaria, semanal o mensual.');
    const category = await call(sourcesRoute.POST, { method: 'POST', body: { url: portal.urls.ckan, kind: 'ckan', defaultCategoryId: 987_654 } });
    expect(category).toMatchObject({ status: 400, body: { message: 'La categoría 987654 no existe.', issues: [{ field: 'defaultCategoryId' }] } });
    // A field a new source does not take is named, not dropped in silence.
    const unknown = await call(sourcesRoute.POST, { method: 'POST', body: { url: portal.urls.ckan, kind: 'ckan', frecuencia: 'semanal' } });
    expect(unknown).toMatchObject({
      status: 400,
      body: { message: 'No se admite el campo «frecuencia»: solo url, kind, name, defaultCategoryId, interval, themeMap, defaultLanguage, defaultCountry y paused.' },
    });
    const notBoolean = await call(sourcesRoute.POST, { method: 'POST', body: { url: portal.urls.ckan, kind: 'ckan', paused: 'sí' } });
    expect(notBoolean).toMatchObject({ status: 400, body: { message: 'paused debe ser true o false.' } });
    const notJson = await call(sourcesRoute.POST, { method: 'POST', body: '{no es json' });
    expect(notJson).toMatchObject({ status: 400, body: { message: 'El cuerpo de la petición debe ser JSON.' } });
    expect(await db.select().from(harvestSources)).toEqual(seededSources);
  });

  it('registers a source paused, which the schedule leaves alone until it is resumed', async () => {
    // Nothing listens at 127.0.0.1:7: nothing is fetched whatever happens.
    const added = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:7/pausada/data.json', kind: 'datajson', paused: true } });
    expect(added.status).toBe(201);
    const source = added.body.body as HarvestSourceDetail;
    expect(source).toMatchObject({ paused: true, lastRun: null, activeRun: null });
    try {
      // Nothing else is due here (the seed's copy is never harvested again): none queued at all.
      expect(await queueDueHarvests(db)).toEqual([]);
      expect(await db.$count(jobs, sql`(${jobs.payload}->>'harvestSourceId')::int = ${source.id}`)).toBe(0);
      // Resumed, it is due at once: it never ran.
      expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: source.id, body: { paused: false } })).status).toBe(200);
      expect(await queueDueHarvests(db)).toEqual([source.id]);
    } finally {
      await db.delete(jobs).where(sql`(${jobs.payload}->>'harvestSourceId')::int = ${source.id}`);
      expect((await call(sourceRoute.DELETE, { method: 'DELETE', id: source.id })).status).toBe(200);
    }
  });

  it('refuses a catalogue at an address the archive will not read, its own, or with a name and password, with a Spanish 400', async () => {
    const config = (running.archive as { config: { captureAllowPrivate: boolean } }).config;
    config.captureAllowPrivate = false;
    try {
      for (const [url, where] of [
        [portal.urls.ckan, '127.0.0.1 (bucle local)'],
        ['http://localhost:8080/api/3/action/package_search', 'localhost (bucle local)'],
        ['http://10.0.0.5/catalogo.jsonld', '10.0.0.5 (red privada)'],
        ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (servicio de metadatos de la nube)'],
      ]) {
        const answer = await call(sourcesRoute.POST, { method: 'POST', body: { url, kind: 'ckan' } });
        expect(answer, url).toMatchObject({
          status: 400,
          body: { message: `La dirección del catálogo apunta a ${where}: el archivo no lee catálogos de direcciones privadas, locales o reservadas.` },
        });
      }
    } finally {
      config.captureAllowPrivate = true;
    }
    // Allowed private addresses are the archive's own network, never a cloud's metadata service.
    const metadata = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://169.254.169.254/', kind: 'ckan' } });
    expect(metadata.status).toBe(400);
    // The archive's own catalogue would come back as copies of every record, and the copies of those the next run.
    for (const url of [`https://${ARCHIVE_HOST}/catalog.jsonld`, `http://${ARCHIVE_HOST}/catalog.ttl?page=2`, `https://${ARCHIVE_HOST.toUpperCase()}.:443/catalog.jsonld`]) {
      const own = await call(sourcesRoute.POST, { method: 'POST', body: { url, kind: 'dcat' } });
      expect(own, url).toMatchObject({
        status: 400,
        body: {
          message: `La dirección del catálogo es la del propio archivo (${new URL(url).host}): cosecharlo archivaría de nuevo cada uno de sus registros, y en la cosecha siguiente también esas copias.`,
        },
      });
    }
    const credentials = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'https://usuario:clave@datos.example.org/', kind: 'ckan' } });
    expect(credentials).toMatchObject({
      status: 400,
      body: { message: 'La dirección del catálogo no puede llevar usuario ni contraseña: el archivo solo cosecha catálogos públicos.' },
    });
    expect(await db.select().from(harvestSources)).toEqual(seededSources);
  });

  it('answers 404 in Spanish for a source or job that does not exist', async () => {
    for (const [route, method] of [
      [sourceRoute.GET, 'GET'],
      [sourceRoute.PATCH, 'PATCH'],
      [sourceRoute.DELETE, 'DELETE'],
      [runRoute.POST, 'POST'],
      [runsRoute.GET, 'GET'],
      [capturesRoute.GET, 'GET'],
      [retryAllRoute.POST, 'POST'],
      [checkRoute.POST, 'POST'],
    ] as Array<[Route, string]>) {
      for (const id of [424_242, 'abc']) {
        const answer = await call(route, { method, id, body: method === 'PATCH' ? { paused: true } : undefined });
        expect(answer.body, `${method} ${String(id)}`).toEqual({ code: 404, message: 'Esa fuente de cosecha no existe.' });
      }
    }
    expect((await call(retryJobRoute.POST, { method: 'POST', id: 424_242 })).body).toEqual({ code: 404, message: 'Ese trabajo no existe.' });
  });

  it("refuses to run or resume the seed's export, a copy of the catalogue kept with the archive (409), and leaves it as it was", async () => {
    const [seeded] = seededSources;
    const expected = `«${seeded!.name}» es una copia del catálogo tomada el 24/09/2026 y guardada con el archivo, no un catálogo en línea: no se vuelve a cosechar. Para seguir el portal, añada la dirección de su API como una fuente de cosecha propia.`;
    expect(await call(runRoute.POST, { method: 'POST', id: seeded!.id })).toEqual({ status: 409, body: { code: 409, message: expected } });
    expect(await call(sourceRoute.PATCH, { method: 'PATCH', id: seeded!.id, body: { paused: false } })).toEqual({ status: 409, body: { code: 409, message: expected } });
    // Renaming it is no run: allowed.
    const renamed = await call(sourceRoute.PATCH, { method: 'PATCH', id: seeded!.id, body: { name: `${seeded!.name} ` } });
    expect(renamed.status).toBe(200);
    expect((renamed.body.body as HarvestSourceDetail).snapshotOn).toBe('2026-09-24');
    await call(sourceRoute.PATCH, { method: 'PATCH', id: seeded!.id, body: { name: seeded!.name } });
    expect(await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, HARVEST_JOB))).toEqual([]);
    const [after] = await db.select({ paused: harvestSources.paused, snapshotOn: harvestSources.snapshotOn }).from(harvestSources).where(eq(harvestSources.id, seeded!.id));
    expect(after).toEqual({ paused: true, snapshotOn: '2026-09-24' });
  });

  it('adds a CKAN catalogue with its schedule and default category, once', async () => {
    const added = await call(sourcesRoute.POST, {
      method: 'POST',
      body: { url: portal.urls.ckan, kind: 'ckan', name: '  Portal local de prueba ', interval: 'semanal', defaultCategoryId: categoryIds[0] },
    });
    expect(added.status).toBe(201);
    const source = added.body.body as HarvestSourceDetail;
    sourceId = source.id;
    expect(source).toMatchObject({
      name: 'Portal local de prueba',
      url: new URL(portal.urls.ckan).href,
      kind: 'ckan',
      paused: false,
      interval: 'semanal',
      defaultCategory: { id: categoryIds[0] },
      records: 0,
      lastRun: null,
      activeRun: null,
      captures: { counts: { queued: 0, running: 0, done: 0, failed: 0 }, failed: [], failedTotal: 0 },
    });
    const listed = (await call(sourcesRoute.GET)).body.body as HarvestSourceSummary[];
    // Newest first, then the seed's export.
    expect(listed.map((item) => [item.id, item.interval])).toEqual([[sourceId, 'semanal'], [seededSources[0]!.id, 'diaria']]);

    const again = await call(sourcesRoute.POST, { method: 'POST', body: { url: portal.urls.ckan, kind: 'dcat' } });
    expect(again).toMatchObject({ status: 409, body: { message: `Ya existe una fuente de cosecha para ese catálogo: «Portal local de prueba», en ${new URL(portal.urls.ckan).href}.` } });
    // The same CKAN catalogue by its API's address (as `npm run harvest` is shown it) is the same source.
    const byApi = await call(sourcesRoute.POST, { method: 'POST', body: { url: `${portal.urls.ckan}/api/3/action/package_search`, kind: 'ckan' } });
    expect(byApi).toMatchObject({ status: 409, body: { message: `Ya existe una fuente de cosecha para ese catálogo: «Portal local de prueba», en ${new URL(portal.urls.ckan).href}.` } });
    expect(await db.select({ id: harvestSources.id }).from(harvestSources)).toHaveLength(2);
  });

  it('edits the name, schedule, default category and theme map, and pauses the source', async () => {
    const edited = await call(sourceRoute.PATCH, {
      method: 'PATCH',
      id: sourceId,
      body: { name: 'Portal local', interval: 'mensual', defaultCategoryId: categoryIds[1], themeMap: { salud: categoryIds[2] }, paused: true },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toMatchObject({ name: 'Portal local', interval: 'mensual', paused: true, defaultCategory: { id: categoryIds[1] }, themeMap: { salud: categoryIds[2] } });
    const [row] = await db.select({ paused: harvestSources.paused }).from(harvestSources).where(eq(harvestSources.id, sourceId));
    expect(row?.paused).toBe(true);

    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: {} })).body).toMatchObject({ code: 400, message: 'No hay nada que cambiar.' });
    // A field that cannot change is named, not taken for nothing to change.
    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { kind: 'dcat' } })).body).toMatchObject({
      code: 400,
      message: 'El tipo de un catálogo registrado no se cambia: registre el catálogo de otro tipo como una fuente nueva (y pause esta).',
    });
    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { bogus: 1, name: 'Portal local' } })).body).toMatchObject({
      code: 400,
      message: 'No se admite el campo «bogus»: solo name, url, defaultCategoryId, interval, themeMap, defaultLanguage, defaultCountry y paused.',
    });
    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { bogus: 1, otro: 2 } })).body).toMatchObject({ code: 400, message: expect.stringMatching(/^No se admiten los campos «bogus», «otro»: solo /) });
    // Reported against the field that names it: a form shows the message beside the theme map.
    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { themeMap: { salud: 987_654 } } })).body).toMatchObject({
      code: 400,
      message: 'La categoría 987654 no existe.',
      issues: [{ field: 'themeMap', message: 'La categoría 987654 no existe.' }],
    });
    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { name: '   ' } })).body).toMatchObject({ code: 400, message: 'Indique un nombre.' });
    // The default category back to none.
    const cleared = await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { defaultCategoryId: null, themeMap: {} } });
    expect(cleared.body.body).toMatchObject({ defaultCategory: null, themeMap: {} });
    expect(cleared.body.body).toMatchObject({ interval: 'mensual', intervalLabel: 'Mensual' });
    // An interval set in the database by hand is told in Spanish, not in the engine's words («1 day 12:00:00»).
    await db.update(harvestSources).set({ interval: sql`interval '36 hours'` }).where(eq(harvestSources.id, sourceId));
    expect((await call(sourceRoute.GET, { id: sourceId })).body.body).toMatchObject({ interval: null, intervalLabel: 'Cada 36 horas' });
    await db.update(harvestSources).set({ interval: sql`interval '1 month'` }).where(eq(harvestSources.id, sourceId));
  });

  it('runs a paused source now, one run at a time, and shows its counts, progress and capture queue', async () => {
    // Two of the portal's files are gone when the archive comes to capture them.
    for (const [id, file] of [...portal.files].slice(0, 2)) {
      missing.set(id, file);
      portal.files.delete(id);
    }
    const first = await call(runRoute.POST, { method: 'POST', id: sourceId });
    expect(first.status).toBe(202);
    const { jobId } = first.body.body as { jobId: number; created: boolean };
    // A second click while it waits makes no second run.
    expect((await call(runRoute.POST, { method: 'POST', id: sourceId })).body).toEqual({ code: 200, body: { jobId, created: false } });
    const waiting = (await call(sourceRoute.GET, { id: sourceId })).body.body as HarvestSourceDetail;
    expect(waiting.activeRun).toMatchObject({ jobId, status: 'queued', requestedBy: MODERATOR });

    await drainQueue();

    const files = portal.packages.flatMap((pkg) => pkg.resources).length;
    const source = (await call(sourceRoute.GET, { id: sourceId })).body.body as HarvestSourceDetail;
    expect(source.activeRun).toBeNull();
    expect(source.records).toBe(files);
    // The two captures that failed for good count as the run's failures, each with its reason.
    expect(source.lastRun).toMatchObject({ status: 'done', documents: files, requestedBy: MODERATOR, errorCount: 2, counts: { new: files, updated: 0, unchanged: 0, withdrawn: 0, failed: 2 } });

    const runs = (await call(runsRoute.GET, { id: sourceId })).body.body as RunDetail[];
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: source.lastRun!.id, status: 'done' });
    expect(runs[0]!.errors).toHaveLength(2);
    for (const error of runs[0]!.errors) expect(error).toEqual({ key: expect.stringContaining('/files/'), record: expect.any(Number), message: expect.stringMatching(/^captura: .*404/) });

    // A later check of a captured URL (the watch's, issue #19) is not a capture of the harvest.
    const [watchedRecord] = await db.select({ id: harvestedRecords.alexandriaId, url: harvestedRecords.distributionUrl }).from(harvestedRecords).limit(1);
    await enqueue(db, { kind: CAPTURE_JOB, payload: { alexandriaId: watchedRecord!.id, url: watchedRecord!.url, recheck: true }, dedupeKey: `recheck:${watchedRecord!.id}:1` });
    const queue = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    expect(queue.counts).toEqual({ queued: 0, running: 0, done: files - 2, failed: 2 });
    await db.delete(jobs).where(eq(jobs.dedupeKey, `recheck:${watchedRecord!.id}:1`));

    // A capture a worker holds while it waits for its host's turn is still «En cola»; only one
    // whose work began is «Capturando».
    const held = await db
      .select({ id: harvestedRecords.alexandriaId, url: harvestedRecords.distributionUrl })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(and(eq(harvestedRecords.harvestSourceId, sourceId), isNotNull(alexandrias.cid)))
      .limit(3);
    await enqueueMany(db, held.map((record) => ({ kind: CAPTURE_JOB, payload: { alexandriaId: record.id, url: record.url }, host: 'cola.test', dedupeKey: `capture:espera:${record.id}` })));
    try {
      const claimed = await claim(db, { worker: 'prueba', kinds: [CAPTURE_JOB], limit: 2, leaseMs: 60_000, perHostConcurrency: 4, perHostDelayMs: 0 });
      expect(claimed).toHaveLength(2);
      await markBegun(db, claimed.slice(0, 1));
      const waitingTurn = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
      expect(waitingTurn.counts).toEqual({ queued: 2, running: 1, done: files - 2, failed: 2 });
    } finally {
      await db.delete(jobs).where(sql`${jobs.dedupeKey} like 'capture:espera:%'`);
    }
    expect(queue.failedTotal).toBe(2);
    const missingUrls = [...missing.keys()].map((id) => expect.stringContaining(`/files/${id}/`));
    expect(queue.failed.map((failure) => failure.url)).toEqual(expect.arrayContaining(missingUrls));
    for (const failure of queue.failed) expect(failure.reason).toMatch(/404/);
  });

  it('counts a file that keeps failing once: retried, its run counts it once; failed in the next run too, it is listed once', async () => {
    const before = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    const [one] = before.failed;
    const firstRun = ((await call(sourceRoute.GET, { id: sourceId })).body.body as HarvestSourceDetail).lastRun!;
    // Retried while its file is still missing: it fails again, and its run still counts 2 failures.
    expect((await call(retryJobRoute.POST, { method: 'POST', id: one!.jobId })).status).toBe(200);
    await drainQueue();
    const [rerun] = (await call(runsRoute.GET, { id: sourceId })).body.body as RunDetail[];
    expect(rerun).toMatchObject({ id: firstRun.id, counts: { failed: 2 } });
    expect(rerun!.errors).toHaveLength(2);

    // The next run tries both files again, and fails them again: each is still one failed capture.
    expect((await call(runRoute.POST, { method: 'POST', id: sourceId })).status).toBe(202);
    await drainQueue();
    const [secondRun] = (await call(runsRoute.GET, { id: sourceId })).body.body as RunDetail[];
    expect(secondRun).toMatchObject({ counts: { failed: 2 } });
    // Moderators read what it read; the public timeline, what it imported: nothing new or changed.
    expect(secondRun!.documents).toBe(firstRun.documents);
    expect(secondRun!.counts).toMatchObject({ new: 0, updated: 0, unchanged: firstRun.documents });
    const [publicRun] = await db.select({ documents: imports.documents }).from(imports).where(eq(imports.id, secondRun!.id));
    expect(publicRun!.documents).toBe(0);
    expect(secondRun!.id).not.toBe(firstRun.id);
    const queue = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    expect(queue.failedTotal).toBe(2);
    expect(queue.counts.failed).toBe(2);
    expect(new Set(queue.failed.map((failure) => failure.alexandriaId)).size).toBe(2);
    expect(queue.failed.map((failure) => failure.alexandriaId).sort()).toEqual(before.failed.map((failure) => failure.alexandriaId).sort());
  });

  it('counts two records whose files share one missing URL as two failures of their run', async () => {
    // Catalogues do link one file from two datasets (the real Dominican sample does): both records stay without it.
    const [run] = await db.insert(imports).values({ type: 'harvest', status: 'done' }).returning({ id: imports.id });
    const records = await db
      .insert(alexandrias)
      .values([0, 1].map((index) => ({ title: `Nómina compartida ${index}`, type: 'csv' as const, status: 'under_review' as const })))
      .returning({ id: alexandrias.id });
    const url = `${portal.urls.ckan}/files/no-existe/nomina.csv`;
    const queued = await enqueueMany(database.db, records.map(({ id }) => ({ kind: CAPTURE_JOB, payload: { alexandriaId: id, url, importId: run!.id }, dedupeKey: `capture:${id}` })));
    try {
      await drainQueue();
      const failures = async () => (await db.select({ failed: imports.documentsFailed, errors: imports.errors }).from(imports).where(eq(imports.id, run!.id)))[0]!;
      expect((await failures()).failed).toBe(2);
      expect((await failures()).errors).toHaveLength(2);
      // Retried and failed again, each is still one failure of the run.
      expect(await retryFailedMany(database.db, queued.map(({ job }) => job.id))).toBe(2);
      await drainQueue();
      expect((await failures()).failed).toBe(2);
      // A failure noted before failures named their record is this record's too: a retry adds nothing.
      await db.update(imports).set({ documentsFailed: 1, errors: [{ key: url, message: 'captura: el servidor respondió HTTP 404' }] }).where(eq(imports.id, run!.id));
      expect(await retryFailedMany(database.db, [queued[0]!.job.id])).toBe(1);
      await drainQueue();
      expect((await failures()).failed).toBe(1);
    } finally {
      await db.delete(jobs).where(inArray(jobs.id, queued.map(({ job }) => job.id)));
      await db.delete(captures).where(inArray(captures.alexandriaId, records.map((record) => record.id)));
      await db.delete(alexandrias).where(inArray(alexandrias.id, records.map((record) => record.id)));
    }
  });

  it('lists the records whose captured bytes wait for a moderator, with how they differ from what was declared', async () => {
    const empty = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    expect({ heldForReview: empty.heldForReview, heldForReviewTotal: empty.heldForReviewTotal }).toEqual({ heldForReview: [], heldForReviewTotal: 0 });
    const cid = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku';
    const [record] = await db.insert(alexandrias).values({ title: 'Nómina que es una página', type: 'other', status: 'under_review', cid }).returning({ id: alexandrias.id });
    try {
      await db.insert(harvestedRecords).values({ alexandriaId: record!.id, harvestSourceId: sourceId, datasetIdentifier: 'pagina', distributionKey: 'pagina', distributionUrl: 'https://p.example/nomina.xls' });
      const mismatch = 'el catálogo declara XLS y el contenido es HTML o XML';
      // An earlier failure, then the capture that brought the kept bytes: the latter says why.
      await db.insert(captures).values({ alexandriaId: record!.id, requestedUrl: 'https://p.example/nomina.xls', errorReason: 'HTTP 503' });
      await db.insert(captures).values({ alexandriaId: record!.id, requestedUrl: 'https://p.example/nomina.xls', finalUrl: 'https://p.example/nomina.xls?x=1', status: 200, cid, size: 10, mismatch });
      const queue = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
      expect(queue.heldForReviewTotal).toBe(1);
      expect(queue.heldForReview).toEqual([{ alexandriaId: record!.id, title: 'Nómina que es una página', cid, url: 'https://p.example/nomina.xls?x=1', mismatch, capturedAt: expect.any(String) }]);
      // Put online by a moderator: no longer waiting.
      await db.update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, record!.id));
      expect(((await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue).heldForReviewTotal).toBe(0);
    } finally {
      await db.delete(captures).where(eq(captures.alexandriaId, record!.id));
      await db.delete(alexandrias).where(eq(alexandrias.id, record!.id));
    }
  });

  it('leaves out the failed capture of a record its catalogue withdrew, and refuses to retry it', async () => {
    const before = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    expect(before.failedTotal).toBe(2);
    const [withdrawn, kept] = before.failed;
    await db.update(harvestedRecords).set({ withdrawnAt: new Date() }).where(eq(harvestedRecords.alexandriaId, withdrawn!.alexandriaId));
    try {
      const queue = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
      expect(queue.failed.map((failure) => failure.alexandriaId)).toEqual([kept!.alexandriaId]);
      expect({ failedTotal: queue.failedTotal, failed: queue.counts.failed }).toEqual({ failedTotal: 1, failed: 1 });
      expect((await call(retryJobRoute.POST, { method: 'POST', id: withdrawn!.jobId })).body).toEqual({
        code: 409,
        message: 'El catálogo ya no da ese archivo en esa dirección: su captura no se reintenta. Si vuelve a darlo, la próxima cosecha lo capturará.',
      });
      const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, withdrawn!.jobId));
      expect(job!.status).toBe('failed');
    } finally {
      await db.update(harvestedRecords).set({ withdrawnAt: null }).where(eq(harvestedRecords.alexandriaId, withdrawn!.alexandriaId));
    }
  });

  it('retries a failed capture, then all the others; a capture that did not fail, or a run, is refused', async () => {
    for (const [id, file] of missing) portal.files.set(id, file);
    const before = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    const [one, other] = before.failed;

    expect((await call(retryJobRoute.POST, { method: 'POST', id: one!.jobId })).body).toEqual({ code: 200, body: { jobId: one!.jobId } });
    expect((await call(retryJobRoute.POST, { method: 'POST', id: one!.jobId })).body).toEqual({ code: 409, message: 'Esa captura no ha fallado: no hay nada que reintentar.' });
    const [harvestJob] = await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, HARVEST_JOB));
    expect((await call(retryJobRoute.POST, { method: 'POST', id: harvestJob!.id })).status).toBe(409);

    // "Reintentar todas" finds only the other: the first is queued again already.
    expect((await call(retryAllRoute.POST, { method: 'POST', id: sourceId })).body).toEqual({ code: 200, body: { retried: 1 } });
    await drainQueue();

    const after = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    expect(after.failed).toEqual([]);
    expect(after.failedTotal).toBe(0);
    const recovered = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(inArray(alexandrias.id, [one!.alexandriaId, other!.alexandriaId]));
    expect(recovered.every((record) => record.cid?.startsWith('baf'))).toBe(true);
    expect((await call(retryAllRoute.POST, { method: 'POST', id: sourceId })).body).toEqual({ code: 200, body: { retried: 0 } });
  });

  it('checks every captured file the catalogue still lists at its origin now, and a changed one gets its new version', async () => {
    const listed = await db
      .select({ id: harvestedRecords.alexandriaId, url: harvestedRecords.distributionUrl })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(and(eq(harvestedRecords.harvestSourceId, sourceId), isNotNull(alexandrias.cid), isNotNull(harvestedRecords.distributionUrl), sql`${alexandrias.status} <> 'blocked'`));
    expect(listed.length).toBeGreaterThan(1);
    // One withdrawn from the catalogue: kept, and not asked for.
    const [withdrawn, changed] = listed;
    await db.update(harvestedRecords).set({ withdrawnAt: new Date() }).where(eq(harvestedRecords.alexandriaId, withdrawn!.id));
    // Another changed at its origin, the catalogue saying nothing.
    const resourceId = [...portal.files.keys()].find((id) => changed!.url!.includes(id))!;
    const file = portal.files.get(resourceId)!;
    const edited = { ...file, suffix: `${file.suffix ?? ''}\ncambiado en el origen` };
    const bytes = portalFileBytes(edited);
    // Its declared length too: the portal sends the size it is given as Content-Length.
    portal.files.set(resourceId, { ...edited, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    const [{ cid: before }] = (await db.select({ cid: alexandrias.cid }).from(alexandrias).where(eq(alexandrias.id, changed!.id))) as [{ cid: string }];
    try {
      expect((await call(checkRoute.POST, { method: 'POST', id: sourceId })).body).toEqual({ code: 200, body: { checks: listed.length - 1 } });
      const queued = await db.select({ payload: jobs.payload }).from(jobs).where(and(eq(jobs.kind, CAPTURE_JOB), like(jobs.dedupeKey, 'recheck:%'), eq(jobs.status, 'queued')));
      const asked = queued.map((job) => (job.payload as { alexandriaId: number }).alexandriaId);
      expect(new Set(asked)).toEqual(new Set(listed.slice(1).map((record) => record.id)));
      await drainQueue();
      const [after] = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(eq(alexandrias.id, changed!.id));
      expect(after!.cid).not.toBe(before);
    } finally {
      portal.files.set(resourceId, file);
      await db.update(harvestedRecords).set({ withdrawnAt: null }).where(eq(harvestedRecords.alexandriaId, withdrawn!.id));
    }
  });

  it('counts every failed capture, and lists the newest up to its limit, each once', async () => {
    // More failures than the list shows: records of the source still without a file, each a failed capture.
    const extra = FAILED_CAPTURES_LIMIT + 3;
    const records = await db
      .insert(alexandrias)
      .values(Array.from({ length: extra }, (_, index) => ({ title: `Archivo caído ${index}`, type: 'csv' as const, status: 'under_review' as const })))
      .returning({ id: alexandrias.id });
    await db
      .insert(harvestedRecords)
      .values(records.map(({ id }) => ({ alexandriaId: id, harvestSourceId: sourceId, datasetIdentifier: `caido-${id}`, distributionKey: `caido-${id}`, distributionUrl: `https://caido.example/${id}.csv` })));
    const failedJobs = await db
      .insert(jobs)
      .values(records.map(({ id }) => ({ kind: CAPTURE_JOB, payload: { alexandriaId: id, url: `https://caido.example/${id}.csv` }, dedupeKey: `capture:${id}`, status: 'failed' as const, attempts: 5, lastError: 'HTTP 404' })))
      .returning({ id: jobs.id });
    try {
      const queue = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
      expect(queue.failedTotal).toBe(extra);
      expect(queue.counts.failed).toBe(extra);
      const newest = failedJobs.map((job) => job.id).sort((a, b) => b - a).slice(0, FAILED_CAPTURES_LIMIT);
      expect(queue.failed.map((failure) => failure.jobId)).toEqual(newest);
      expect(Object.keys(queue.failed[0]!).sort()).toEqual(['alexandriaId', 'attempts', 'failedAt', 'jobId', 'reason', 'title', 'url']);
      // Retried by a moderator, and failed again: the attempts before the retry still count.
      const [newestJob] = newest;
      await retryFailedMany(db, [newestJob!]);
      await db.update(jobs).set({ status: 'failed', attempts: 2, finishedAt: sql`now()` }).where(eq(jobs.id, newestJob!));
      const retried = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
      expect(retried.failed.find((failure) => failure.jobId === newestJob)?.attempts).toBe(7);
      expect(retried.failed.filter((failure) => failure.jobId !== newestJob).every((failure) => failure.attempts === 5)).toBe(true);
    } finally {
      await db.delete(jobs).where(inArray(jobs.id, failedJobs.map((job) => job.id)));
      await db.delete(alexandrias).where(inArray(alexandrias.id, records.map((record) => record.id)));
    }
    const none = (await call(capturesRoute.GET, { id: sourceId })).body.body as CaptureQueue;
    expect({ failed: none.failed, failedTotal: none.failedTotal }).toEqual({ failed: [], failedTotal: 0 });
  });

  it("renames a source where its name shows: its records' provenance and the archive's source made for it", async () => {
    const [current] = await db.select().from(harvestSources).where(eq(harvestSources.id, sourceId));
    const recordIds = (await db.select({ id: harvestedRecords.alexandriaId }).from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, sourceId))).map((row) => row.id);
    expect(recordIds.length).toBeGreaterThan(0);
    const notes = async () => (await db.select({ note: alexandrias.provenanceNote }).from(alexandrias).where(inArray(alexandrias.id, recordIds))).map((row) => row.note);
    expect((await notes()).every((note) => note?.startsWith(`Metadatos cosechados del catálogo «${current!.name}» (`))).toBe(true);

    const renamed = await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { name: 'Portal del Ministerio' } });
    expect(renamed.status).toBe(200);
    expect((await notes()).every((note) => note?.startsWith('Metadatos cosechados del catálogo «Portal del Ministerio» ('))).toBe(true);
    const [archiveSource] = await db.select({ name: sources.name }).from(sources).where(eq(sources.id, current!.sourceId!));
    expect(archiveSource!.name).toBe('Portal del Ministerio');
    await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { name: current!.name } });
    expect((await notes()).every((note) => note?.startsWith(`Metadatos cosechados del catálogo «${current!.name}» (`))).toBe(true);

    // Not while a run is queued or under way: what it adds would carry the name it read.
    expect((await call(runRoute.POST, { method: 'POST', id: sourceId })).status).toBe(202);
    const refused = await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { name: 'Otro nombre' } });
    expect(refused).toMatchObject({ status: 409, body: { message: expect.stringMatching(/^Hay una cosecha de esta fuente en cola o en curso/) } });
    // Other settings can change meanwhile.
    expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: sourceId, body: { interval: 'mensual' } })).status).toBe(200);
    await drainQueue();
    expect((await notes()).every((note) => note?.startsWith(`Metadatos cosechados del catálogo «${current!.name}» (`))).toBe(true);
  });

  it('moves a source to a new address: its records stay its own, their notes and its source say where, and a run there adds none', async () => {
    const [current] = await db.select().from(harvestSources).where(eq(harvestSources.id, sourceId));
    const recordIds = (await db.select({ id: harvestedRecords.alexandriaId }).from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, sourceId))).map((row) => row.id);
    expect(recordIds.length).toBeGreaterThan(0);
    const notes = async () => (await db.select({ note: alexandrias.provenanceNote }).from(alexandrias).where(inArray(alexandrias.id, recordIds))).map((row) => row.note);
    const archiveSource = async () => (await db.select({ url: sources.url, description: sources.description }).from(sources).where(eq(sources.id, current!.sourceId!)))[0];
    const before = await archiveSource();
    expect(before!.description).toBe(`Catálogo público cosechado por el archivo: ${current!.url}`);
    const patch = (body: unknown, id: number = sourceId) => call(sourceRoute.PATCH, { method: 'PATCH', id, body });

    // Refused as a new catalogue's address would be, and nothing changes.
    const [seeded] = seededSources;
    expect(await patch({ url: seeded!.url })).toMatchObject({ status: 409, body: { message: `Ya existe una fuente de cosecha para ese catálogo: «${seeded!.name}», en ${seeded!.url}.` } });
    const own = await patch({ url: `https://${ARCHIVE_HOST}/catalog.jsonld` });
    expect(own).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^La dirección del catálogo es la del propio archivo/) } });
    expect((await patch({ url: 'ftp://datos.gob.do/catalogo' })).body.message).toMatch(/^La dirección del catálogo debe ser una URL http o https completa/);
    // The seed's export is a copy, read from nowhere again.
    expect(await patch({ url: 'https://datos.gob.do/' }, seeded!.id)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/es una copia del catálogo/) } });
    // Not while a run is queued or under way: what it adds would carry the address it read.
    expect((await call(runRoute.POST, { method: 'POST', id: sourceId })).status).toBe(202);
    expect(await patch({ url: `${portal.urls.ckan}/api/3/action/package_search` })).toMatchObject({
      status: 409,
      body: { message: 'Hay una cosecha de esta fuente en cola o en curso: cambie la dirección cuando termine, para que sus registros nuevos lleven la dirección nueva.' },
    });
    await drainQueue();
    expect((await db.select({ url: harvestSources.url }).from(harvestSources).where(eq(harvestSources.id, sourceId)))[0]!.url).toBe(current!.url);

    // The catalogue by its API's address: where its name and address show, the new address.
    const moved = new URL(`${portal.urls.ckan}/api/3/action/package_search`).href;
    const answer = await patch({ url: moved });
    expect(answer.status).toBe(200);
    expect(answer.body.body).toMatchObject({ id: sourceId, url: moved, name: current!.name });
    expect((await notes()).every((note) => note?.startsWith(`Metadatos cosechados del catálogo «${current!.name}» (${moved}).`))).toBe(true);
    expect(await archiveSource()).toEqual({ url: before!.url, description: `Catálogo público cosechado por el archivo: ${moved}` });
    // Read there, the catalogue's datasets are the source's records already: none new, none withdrawn.
    expect((await call(runRoute.POST, { method: 'POST', id: sourceId })).status).toBe(202);
    await drainQueue();
    const run = ((await call(sourceRoute.GET, { id: sourceId })).body.body as HarvestSourceDetail).lastRun!;
    expect(run).toMatchObject({ status: 'done', counts: { new: 0, withdrawn: 0, failed: 0 } });
    expect(run.counts.unchanged + run.counts.updated).toBe(recordIds.length);
    expect(await db.select({ id: harvestedRecords.alexandriaId }).from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, sourceId))).toHaveLength(recordIds.length);
    // The old spelling is now this source's too: added again, it is refused with the new address.
    expect(await call(sourcesRoute.POST, { method: 'POST', body: { url: current!.url, kind: 'ckan' } })).toMatchObject({
      status: 409,
      body: { message: `Ya existe una fuente de cosecha para ese catálogo: «${current!.name}», en ${moved}.` },
    });

    // Back, renamed at once: both show.
    expect((await patch({ url: current!.url, name: 'Portal vuelto' })).status).toBe(200);
    expect((await notes()).every((note) => note?.startsWith(`Metadatos cosechados del catálogo «Portal vuelto» (${current!.url}).`))).toBe(true);
    expect((await patch({ name: current!.name })).status).toBe(200);
    expect(await archiveSource()).toEqual(before);
  });

  it('moves a catalogue registered over http to https, with the source made for it unless another catalogue files records there', async () => {
    const http = 'http://127.0.0.2:9/movido/data.json';
    const https = 'https://127.0.0.2:9/movido/data.json';
    const shared = ['http://127.0.0.3:9/data.json', 'http://127.0.0.3:9/catalog.jsonld'];
    const patch = (id: number, url: string) => call(sourceRoute.PATCH, { method: 'PATCH', id, body: { url } });
    const archiveSource = async (origin: string) => (await db.select({ description: sources.description }).from(sources).where(eq(sources.url, origin)))[0];
    try {
      const added = await call(sourcesRoute.POST, { method: 'POST', body: { url: http, kind: 'datajson', name: 'Portal que pasó a https' } });
      expect(added.status).toBe(201);
      const id = (added.body.body as HarvestSourceDetail).id;
      // Where the archive does not read private addresses, a catalogue cannot move to one.
      const config = (running.archive as { config: { captureAllowPrivate: boolean } }).config;
      config.captureAllowPrivate = false;
      try {
        expect((await patch(id, 'http://10.0.0.7/data.json')).body).toMatchObject({ code: 400, message: expect.stringMatching(/^La dirección del catálogo apunta a .*privadas, locales o reservadas\.$/) });
      } finally {
        config.captureAllowPrivate = true;
      }
      expect(await patch(id, https)).toMatchObject({ status: 200, body: { body: { url: https } } });
      expect(await call(sourcesRoute.POST, { method: 'POST', body: { url: http, kind: 'datajson' } })).toMatchObject({
        status: 409,
        body: { message: `Ya existe una fuente de cosecha para ese catálogo: «Portal que pasó a https», en ${https}.` },
      });
      // The source the archive made for it follows it; none is left at the old origin.
      expect(await archiveSource('https://127.0.0.2:9')).toEqual({ description: `Catálogo público cosechado por el archivo: ${https}` });
      expect(await archiveSource('http://127.0.0.2:9')).toBeUndefined();

      // Two catalogues of one site file their records under one source: one moving leaves it where it is.
      const ids: number[] = [];
      for (const [index, url] of shared.entries()) {
        const answer = await call(sourcesRoute.POST, { method: 'POST', body: { url, kind: index === 0 ? 'datajson' : 'dcat', name: `Catálogo ${index}` } });
        expect(answer.status).toBe(201);
        ids.push((answer.body.body as HarvestSourceDetail).id);
      }
      expect((await patch(ids[0]!, 'https://127.0.0.3:9/data.json')).status).toBe(200);
      expect(await archiveSource('http://127.0.0.3:9')).toEqual({ description: `Catálogo público cosechado por el archivo: ${shared[0]}` });
      expect(await archiveSource('https://127.0.0.3:9')).toBeUndefined();
    } finally {
      await db.delete(harvestSources).where(inArray(harvestSources.url, [http, https, ...shared, 'https://127.0.0.3:9/data.json']));
      await db.delete(sources).where(inArray(sources.url, ['http://127.0.0.2:9', 'https://127.0.0.2:9', 'http://127.0.0.3:9', 'https://127.0.0.3:9']));
    }
  });

  it('files a catalogue under its own name when a mistaken address on its site came first and never brought a record', async () => {
    // Nothing listens at 127.0.0.1:9: the first address never yields a record.
    const wrong = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:9/html', kind: 'ckan', name: 'Portal HTML' } });
    expect(wrong.status).toBe(201);
    const wrongId = (wrong.body.body as HarvestSourceDetail).id;
    const siteSource = async () => (await db.select({ name: sources.name, description: sources.description }).from(sources).where(eq(sources.url, 'http://127.0.0.1:9')))[0];
    // Not run yet: a catalogue registered beside it leaves its source as it is.
    await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:9/otra', kind: 'datajson', name: 'Otra' } });
    expect((await siteSource())!.name).toBe('Portal HTML');
    await db.delete(harvestSources).where(eq(harvestSources.url, 'http://127.0.0.1:9/otra'));
    // Run, and failed: the next catalogue on the site takes the source it left empty.
    expect((await call(runRoute.POST, { method: 'POST', id: wrongId })).status).toBe(202);
    await drainQueue();
    expect(((await call(sourceRoute.GET, { id: wrongId })).body.body as HarvestSourceDetail).lastRun).toMatchObject({ status: 'failed' });
    const right = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:9/', kind: 'ckan', name: 'Portal del Ministerio' } });
    expect(right.status).toBe(201);
    expect(await siteSource()).toEqual({ name: 'Portal del Ministerio', description: 'Catálogo público cosechado por el archivo: http://127.0.0.1:9/' });
    // A source that holds records keeps its name: the seed's, here.
    const [seedSource] = await db.select({ name: sources.name }).from(sources).where(eq(sources.id, seededSources[0]!.sourceId!));
    await call(sourcesRoute.POST, { method: 'POST', body: { url: 'https://datos.gob.do/', kind: 'ckan', name: 'Otro nombre' } });
    expect((await db.select({ name: sources.name }).from(sources).where(eq(sources.id, seededSources[0]!.sourceId!)))[0]).toEqual(seedSource);
    await db.delete(harvestSources).where(inArray(harvestSources.url, ['http://127.0.0.1:9/html', 'http://127.0.0.1:9/', 'https://datos.gob.do/']));
  });

  it('lists the source made for a catalogue only once the catalogue brings a record: a wrong address adds no empty public source', async () => {
    const listed = async (url: string) => {
      const [source] = await db.select({ id: sources.id }).from(sources).where(eq(sources.url, url));
      const item = await getGroupItem(db, 'src', source!.id);
      const inList = (await listGroup(db, 'src', 1, { q: 'Catálogo que espera' })).items.some((entry) => entry.id === source!.id);
      expect(inList).toBe(item !== null);
      return item !== null;
    };
    const sourcesCounted = async () => (await archiveTotals(db)).sources;
    const before = await sourcesCounted();
    // Nothing listens at 127.0.0.1:5: run, and failed, its source stays unlisted and uncounted.
    const wrong = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:5/data.json', kind: 'datajson', name: 'Catálogo que espera (mal escrito)' } });
    expect(wrong.status).toBe(201);
    const wrongId = (wrong.body.body as HarvestSourceDetail).id;
    expect(await listed('http://127.0.0.1:5')).toBe(false);
    expect((await call(runRoute.POST, { method: 'POST', id: wrongId })).status).toBe(202);
    await drainQueue();
    expect(((await call(sourceRoute.GET, { id: wrongId })).body.body as HarvestSourceDetail)).toMatchObject({ lastRun: { status: 'failed' }, sourceListed: false });
    expect(await listed('http://127.0.0.1:5')).toBe(false);
    expect(await sourcesCounted()).toBe(before);

    // A catalogue on a site of its own that answers: unlisted until its run files its records.
    const other = await startLocalPortal();
    try {
      const origin = new URL(other.urls.ckan).origin;
      // A wrong address on the same site, registered first and never run, makes the site's source:
      // the source still goes public under the name of the catalogue whose records it lists.
      const mistaken = await call(sourcesRoute.POST, { method: 'POST', body: { url: `${origin}/no-es-un-catalogo/`, kind: 'ckan' } });
      expect(mistaken.status).toBe(201);
      const right = await call(sourcesRoute.POST, { method: 'POST', body: { url: other.urls.ckan, kind: 'ckan', name: 'Catálogo que espera (bueno)' } });
      expect(right.status).toBe(201);
      expect(await listed(origin)).toBe(false);
      expect((await call(runRoute.POST, { method: 'POST', id: (right.body.body as HarvestSourceDetail).id })).status).toBe(202);
      await drainQueue(60_000);
      expect(await listed(origin)).toBe(true);
      const [shown] = await db.select({ name: sources.name, description: sources.description }).from(sources).where(eq(sources.url, origin));
      expect(shown).toEqual({ name: 'Catálogo que espera (bueno)', description: `Catálogo público cosechado por el archivo: ${new URL(other.urls.ckan).href}` });
      await db.delete(harvestSources).where(eq(harvestSources.id, (mistaken.body.body as HarvestSourceDetail).id));
      expect(((await call(sourceRoute.GET, { id: (right.body.body as HarvestSourceDetail).id })).body.body as HarvestSourceDetail).sourceListed).toBe(true);
      expect(await sourcesCounted()).toBe(before + 1);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('publishes a source a moderator renamed while it waited under the name they gave it, not the catalogue\'s', async () => {
    const [source] = await db
      .insert(sources)
      .values({ name: 'Portal renombrado por la moderación', url: 'https://renombrado.example', description: 'Catálogo público cosechado por el archivo: https://renombrado.example/', awaitingHarvest: true })
      .returning();
    const [catalogue] = await db.insert(harvestSources).values({ url: 'https://renombrado.example/', kind: 'ckan', name: 'renombrado.example', sourceId: source!.id }).returning();
    await db.transaction((tx) => listCatalogueSource(tx, catalogue!));
    const [listed] = await db.select({ name: sources.name, awaiting: sources.awaitingHarvest }).from(sources).where(eq(sources.id, source!.id));
    expect(listed).toEqual({ name: 'Portal renombrado por la moderación', awaiting: false });
    await db.delete(harvestSources).where(eq(harvestSources.id, catalogue!.id));
    await db.delete(sources).where(eq(sources.id, source!.id));
  });

  it('migration 0048 (written to run again) leaves unlisted only the empty sources the archive made for a catalogue', async () => {
    const made = (url: string) => ({ name: `Hecha para ${url}`, url, description: `Catálogo público cosechado por el archivo: ${url}/data.json` });
    const [empty, filled, plain] = await db
      .insert(sources)
      .values([made('http://127.0.0.1:31'), made('http://127.0.0.1:32'), { name: 'Fuente de una persona', url: 'http://127.0.0.1:33', description: 'Catálogo público cosechado por el archivo: en sus palabras' }])
      .returning({ id: sources.id });
    await db.insert(harvestSources).values([
      { url: 'http://127.0.0.1:31/data.json', kind: 'datajson', name: 'Vacía', sourceId: empty!.id },
      { url: 'http://127.0.0.1:32/data.json', kind: 'datajson', name: 'Con registro', sourceId: filled!.id },
    ]);
    await db.insert(alexandrias).values({ title: 'Registro de la fuente con registro', type: 'csv', status: 'under_review', sourceId: filled!.id });
    try {
      const migration = await fsp.readFile(path.join(import.meta.dirname, '../../drizzle/0048_source_awaiting_harvest.sql'), 'utf8');
      for (const statement of migration.split('--> statement-breakpoint')) await db.execute(sql.raw(statement));
      const flags = await db.select({ id: sources.id, awaiting: sources.awaitingHarvest }).from(sources).where(inArray(sources.id, [empty!.id, filled!.id, plain!.id]));
      expect(Object.fromEntries(flags.map((row) => [row.id, row.awaiting]))).toEqual({ [empty!.id]: true, [filled!.id]: false, [plain!.id]: false });
    } finally {
      await db.delete(alexandrias).where(eq(alexandrias.sourceId, filled!.id));
      await db.delete(harvestSources).where(inArray(harvestSources.sourceId, [empty!.id, filled!.id]));
      await db.delete(sources).where(inArray(sources.id, [empty!.id, filled!.id, plain!.id]));
    }
  });

  it('deletes a source registered by mistake, with its runs, its queued run and the source made for it; refuses one with records or a run under way', async () => {
    // Nothing listens at 127.0.0.1:7: the address never yields a record.
    const mistake = async (file: string) => {
      const added = await call(sourcesRoute.POST, { method: 'POST', body: { url: `http://127.0.0.1:7/${file}`, kind: 'datajson', name: `Equivocada ${file}` } });
      expect(added.status).toBe(201);
      return (added.body.body as HarvestSourceDetail).id;
    };
    const wrongId = await mistake('data.json');
    expect((await call(runRoute.POST, { method: 'POST', id: wrongId })).status).toBe(202);
    await drainQueue();
    expect(((await call(sourceRoute.GET, { id: wrongId })).body.body as HarvestSourceDetail).lastRun).toMatchObject({ status: 'failed' });
    // Another run waits in the queue, as the schedule would leave one.
    expect((await call(runRoute.POST, { method: 'POST', id: wrongId })).status).toBe(202);
    const ofSource = (id: number) => sql`(${jobs.payload}->>'harvestSourceId')::int = ${id}`;
    expect(await db.$count(imports, eq(imports.harvestSourceId, wrongId))).toBe(1);
    expect(await db.$count(sources, eq(sources.url, 'http://127.0.0.1:7'))).toBe(1);

    expect((await call(sourceRoute.DELETE, { user: stranger, method: 'DELETE', id: wrongId })).status).toBe(403);
    expect(await call(sourceRoute.DELETE, { method: 'DELETE', id: wrongId })).toEqual({ status: 200, body: { code: 200, body: { id: wrongId, deleted: true } } });
    expect(await db.$count(harvestSources, eq(harvestSources.id, wrongId))).toBe(0);
    expect(await db.$count(imports, eq(imports.harvestSourceId, wrongId))).toBe(0);
    expect(await db.$count(jobs, ofSource(wrongId))).toBe(0);
    // The public source the archive made for it goes too: nothing else is filed there.
    expect(await db.$count(sources, eq(sources.url, 'http://127.0.0.1:7'))).toBe(0);
    expect(await call(sourceRoute.DELETE, { method: 'DELETE', id: wrongId })).toEqual({ status: 404, body: { code: 404, message: 'Esa fuente de cosecha no existe.' } });

    // A source whose catalogue gave records stays, and so does everything of it.
    const recordsBefore = await db.$count(harvestedRecords, eq(harvestedRecords.harvestSourceId, sourceId));
    expect(recordsBefore).toBeGreaterThan(0);
    expect(await call(sourceRoute.DELETE, { method: 'DELETE', id: sourceId })).toEqual({
      status: 409,
      body: { code: 409, message: 'Esta fuente ya trajo registros: no se elimina, para que conserven su procedencia. Pausarla detiene sus cosechas.' },
    });
    expect(await db.$count(harvestedRecords, eq(harvestedRecords.harvestSourceId, sourceId))).toBe(recordsBefore);
    // So does one whose run a worker has begun, with its queued run and source.
    const busyId = await mistake('otro.json');
    expect((await call(runRoute.POST, { method: 'POST', id: busyId })).status).toBe(202);
    const claimed = await claim(db, { worker: 'prueba', kinds: [HARVEST_JOB], limit: 1, leaseMs: 60_000 });
    expect(claimed.map((job) => (job.payload as { harvestSourceId: number }).harvestSourceId)).toEqual([busyId]);
    expect(await call(sourceRoute.DELETE, { method: 'DELETE', id: busyId })).toEqual({
      status: 409,
      body: { code: 409, message: 'Hay una cosecha de esta fuente en curso: podrá eliminarla cuando termine.' },
    });
    expect(await db.$count(harvestSources, eq(harvestSources.id, busyId))).toBe(1);
    expect(await db.$count(jobs, ofSource(busyId))).toBe(1);
    await db.delete(jobs).where(ofSource(busyId));
    // A run under way with no job to show for it (read by a direct call, or its worker lost its lease) counts too.
    const [reading] = await db.insert(imports).values({ type: 'harvest', status: 'in_progress', harvestSourceId: busyId }).returning({ id: imports.id });
    expect((await call(sourceRoute.DELETE, { method: 'DELETE', id: busyId })).status).toBe(409);
    await db.delete(imports).where(eq(imports.id, reading!.id));
    expect((await call(sourceRoute.DELETE, { method: 'DELETE', id: busyId })).status).toBe(200);
    // The seed's copy of a catalogue is kept with the archive.
    const [seeded] = seededSources;
    expect(await call(sourceRoute.DELETE, { method: 'DELETE', id: seeded!.id })).toEqual({
      status: 409,
      body: { code: 409, message: `«${seeded!.name}» es una copia del catálogo guardada con el archivo: no se elimina.` },
    });
  });

  it('keeps the public source a deleted harvest source leaves while another catalogue files there, or once a moderator described it in their own words', async () => {
    const add = async (file: string) => {
      const added = await call(sourcesRoute.POST, { method: 'POST', body: { url: `http://127.0.0.1:6/${file}`, kind: 'datajson', name: `Sitio seis ${file}` } });
      expect(added.status).toBe(201);
      return added.body.body as HarvestSourceDetail;
    };
    const first = await add('a.json');
    const second = await add('b.json');
    expect(second.sourceId).toBe(first.sourceId);
    expect((await call(sourceRoute.DELETE, { method: 'DELETE', id: first.id })).status).toBe(200);
    // The other catalogue of the site still files its records there.
    expect(await db.$count(sources, eq(sources.id, first.sourceId))).toBe(1);
    await db.update(sources).set({ description: 'Portal de datos del sitio seis, descrito por la moderación.' }).where(eq(sources.id, second.sourceId));
    expect((await call(sourceRoute.DELETE, { method: 'DELETE', id: second.id })).status).toBe(200);
    // No longer the archive's description of a catalogue: a moderator's source, which stays.
    expect(await db.$count(sources, eq(sources.id, second.sourceId))).toBe(1);
    await db.delete(sources).where(eq(sources.id, second.sourceId));
  });

  it("names a catalogue added without a name after its host, and after its path too when the host's name is taken on the site", async () => {
    const urls = ['http://127.0.0.1:9/catalog.jsonld', 'http://127.0.0.1:9/data.json', 'http://127.0.0.1:9/datos/data.json?formato=completo'];
    const names: string[] = [];
    for (const [index, url] of urls.entries()) {
      const answer = await call(sourcesRoute.POST, { method: 'POST', body: { url, kind: index === 0 ? 'dcat' : 'datajson' } });
      expect(answer.status, url).toBe(201);
      names.push((answer.body.body as HarvestSourceDetail).name);
    }
    expect(names).toEqual(['127.0.0.1:9', '127.0.0.1:9/data.json', '127.0.0.1:9/datos/data.json?formato=completo']);
    // The site's root, whose path adds nothing to its host, is numbered rather than named twice.
    const root = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:9/', kind: 'ckan' } });
    expect((root.body.body as HarvestSourceDetail).name).toBe('127.0.0.1:9 (2)');
    await db.delete(harvestSources).where(inArray(harvestSources.url, [...urls, 'http://127.0.0.1:9/']));
  });

  it('takes a catalogue added over https after http as the one registered, and names an unnamed one apart from the other scheme\'s', async () => {
    const unnamed = ['http://127.0.0.1:9/data.json', 'https://127.0.0.1:9/catalog.jsonld'];
    try {
      const first = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'http://127.0.0.1:9/api/3/action/package_search', kind: 'ckan', name: 'Portal por http' } });
      expect(first.status).toBe(201);
      const again = await call(sourcesRoute.POST, { method: 'POST', body: { url: 'https://127.0.0.1:9/', kind: 'ckan' } });
      expect(again).toMatchObject({
        status: 409,
        body: { message: 'Ya existe una fuente de cosecha para ese catálogo: «Portal por http», en http://127.0.0.1:9/api/3/action/package_search.' },
      });
      const names: string[] = [];
      for (const url of unnamed) {
        const answer = await call(sourcesRoute.POST, { method: 'POST', body: { url, kind: url.endsWith('.json') ? 'datajson' : 'dcat' } });
        expect(answer.status, url).toBe(201);
        names.push((answer.body.body as HarvestSourceDetail).name);
      }
      expect(names).toEqual(['127.0.0.1:9', '127.0.0.1:9/catalog.jsonld']);
    } finally {
      await db.delete(harvestSources).where(inArray(harvestSources.url, ['http://127.0.0.1:9/api/3/action/package_search', ...unnamed]));
    }
  });

  it('registers one source when a catalogue is added over http and https at the same moment', async () => {
    const spellings = ['http://127.0.0.1:9/api/3/action/package_search', 'https://127.0.0.1:9/api/3/action/package_search'];
    try {
      const answers = await Promise.all(spellings.map((url) => call(sourcesRoute.POST, { method: 'POST', body: { url, kind: 'ckan', name: 'Portal por los dos' } })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
      expect(await db.select({ url: harvestSources.url }).from(harvestSources).where(inArray(harvestSources.url, spellings))).toHaveLength(1);
    } finally {
      await db.delete(harvestSources).where(inArray(harvestSources.url, spellings));
    }
  });

  it('registers one source when two spellings of a new catalogue are added at the same moment', async () => {
    const spellings = ['http://127.0.0.1:9/', 'http://127.0.0.1:9/api/3/action/package_search?rows=50', 'http://127.0.0.1:9/api/action/package_search'];
    const answers = await Promise.all(spellings.map((url) => call(sourcesRoute.POST, { method: 'POST', body: { url, kind: 'ckan', name: 'Portal a la vez' } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409]);
    const registered = await db.select({ url: harvestSources.url }).from(harvestSources).where(inArray(harvestSources.url, spellings));
    expect(registered).toHaveLength(1);
    await db.delete(harvestSources).where(inArray(harvestSources.url, spellings));
  });

  it("gives the datasets of a catalogue that declares no language or area the source's, and a dataset's own declaration comes first", async () => {
    const EU = 'http://publications.europa.eu/resource/authority';
    const silent = await startLocalPortal();
    try {
      // One dataset of the sample declares its own language, as ckanext-dcat's extras do.
      const english = silent.packages[0]!;
      english.extras = [...((english.extras as unknown[]) ?? []), { key: 'language', value: 'en' }];
      const added = await call(sourcesRoute.POST, {
        method: 'POST',
        body: { url: silent.urls.ckan, kind: 'ckan', name: 'Portal sin idioma', defaultLanguage: 'es', defaultCountry: 'dom' },
      });
      expect(added.status).toBe(201);
      const source = added.body.body as HarvestSourceDetail;
      expect(source).toMatchObject({ defaultLanguage: 'es', defaultCountry: 'DOM' });
      expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: source.id, body: { defaultLanguage: 'klingon' } })).body).toMatchObject({
        code: 400,
        message: 'Idioma desconocido: elija uno de la lista, o un código como «es».',
      });
      expect((await call(sourceRoute.PATCH, { method: 'PATCH', id: source.id, body: { defaultCountry: 'XYZ' } })).body).toMatchObject({
        code: 400,
        message: 'País desconocido: elija uno de la lista, o un código ISO de tres letras como «DOM».',
      });

      const facts = async () =>
        db
          .select({ dataset: harvestedRecords.datasetIdentifier, languages: alexandrias.languages, spatial: alexandrias.spatial })
          .from(harvestedRecords)
          .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
          .where(eq(harvestedRecords.harvestSourceId, source.id));
      const run = async () => {
        expect((await call(runRoute.POST, { method: 'POST', id: source.id })).status).toBe(202);
        await drainQueue();
        return ((await call(sourceRoute.GET, { id: source.id })).body.body as HarvestSourceDetail).lastRun!;
      };
      await run();
      const first = await facts();
      expect(first.length).toBeGreaterThan(1);
      for (const row of first) {
        expect(row.languages).toEqual([row.dataset === english.id ? `${EU}/language/ENG` : `${EU}/language/SPA`]);
        expect(row.spatial).toEqual([`${EU}/country/DOM`]);
      }

      // Taken back: the datasets say nothing again.
      const cleared = await call(sourceRoute.PATCH, { method: 'PATCH', id: source.id, body: { defaultLanguage: null, defaultCountry: '' } });
      expect(cleared.body.body).toMatchObject({ defaultLanguage: null, defaultCountry: null });
      const again = await run();
      expect(again.counts).toMatchObject({ new: 0, updated: first.length, unchanged: 0 });
      for (const row of await facts()) {
        expect(row.languages).toEqual(row.dataset === english.id ? [`${EU}/language/ENG`] : []);
        expect(row.spatial).toEqual([]);
      }

      // Given again: the history of a dataset that declares none says the source's settings did it, not its catalogue.
      await call(sourceRoute.PATCH, { method: 'PATCH', id: source.id, body: { defaultLanguage: 'es', defaultCountry: 'DOM' } });
      await run();
      const lines = await db
        .select({ dataset: harvestedRecords.datasetIdentifier, reason: statusHistory.reason })
        .from(statusHistory)
        .innerJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, statusHistory.alexandriaId))
        .where(and(eq(harvestedRecords.harvestSourceId, source.id), like(statusHistory.reason, 'Actualizado%')))
        .orderBy(statusHistory.id);
      const last = (dataset: string) => lines.filter((line) => line.dataset === dataset).at(-1)?.reason;
      const silentOne = first.find((row) => row.dataset !== english.id)!.dataset;
      expect(last(silentOne)).toBe('Actualizado según los ajustes de su fuente de cosecha: idioma de los datos; país que cubren');
      // The English one keeps its own language: only its area came from the settings.
      expect(last(english.id)).toBe('Actualizado según los ajustes de su fuente de cosecha: país que cubren');
    } finally {
      await silent.close();
    }
  });

  it('reads the page forms: empty fields, the theme map by category title, and lines it cannot read', async () => {
    const choices = [
      { id: 7, title: 'Salud' },
      { id: 9, title: 'Economía y Finanzas' },
    ];
    const text = 'salud = Salud\n\n  Presupuesto público = economia y finanzas  \ngroup-42 = 9\n';
    const map = themeMapFromText(text, choices);
    expect(map).toEqual({ salud: 7, 'Presupuesto público': 9, 'group-42': 9 });
    expect(themeMapToText(map, choices)).toBe('salud = Salud\nPresupuesto público = Economía y Finanzas\ngroup-42 = Economía y Finanzas');
    expect(() => themeMapFromText('salud Salud', choices)).toThrow('Línea 1 del mapa de temas: escriba «tema = Categoría».');
    expect(() => themeMapFromText('salud = Salud\neducación = Educación', choices)).toThrow('Línea 2 del mapa de temas: no hay ninguna categoría «Educación».');

    const form = new FormData();
    form.set('url', ' https://datos.gob.do ');
    form.set('kind', 'ckan');
    form.set('name', '');
    form.set('defaultCategoryId', '');
    form.set('interval', 'diaria');
    const parsed = newHarvestSourceInput.parse(newHarvestSourceFromForm(form, choices));
    expect(parsed).toEqual({ url: 'https://datos.gob.do', kind: 'ckan', defaultCategoryId: null, interval: 'diaria', paused: false });
    // «Crearla pausada», ticked: the box is sent.
    form.set('paused', '1');
    expect(newHarvestSourceInput.parse(newHarvestSourceFromForm(form, choices))).toMatchObject({ paused: true });

    const edit = new FormData();
    edit.set('name', 'Datos abiertos');
    edit.set('defaultCategoryId', '9');
    edit.set('interval', 'semanal');
    edit.set('themeMap', 'salud = Salud');
    expect(harvestSourceEditFromForm(edit, choices)).toEqual({ name: 'Datos abiertos', defaultCategoryId: 9, interval: 'semanal', themeMap: { salud: 7 } });
    // «Sin indicar» is none; a choice is its code.
    edit.set('defaultLanguage', '');
    edit.set('defaultCountry', 'DOM');
    expect(harvestSourceEdit.parse(harvestSourceEditFromForm(edit, choices))).toMatchObject({ defaultLanguage: '', defaultCountry: 'DOM' });
    edit.delete('defaultLanguage');
    edit.delete('defaultCountry');
    edit.set('url', ' https://datos.gob.do/api/3/action/package_search ');
    expect(harvestSourceEdit.parse(harvestSourceEditFromForm(edit, choices))).toMatchObject({ url: 'https://datos.gob.do/api/3/action/package_search' });
  });
});

describe('the harvest routes in the OpenAPI document', () => {
  it('documents each route with exactly the methods its file answers', async () => {
    const document = openApiDocument('https://archivo.test');
    const pages = path.resolve(import.meta.dirname, '../../src/pages');
    for (const [route, spec] of Object.entries(HARVEST_OPS_PATHS)) {
      expect(document.paths).toHaveProperty([route]);
      const module = (await import(path.join(pages, `${route.replace('{id}', '[id]')}.ts`))) as Record<string, unknown>;
      const answered = Object.keys(module).filter((name) => /^[A-Z]+$/.test(name)).sort();
      expect(answered, route).toEqual(Object.keys(spec).map((method) => method.toUpperCase()).sort());
    }
    const added = document.paths['/v2/ops/harvest-sources'].post.requestBody.content['application/json'].schema as { properties: Record<string, unknown> };
    expect(Object.keys(added.properties)).toEqual(Object.keys(newHarvestSourceInput.shape));
  });
});
