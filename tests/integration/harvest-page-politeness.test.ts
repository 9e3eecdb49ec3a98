/**
 * The catalogue's pages are fetched as politely as its files (src/lib/server/harvest/fetch-page.ts),
 * on both engines, against a catalogue on 127.0.0.1: a site in front of the local portal that can
 * answer 429, 502 or 503 first, with or without `Retry-After`, and serve any robots.txt. A run
 * waits what the site asks and completes; holds the host's captures back meanwhile (`job_hosts`);
 * fails with the reason when the site asks too long a wait, when robots.txt keeps it out, or
 * after its retries; and ends at once when stopped during a wait.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/lib/server/db/index.ts';
import { imports } from '../../src/lib/server/db/schema.ts';
import { catalogPageFetcher, type CatalogPageFetcherOptions } from '../../src/lib/server/harvest/fetch-page.ts';
import { harvestRunHandler, queueHarvestRun, registerHarvestSource, runHarvest, RUN_ERROR_KEY } from '../../src/lib/server/harvest/index.ts';
import { politenessKey } from '../../src/lib/server/jobs/hosts.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';

/** An answer the site gives a catalogue page instead of the page. */
interface Refusal {
  status: number;
  retryAfter?: string;
  /** A redirect's target. */
  location?: string;
}

/** The site in front of the portal: its robots.txt, and refusals given before the real pages. */
interface Site {
  origin: string;
  robots: string | null;
  /** The status robots.txt answers with instead of its text (a 500: the site cannot say). */
  robotsStatus: number | null;
  refusals: Refusal[];
  /** Every request's path and query, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function startSite(portal: LocalPortal): Promise<Site> {
  const site: Omit<Site, 'origin' | 'close'> = { robots: null, robotsStatus: null, refusals: [], requests: [] };
  const server = http.createServer((request, response) => {
    const target = request.url ?? '/';
    site.requests.push(target);
    if (target === '/robots.txt') {
      if (site.robotsStatus !== null) return void response.writeHead(site.robotsStatus).end('Error');
      if (site.robots === null) return void response.writeHead(404).end();
      return void response.writeHead(200, { 'Content-Type': 'text/plain' }).end(site.robots);
    }
    const refusal = site.refusals.shift();
    if (refusal) {
      const headers = { ...(refusal.retryAfter === undefined ? {} : { 'Retry-After': refusal.retryAfter }), ...(refusal.location === undefined ? {} : { Location: refusal.location }) };
      return void response.writeHead(refusal.status, headers).end('Ahora no');
    }
    // The page itself, as the portal serves it.
    fetch(`${portal.origin}${target}`, { signal: AbortSignal.timeout(10_000) }).then(
      async (answer) => response.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' }).end(await answer.text()),
      () => response.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(site, {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The database's clock, in seconds since the epoch: what `job_hosts` times are measured against. */
async function databaseNow(db: Db): Promise<number> {
  const result = (await db.execute(sql`select extract(epoch from now())::float8 as now`)) as unknown as { rows: Array<{ now: number }> };
  return Number(result.rows[0]!.now);
}

/** Until when (seconds since the epoch) the host's captures are held back; null: never held back. */
async function heldUntil(db: Db, origin: string): Promise<number | null> {
  const result = (await db.execute(
    sql`select extract(epoch from next_allowed_at)::float8 as until from job_hosts where host = ${politenessKey(origin)}`,
  )) as unknown as { rows: Array<{ until: number }> };
  return result.rows[0] ? Number(result.rows[0].until) : null;
}

/** How long from now the host's captures are held back, in seconds (null: never held back). */
async function heldBackSeconds(db: Db, origin: string): Promise<number | null> {
  const result = (await db.execute(
    sql`select extract(epoch from next_allowed_at - now())::float8 as seconds from job_hosts where host = ${politenessKey(origin)}`,
  )) as unknown as { rows: Array<{ seconds: number }> };
  return result.rows[0]?.seconds ?? null;
}

const packageSearches = (site: Site) => site.requests.filter((path) => path.startsWith('/api/3/action/package_search'));

describe.each(testEngines())('catalogue pages fetched politely, on %s', (engine) => {
  let database: TestDatabase;
  let portal: LocalPortal;
  let site: Site;
  let harvestSourceId: number;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    portal = await startLocalPortal();
    site = await startSite(portal);
    ({
      harvestSource: { id: harvestSourceId },
    } = await registerHarvestSource(database.db, { url: site.origin, kind: 'ckan', name: 'Portal cortés' }));
  });
  afterAll(async () => {
    await site?.close();
    await portal?.close();
    await database?.destroy();
  });
  beforeEach(async () => {
    site.robots = null;
    site.robotsStatus = null;
    site.refusals = [];
    site.requests = [];
    // No job names the site (the catalogue's files are the portal's): its row can go.
    await database.db.execute(sql`delete from job_hosts where host = ${politenessKey(site.origin)}`);
  });

