/**
 * Remote pinning against a real HTTP server that speaks the few routes of the IPFS Pinning
 * Service API the archive uses, with its bearer-token check, on a real database.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PinStatus } from '../../src/lib/domain/constants.ts';
import { filecoinStatus } from '../../src/lib/server/api/endpoints.ts';
import { rest } from '../../src/lib/server/api/rest.ts';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { aletheias, alexandrias, jobs, pins, recordVersions, sheetPreviews } from '../../src/lib/server/db/schema.ts';
import {
  gatewayOrigins,
  pinCid,
  queueMissingRemotePins,
  queueRemotePins,
  REMOTE_PIN_JOB,
  remotePinHandler,
  pinningProviders,
  refreshPins,
  remotePinning,
  type PinningProvider,
} from '../../src/lib/server/pinning/index.ts';
import { storageStatus } from '../../src/lib/server/queries/index.ts';
import { createSeededDatabase, createTestDatabase, createTestStore, testEngines } from '../helpers/database.ts';
import { drainJobs } from '../helpers/jobs.ts';

const TOKEN = 'token-de-prueba';

interface ServicePin {
  requestid: string;
  cid: string;
  name: string | undefined;
  status: PinStatus;
}

/** A pinning service in the test process: its pins, the requests it saw, and switches to misbehave. */
async function startPinningService() {
  const state = {
    pins: new Map<string, ServicePin>(),
    requests: [] as Array<{ method: string; path: string; authorization: string | undefined; body: unknown }>,
    /** Never answer (until the server closes): a service that hangs. */
    hang: false,
    /** Answer this many more pin requests with a 500: a service having a bad moment. */
    failPosts: 0,
  };
  let next = 0;

  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const statusOf = (pin: ServicePin) => ({
    requestid: pin.requestid,
    status: pin.status,
    created: '2026-11-21T00:00:00Z',
    pin: { cid: pin.cid, name: pin.name },
    delegates: ['/ip4/203.0.113.1/tcp/4001/p2p/QmServicio'],
  });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const body: unknown = text ? JSON.parse(text) : undefined;
    const path = new URL(request.url ?? '/', 'http://servicio').pathname;
    state.requests.push({ method: request.method ?? '', path, authorization: request.headers.authorization, body });
    if (state.hang) return;
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      return send(response, 401, { error: { reason: 'UNAUTHORIZED', details: 'Token de acceso no válido' } });
    }
    if (request.method === 'POST' && path === '/psa/pins') {
      if (state.failPosts > 0) {
        state.failPosts -= 1;
        return send(response, 500, { error: { reason: 'INTERNAL_SERVER_ERROR', details: 'Inténtelo más tarde' } });
      }
      const { cid, name } = body as { cid?: string; name?: string };
      if (!cid) return send(response, 400, { error: { reason: 'BAD_REQUEST', details: 'cid requerido' } });
      const pin: ServicePin = { requestid: `req-${++next}`, cid, name, status: 'queued' };
      state.pins.set(pin.requestid, pin);
      return send(response, 202, statusOf(pin));
    }
    const match = /^\/psa\/pins\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && match) {
      const pin = state.pins.get(decodeURIComponent(match[1]!));
      return pin ? send(response, 200, statusOf(pin)) : send(response, 404, { error: { reason: 'NOT_FOUND' } });
    }
    send(response, 404, { error: { reason: 'NOT_FOUND' } });
  }

  const server: Server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => send(response, 500, { error: { reason: String(error) } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    state,
    endpoint: `http://127.0.0.1:${port}/psa`,
    /** The service's pin for `cid` (the last one asked). */
    pinOf: (cid: string) => [...state.pins.values()].filter((pin) => pin.cid === cid).at(-1),
    posts: () => state.requests.filter((request) => request.method === 'POST').length,
    gets: () => state.requests.filter((request) => request.method === 'GET').length,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe.each(testEngines())('remote pinning on %s', (engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  let service: Awaited<ReturnType<typeof startPinningService>>;
  let remote: PinningProvider;
  let counter = 0;
  /** A stored file no other test has pinned. */
  const newFile = async () => (await blocks.store.add(new TextEncoder().encode(`Informe trimestral ${++counter}\n`))).cid;
  const rowOf = async (cid: string, provider = 'servicio') =>
    (await database.db.select().from(pins).where(eq(pins.cid, cid))).find((row) => row.provider === provider);
  /** Makes a pin look last checked a minute ago. */
  const age = (cid: string) =>
    database.db.update(pins).set({ updatedAt: sql`now() - interval '1 minute'` }).where(eq(pins.cid, cid));

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    blocks = await createTestStore();
    service = await startPinningService();
    remote = remotePinning({ endpoint: service.endpoint, token: TOKEN, name: 'servicio' });
  });
  afterAll(async () => {
    await service?.close();
    await database?.destroy();
    await blocks?.destroy();
  });
  afterEach(() => {
    service.state.hang = false;
    service.state.failPosts = 0;
    vi.restoreAllMocks();
  });

  it('asks the service to pin, with the token, and records its request id', async () => {
    const cid = await newFile();
    expect(await pinCid(database.db, remote, cid, { name: 'informe.csv' })).toBe('queued');

    const asked = service.state.requests.at(-1);
    expect(asked).toMatchObject({ method: 'POST', path: '/psa/pins', authorization: `Bearer ${TOKEN}`, body: { cid, name: 'informe.csv' } });
    const row = await rowOf(cid);
    expect(row).toMatchObject({ provider: 'servicio', status: 'queued', requestId: service.pinOf(cid)!.requestid });
  });

  it('names the pin after its CID when no name is given', async () => {
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    expect(service.pinOf(cid)?.name).toBe(cid);
  });

  it('does not ask again for a pin the service is already working on', async () => {
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    const posts = service.posts();
    expect(await pinCid(database.db, remote, cid)).toBe('queued');
    expect(service.posts()).toBe(posts);
  });

  it('follows a queued pin until the service has it, asking at most every 30 seconds', async () => {
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    service.pinOf(cid)!.status = 'pinned';

    // Just asked: a reader does not make the archive ask again.
    const gets = service.gets();
    await refreshPins(database.db, [remote], cid);
    expect(service.gets()).toBe(gets);
    expect((await rowOf(cid))?.status).toBe('queued');

    await age(cid);
    await refreshPins(database.db, [remote], cid);
    expect(service.gets()).toBe(gets + 1);
    expect(service.state.requests.at(-1)).toMatchObject({ method: 'GET', path: `/psa/pins/${service.pinOf(cid)!.requestid}`, authorization: `Bearer ${TOKEN}` });
    expect((await storageStatus(database.db, cid)).pins).toMatchObject([{ provider: 'servicio', status: 'pinned' }]);

    // Pinned is final: nothing left to ask.
    await age(cid);
    await refreshPins(database.db, [remote], cid);
    expect(service.gets()).toBe(gets + 1);
  });

  it('lets one of many simultaneous readers ask, and the others share the answer', async () => {
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    service.pinOf(cid)!.status = 'pinning';
    await age(cid);
    const gets = service.gets();
    await Promise.all(Array.from({ length: 5 }, () => refreshPins(database.db, [remote], cid)));
    expect(service.gets()).toBe(gets + 1);
    expect((await rowOf(cid))?.status).toBe('pinning');
  });

  it('shows the followed-up status in the storage-status answer', async () => {
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    service.pinOf(cid)!.status = 'pinned';
    await age(cid);
    await refreshPins(database.db, pinningProviders({ pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' } }, blocks.store), cid);
    const response = await rest(() => filecoinStatus({ db: database.db, url: new URL(`https://archivo.test/v1/services/filecoin/${cid}`), origin: 'https://archivo.test' }, cid));
    const json = (await response.json()) as { body: { pins: Array<{ provider: string; status: string }> } };
    expect(json.body.pins).toEqual([expect.objectContaining({ provider: 'servicio', status: 'Pinned' })]);
  });

  it('records a refused token as failed, without throwing and without logging the token', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const cid = await newFile();
    const intruder = remotePinning({ endpoint: service.endpoint, token: 'token-robado', name: 'servicio' });
    expect(await pinCid(database.db, intruder, cid)).toBe('failed');
    expect(await rowOf(cid)).toMatchObject({ status: 'failed', requestId: null });
    expect(log).toHaveBeenCalledTimes(1);
    const logged = log.mock.calls.flat().map(String).join(' ');
    expect(logged).toContain('401');
    expect(logged).toContain('UNAUTHORIZED');
    expect(logged).not.toContain('token-robado');

    // A failed pin is asked again next time, and can succeed.
    expect(await pinCid(database.db, remote, cid)).toBe('queued');
    expect((await rowOf(cid))?.requestId).toBe(service.pinOf(cid)!.requestid);
  });

  it('gives up on a service that hangs, in the time allowed, and records the pin as failed', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    service.state.hang = true;
    const cid = await newFile();
    const impatient = remotePinning({ endpoint: service.endpoint, token: TOKEN, name: 'servicio' }, fetch, { pinTimeoutMs: 300 });
    const started = performance.now();
    expect(await pinCid(database.db, impatient, cid)).toBe('failed');
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await rowOf(cid))?.status).toBe('failed');
  });

  it('records a service that cannot be reached as failed', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const cid = await newFile();
    // Port 9 (discard) on the loopback: nothing listens there.
    const unreachable = remotePinning({ endpoint: 'http://127.0.0.1:9/psa', token: TOKEN, name: 'servicio' });
    expect(await pinCid(database.db, unreachable, cid)).toBe('failed');
  });

  it('keeps what it knew when a check goes unanswered, and does not ask again at once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    await age(cid);
    service.state.hang = true;
    const impatient = remotePinning({ endpoint: service.endpoint, token: TOKEN, name: 'servicio' }, fetch, { checkTimeoutMs: 300 });
    const started = performance.now();
    await refreshPins(database.db, [impatient], cid);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(warn).toHaveBeenCalledTimes(1);
    expect((await rowOf(cid))?.status).toBe('queued');

    const gets = service.gets();
    await refreshPins(database.db, [impatient], cid);
    expect(service.gets()).toBe(gets);
  });

  it('marks failed a pin request the service no longer knows', async () => {
    const cid = await newFile();
    await pinCid(database.db, remote, cid);
    service.state.pins.delete(service.pinOf(cid)!.requestid);
    await age(cid);
    await refreshPins(database.db, [remote], cid);
    expect((await rowOf(cid))?.status).toBe('failed');
  });

  it('records a provider that throws as failed, so an upload never fails for it', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const cid = await newFile();
    const broken: PinningProvider = {
      name: 'roto',
      pin: () => Promise.reject(new Error('fallo inesperado')),
    };
    expect(await pinCid(database.db, broken, cid)).toBe('failed');
    expect((await rowOf(cid, 'roto'))?.status).toBe('failed');
  });

  it('ignores what is not a CID, and providers that cannot check', async () => {
    await expect(refreshPins(database.db, [remote], 'no-es-un-cid')).resolves.toBeUndefined();
    const cid = await newFile();
    const [local] = pinningProviders({ pinningService: undefined }, blocks.store);
    await pinCid(database.db, local!, cid);
    await expect(refreshPins(database.db, [local!], cid)).resolves.toBeUndefined();
  });

  it('pins locally always, and remotely too when a service is configured', async () => {
    expect(pinningProviders({ pinningService: undefined }, blocks.store).map((provider) => provider.name)).toEqual(['local']);
    const both = pinningProviders({ pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' } }, blocks.store);
    expect(both.map((provider) => provider.name)).toEqual(['local', 'servicio']);

    const cid = await newFile();
    for (const provider of both) await pinCid(database.db, provider, cid);
    const status = await storageStatus(database.db, cid);
    expect(status.pins.map(({ provider, status }) => ({ provider, status })).sort((a, b) => a.provider.localeCompare(b.provider))).toEqual([
      { provider: 'local', status: 'pinned' },
      { provider: 'servicio', status: 'queued' },
    ]);
  });

  it("tells the service where to fetch the blocks: the archive's own gateway, from its configured address", async () => {
    const [, configured] = pinningProviders(
      { pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' }, publicUrl: 'https://archivo.example.org' },
      blocks.store,
    );
    const cid = await newFile();
    await pinCid(database.db, configured!, cid);
    expect(service.state.requests.at(-1)?.body).toEqual({ cid, name: cid, origins: ['/dns/archivo.example.org/tcp/443/https'] });
  });

  it("queues a new file's pins with the remote service only, and the queue asks the service", async () => {
    const providers = pinningProviders({ pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' }, publicUrl: 'https://archivo.example.org' }, blocks.store);
    const [document, proof] = [await newFile(), await newFile()];
    const asked = service.posts();
    expect(await queueRemotePins(database.db, providers, [document, proof])).toBe(2);
    // Nothing asked while the contributor waits: the queue does it.
    expect(service.posts()).toBe(asked);
    expect(await queueRemotePins(database.db, [providers[0]!], [document])).toBe(0);
    expect(await drainJobs(database.db, { [REMOTE_PIN_JOB]: remotePinHandler(providers) }, { kinds: [REMOTE_PIN_JOB] })).toEqual([]);
    expect(service.posts()).toBe(asked + 2);
    for (const cid of [document, proof]) expect((await rowOf(cid))?.status).toBe('queued');
    await database.db.delete(jobs).where(eq(jobs.kind, REMOTE_PIN_JOB));
  });

  it('pins every file that lacks a remote pin with jobs of the queue, retried until the service takes them', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const providers = pinningProviders(
      { pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' }, publicUrl: 'https://archivo.example.org' },
      blocks.store,
    );
    const remote = providers[1]!;
    const record = async (title: string, status: 'on_line' | 'blocked' = 'on_line') => {
      const cid = await newFile();
      await database.db.insert(alexandrias).values({ title, type: 'csv', status, cid });
      return cid;
    };
    const earlier = await record('Subido antes del servicio');
    const another = await record('Otro anterior');
    const pinned = await record('Ya anclado');
    await pinCid(database.db, remote, pinned);
    const refused = await record('Anclaje fallido');
    service.state.failPosts = 1;
    expect(await pinCid(database.db, remote, refused)).toBe('failed');
    const withdrawn = await record('Retirado', 'blocked');
    const asked = service.posts();

    expect(await queueMissingRemotePins(database.db, providers)).toBe(3);
    // Queued again before they ran: nothing new.
    expect(await queueMissingRemotePins(database.db, providers)).toBe(0);

    // The service fails the first two it is asked: those jobs wait their backoff and try again.
    service.state.failPosts = 2;
    expect(await drainJobs(database.db, { [REMOTE_PIN_JOB]: remotePinHandler(providers) }, { kinds: [REMOTE_PIN_JOB] })).toEqual([]);
    expect(service.posts()).toBe(asked + 3 + 2);
    for (const cid of [earlier, another, refused]) {
      expect(service.pinOf(cid)?.name).toBe(cid);
      expect((await rowOf(cid))?.status).toBe('queued');
    }
    const lastAsk = service.state.requests.filter((request) => request.method === 'POST').at(-1)?.body as { origins?: string[] };
    expect(lastAsk.origins).toEqual(['/dns/archivo.example.org/tcp/443/https']);
    expect(service.state.requests.some((request) => (request.body as { cid?: string } | undefined)?.cid === withdrawn)).toBe(false);
    expect(service.state.requests.filter((request) => (request.body as { cid?: string } | undefined)?.cid === pinned)).toHaveLength(1);
    const done = await database.db.select({ status: jobs.status, attempts: jobs.attempts }).from(jobs).where(eq(jobs.kind, REMOTE_PIN_JOB));
    expect(done.map((job) => job.status)).toEqual(['done', 'done', 'done']);
    expect(done.reduce((sum, job) => sum + job.attempts, 0)).toBe(5);

    expect(await queueMissingRemotePins(database.db, providers)).toBe(0);
    // The local store is no remote provider: it queues nothing.
    expect(await queueMissingRemotePins(database.db, [providers[0]!])).toBe(0);
  });
  it('gives a file whose pin job gave up that same job back once a day, never a new job each time it looks', async () => {
    await database.db.delete(jobs).where(eq(jobs.kind, REMOTE_PIN_JOB));
    const providers = pinningProviders(
      { pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' }, publicUrl: 'https://archivo.example.org' },
      blocks.store,
    );
    const cid = await newFile();
    await database.db.insert(alexandrias).values({ title: 'Rechazado siempre', type: 'csv', status: 'on_line', cid });
    const pinJobs = () =>
      database.db
        .select({ id: jobs.id, status: jobs.status, attempts: jobs.attempts })
        .from(jobs)
        .where(and(eq(jobs.kind, REMOTE_PIN_JOB), sql`${jobs.payload}->>'cid' = ${cid}`));
    expect(await queueMissingRemotePins(database.db, providers)).toBe(1);
    const [first] = await pinJobs();
    // As the queue leaves a job whose fifteen attempts the service all refused.
    await database.db.update(jobs).set({ status: 'failed', attempts: 15, finishedAt: sql`now()` }).where(eq(jobs.id, first!.id));
    expect(await queueMissingRemotePins(database.db, providers)).toBe(0);
    expect(await pinJobs()).toEqual([{ id: first!.id, status: 'failed', attempts: 15 }]);
    // A day later, the same job is tried again from its first attempt.
    await database.db.update(jobs).set({ finishedAt: sql`now() - interval '25 hours'` }).where(eq(jobs.id, first!.id));
    expect(await queueMissingRemotePins(database.db, providers)).toBe(1);
    expect(await pinJobs()).toEqual([{ id: first!.id, status: 'queued', attempts: 0 }]);
    expect(await queueMissingRemotePins(database.db, providers)).toBe(0);
    await database.db.delete(jobs).where(eq(jobs.kind, REMOTE_PIN_JOB));
  });
});

describe('the gateway as a pin request\'s origins', () => {
  it.each([
    ['https://archivo.example.org', ['/dns/archivo.example.org/tcp/443/https']],
    ['http://archivo.example.org:8080', ['/dns/archivo.example.org/tcp/8080/http']],
    ['https://93.184.215.14', ['/ip4/93.184.215.14/tcp/443/https']],
    ['https://[2606:4700:4700::1111]:8443', ['/ip6/2606:4700:4700::1111/tcp/8443/https']],
    // Addresses only a private network reaches are not told to a third party.
    ['http://10.0.0.5:4321', []],
    ['https://192.168.1.20', []],
    ['https://[fd00::1]', []],
    ['https://203.0.113.7', []],
    ['http://localhost:4321', []],
    ['http://127.0.0.1:4321', []],
    ['http://[::1]:4321', []],
  ])('%s is %j', (publicUrl, origins) => {
    expect(gatewayOrigins(publicUrl)).toEqual(origins);
  });
});

describe.each(testEngines())('remote pins of the seeded catalogue on %s', (engine: Engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  let service: Awaited<ReturnType<typeof startPinningService>>;

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    service = await startPinningService();
  });
  afterAll(async () => {
    await service?.close();
    await seeded?.destroy();
  });

  it('pins every seeded file (documents, proofs, sheet previews), which the seed pinned only locally if at all', async () => {
    const providers = pinningProviders({ pinningService: { endpoint: service.endpoint, token: TOKEN, name: 'servicio' } }, seeded.store);
    const served = new Set<string>();
    const records = await seeded.db.select({ id: alexandrias.id, cid: alexandrias.cid, status: alexandrias.status }).from(alexandrias);
    const online = new Set(records.filter((record) => record.status !== 'blocked').map((record) => record.id));
    for (const record of records) if (record.cid && online.has(record.id)) served.add(record.cid);
    for (const table of [aletheias, sheetPreviews, recordVersions]) {
      for (const row of await seeded.db.select({ cid: table.cid, id: table.alexandriaId }).from(table)) if (row.cid && online.has(row.id)) served.add(row.cid);
    }
    expect(served.size).toBeGreaterThan(10);

    expect(await queueMissingRemotePins(seeded.db, providers)).toBe(served.size);
    expect(await drainJobs(seeded.db, { [REMOTE_PIN_JOB]: remotePinHandler(providers) }, { kinds: [REMOTE_PIN_JOB] })).toEqual([]);
    const remote = await seeded.db.select({ cid: pins.cid, status: pins.status }).from(pins).where(eq(pins.provider, 'servicio'));
    expect(new Set(remote.map((row) => row.cid))).toEqual(served);
    for (const cid of served) expect(service.pinOf(cid)).toBeDefined();
    expect(remote.every((row) => row.status === 'queued')).toBe(true);
  });
});