  /** One run with a fetcher of the catalogue under `options` (127.0.0.1 allowed), timed. */
  async function timedRun(options: CatalogPageFetcherOptions = {}, signal?: AbortSignal) {
    const started = performance.now();
    const report = await runHarvest(database.db, harvestSourceId, { fetchPage: catalogPageFetcher({ allowPrivate: true, ...options }), signal });
    return { report, seconds: (performance.now() - started) / 1000 };
  }

  it('waits what a 429 asks, holding the host back for captures, and asks the same page again (a run of the job queue)', async () => {
    site.refusals = [{ status: 429, retryAfter: '1' }];
    const { job } = await queueHarvestRun(database.db, harvestSourceId, 'prueba');
    // The least a busy host is held back: longer than the wait, so that it is still seen afterwards.
    const handler = harvestRunHandler({ allowPrivate: true, hostDelayMs: 30_000 });
    const started = performance.now();
    await handler(job, { db: database.db, signal: new AbortController().signal });
    const seconds = (performance.now() - started) / 1000;

    const [run] = await database.db.select().from(imports).where(eq(imports.jobId, job.id));
    expect(run).toMatchObject({ status: 'done', documents: portal.packages.flatMap((pkg) => pkg.resources).length });
    expect(seconds).toBeGreaterThanOrEqual(0.95);
    // robots.txt first, then the page twice: refused, and asked again after the wait.
    expect(site.requests[0]).toBe('/robots.txt');
    expect(packageSearches(site)).toHaveLength(2);
    expect(new Set(packageSearches(site)).size).toBe(1);
    expect(await heldBackSeconds(database.db, site.origin)).toBeGreaterThan(20);
  });

  it('fails the run, naming the wait, when the site asks longer than a page is waited for; its captures still wait', async () => {
    site.refusals = [{ status: 503, retryAfter: '5' }];
    const { report, seconds } = await timedRun({ db: database.db, retry: { maxWaitMs: 2_000 } });
    expect(report.status).toBe('failed');
    expect(report.errors).toEqual([
      {
        key: RUN_ERROR_KEY,
        message: expect.stringContaining(`(${site.origin}/api/3/action/package_search?rows=100&start=0): El catálogo respondió HTTP 503 y pidió esperar 5 s, más de los 2 s que el archivo espera por una página`),
      },
    ]);
    expect(seconds).toBeLessThan(2);
    expect(packageSearches(site)).toHaveLength(1);
    const held = await heldBackSeconds(database.db, site.origin);
    expect(held).toBeGreaterThan(3);
    expect(held).toBeLessThanOrEqual(5);
  });

  it('says what a page answered, and where, only when that is not the address the run reports', async () => {
    const fetchPage = catalogPageFetcher({ allowPrivate: true, hostDelayMs: 0 });
    const page = `${site.origin}/api/3/action/package_search?rows=100&start=0`;
    site.refusals = [{ status: 404 }];
    await expect(fetchPage(page)).rejects.toThrow(/^El catálogo respondió HTTP 404: no hay nada en esa dirección$/);
    site.refusals = [{ status: 301, location: '/movido' }, { status: 410 }];
    await expect(fetchPage(page)).rejects.toThrow(new RegExp(`^El catálogo respondió HTTP 410 en ${site.origin}/movido: no hay nada en esa dirección$`));
  });

  it("never reads a page at the archive's own address, asked or reached by a redirect", async () => {
    const page = `${site.origin}/api/3/action/package_search?rows=100&start=0`;
    const ownSite = catalogPageFetcher({ allowPrivate: true, hostDelayMs: 0, ownHosts: [new URL(site.origin).host] });
    const asked = site.requests.length;
    await expect(ownSite(page)).rejects.toThrow(`La dirección es la del propio archivo (${new URL(site.origin).host}): cosecharlo archivaría de nuevo`);
    expect(site.requests.length).toBe(asked);
    // A catalogue elsewhere whose page sends to the archive.
    const ownPortal = catalogPageFetcher({ allowPrivate: true, hostDelayMs: 0, ownHosts: [new URL(portal.origin).host] });
    site.refusals = [{ status: 302, location: `${portal.origin}/api/3/action/package_search?rows=100&start=0` }];
    const portalAsked = portal.requests.length;
    await expect(ownPortal(page)).rejects.toThrow(`la dirección es la del propio archivo, que no se cosecha a sí mismo: ${new URL(portal.origin).host}`);
    // Refused before it was asked: the archive never builds its own answer for nothing.
    expect(portal.requests.length).toBe(portalAsked);
  });

  it('retries a 502 or 504 without Retry-After after a growing backoff, three times at most, without holding captures back', async () => {
    site.refusals = [{ status: 502 }, { status: 504 }];
    const recovered = await timedRun({ db: database.db, retry: { backoffMs: 100 } });
    expect(recovered.report.status).toBe('done');
    // 100 ms, then 200 ms.
    expect(recovered.seconds).toBeGreaterThanOrEqual(0.29);
    expect(packageSearches(site)).toHaveLength(3);
    // A gateway's trouble is not the site asking for a pause.
    expect(await heldBackSeconds(database.db, site.origin)).toBeNull();

    site.requests = [];
    site.refusals = [{ status: 502 }, { status: 502 }, { status: 502 }, { status: 502 }, { status: 502 }];
    const { report } = await timedRun({ db: database.db, retry: { backoffMs: 10 } });
    expect(report.status).toBe('failed');
    expect(report.errors[0]!.message).toMatch(/\): El catálogo respondió HTTP 502, también tras 3 reintento\(s\)\.$/);
    expect(packageSearches(site)).toHaveLength(4);
  });

  it('fails a run whose catalogue robots.txt disallows, asking nothing else of the site', async () => {
    site.robots = 'User-agent: *\nDisallow: /api/\n';
    const { report } = await timedRun({ db: database.db });
    expect(report.status).toBe('failed');
    expect(report.errors).toEqual([{ key: RUN_ERROR_KEY, message: expect.stringMatching(/robots\.txt del sitio no permite leer esta página del catálogo \(robots\.txt lo prohíbe\)\.$/) }]);
    expect(site.requests).toEqual(['/robots.txt']);
    const [run] = await database.db.select().from(imports).where(eq(imports.id, report.importId));
    expect(run!.status).toBe('failed');
  });

  it("spaces the pages by the site's Crawl-delay and holds its captures back as long", async () => {
    site.robots = 'User-agent: *\nCrawl-delay: 1\n';
    // The portal's five datasets on two pages.
    const started = performance.now();
    const startedInDatabase = await databaseNow(database.db);
    const report = await runHarvest(database.db, harvestSourceId, { fetchPage: catalogPageFetcher({ allowPrivate: true, db: database.db, hostDelayMs: 0 }), pageSize: 3 });
    expect(report.status).toBe('done');
    expect(packageSearches(site)).toHaveLength(2);
    expect((performance.now() - started) / 1000).toBeGreaterThanOrEqual(0.95);
    // Held back a Crawl-delay from the second page's request, itself at least a Crawl-delay after the first.
    expect((await heldUntil(database.db, site.origin))! - startedInDatabase).toBeGreaterThanOrEqual(1.9);
  });

  it('does not cut a Crawl-delay longer than a page is waited for: the run fails and says so, asking for no page', async () => {
    site.robots = 'User-agent: *\nCrawl-delay: 5\n';
    const { report, seconds } = await timedRun({ db: database.db, retry: { maxWaitMs: 2_000 } });
    expect(report.status).toBe('failed');
    expect(report.errors[0]!.message).toMatch(/robots\.txt del sitio pide 5 s entre peticiones \(Crawl-delay\), más de los 2 s que el archivo espera por una página; la cosecha no sigue\.$/);
    expect(seconds).toBeLessThan(2);
    expect(site.requests).toEqual(['/robots.txt']);
  });

  it("keeps the site's Crawl-delay between a refused page and its retry, whatever Retry-After says", async () => {
    site.robots = 'User-agent: *\nCrawl-delay: 1\n';
    site.refusals = [{ status: 429, retryAfter: '0' }];
    const { report, seconds } = await timedRun({ db: database.db, hostDelayMs: 0 });
    expect(report.status).toBe('done');
    expect(packageSearches(site)).toHaveLength(2);
    expect(seconds).toBeGreaterThanOrEqual(0.95);
  });

  it('fails a run whose site cannot say what it allows (robots.txt answers 500), and says that rather than "forbidden"', async () => {
    site.robotsStatus = 500;
    const { report } = await timedRun({ db: database.db });
    expect(report.status).toBe('failed');
    expect(report.errors[0]!.message).toMatch(/^No se pudo leer la página 1 del catálogo .*: no se pudo leer el robots\.txt del sitio, y sin él no se lee el catálogo \(robots\.txt inalcanzable \(HTTP 500\)\)\.$/);
    expect(site.requests).toEqual(['/robots.txt']);
  });

  it('ends a run stopped while it waits for the site at once', async () => {
    site.refusals = [{ status: 429, retryAfter: '60' }];
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('parada de la prueba')), 300);
    const { report, seconds } = await timedRun({ db: database.db, signal: stop.signal }, stop.signal);
    expect(report.status).toBe('failed');
    expect(report.errors[0]!.message).toBe('Cosecha interrumpida: parada de la prueba. La cola de trabajos la empieza de nuevo.');
    expect(seconds).toBeLessThan(3);
    expect(packageSearches(site)).toHaveLength(1);
  });
});
