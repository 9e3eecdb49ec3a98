/**
 * Read-through from trustless gateways (issue #21), with two archive servers on 127.0.0.1: each
 * its own block folder, both on one database, each listing the other as its gateway. Each server
 * is a node:http server in front of the archive's own gateway handler (what `/ipfs/{cid}` runs).
 * A third server on 127.0.0.1 sends altered bytes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { openArchive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { alexandrias } from '../../src/lib/server/db/schema.ts';
import { isServedCatalogueFile } from '../../src/lib/server/gateway/catalogue-files.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { handle } from '../../src/lib/server/http/errors.ts';
import { changeRecordStatus } from '../../src/lib/server/moderation/index.ts';
import { localBlockstore } from '../../src/lib/server/storage/blockstores.ts';
import { CID } from 'multiformats/cid';
import { CHUNK_SIZE, cidOf, createContentStore, parseCid, type ContentStore } from '../../src/lib/server/storage/index.ts';
import { importContent } from '../../src/lib/server/storage/import-content.ts';
import { RAW_CODE } from '../../src/lib/server/storage/profile.ts';
import { readThrough, RAW_BLOCK_MEDIA_TYPE } from '../../src/lib/server/storage/read-through.ts';
import { createTestDatabase, testEngines } from '../helpers/database.ts';
import { collect, MiB, pseudoRandom, zeros } from '../unit/storage/helpers.ts';

/** `size` deterministic bytes, gathered. */
const bytesOf = (size: number, seed: number) => collect(pseudoRandom(size, seed));

const MODERATOR = '0x2222222222222222222222222222222222222222';

/** An HTTP server on 127.0.0.1 that counts what it is asked and answers with `answer`. */
async function startServer(answer: (request: IncomingMessage, response: ServerResponse) => Promise<void>) {
  const asked: string[] = [];
  const server: Server = createServer((request, response) => {
    asked.push(request.url ?? '');
    answer(request, response).catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Writes a fetch Response to a node response. */
async function send(answer: Response, response: ServerResponse): Promise<void> {
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (answer.body) for await (const chunk of answer.body) response.write(chunk);
  response.end();
}

interface ArchiveServer {
  url: string;
  asked: string[];
  dir: string;
  store: ContentStore;
  close(): Promise<void>;
}

describe.each(testEngines())('read-through between two archive servers on %s', (engine: Engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let root: string;
  const servers: ArchiveServer[] = [];
  let tamperer: Awaited<ReturnType<typeof startServer>>;

  /** An archive server: the gateway handler over its own block folder, reading through from `gateways`. */
  async function archiveServer(name: string, gateways: () => string[]): Promise<ArchiveServer> {
    const dir = path.join(root, name);
    let store: ContentStore | undefined;
    const http = await startServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://archivo.test');
      const cid = decodeURIComponent(url.pathname.replace(/^\/ipfs\//, ''));
      const headers = new Headers();
      for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(key, value);
      const fetchRequest = new Request(url, { method: request.method ?? 'GET', headers });
      // Opened at the first request: two servers may name each other, so neither address is known before.
      store ??= createContentStore({
        blockstore: readThrough(localBlockstore(dir), {
          gateways: gateways(),
          isCatalogueFile: (cid) => isServedCatalogueFile(database.db, cid),
          timeoutMs: 2_000,
        }),
      });
      await send(await handle(() => serveFile(database.db, store!, readGatewayRequest(cid, fetchRequest, url))), response);
    });
    const server: ArchiveServer = {
      ...http,
      dir,
      // What an upload to this server stores: straight into its own folder.
      store: createContentStore({ dir }),
    };
    servers.push(server);
    return server;
  }

  let a: ArchiveServer;
  let b: ArchiveServer;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-read-through-'));
    a = await archiveServer('a', () => [b.url]);
    b = await archiveServer('b', () => [a.url]);
    // A gateway that passes on A's blocks with one byte changed.
    tamperer = await startServer(async (request, response) => {
      const upstream = await fetch(`${a.url}${request.url}`, { headers: { Accept: RAW_BLOCK_MEDIA_TYPE } });
      const bytes = new Uint8Array(await upstream.arrayBuffer());
      if (bytes.length > 0) bytes[bytes.length >> 1]! ^= 0xff;
      response.writeHead(upstream.status, { 'Content-Type': RAW_BLOCK_MEDIA_TYPE });
      response.end(bytes);
    });
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) await server.close();
    await tamperer?.close();
    await database?.destroy();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const server of [...servers, tamperer]) server.asked.length = 0;
  });

  /** A record holding `cid`, as an upload or capture would leave it. */
  async function record(title: string, cid: string): Promise<number> {
    const [row] = await database.db
      .insert(alexandrias)
      .values({ title, type: 'csv', status: 'on_line', cid, mimeType: 'text/csv', fileName: `${title}.csv` })
      .returning({ id: alexandrias.id });
    return row!.id;
  }

  /** Whether the server's own folder holds the block (not reading through). */
  const holds = (server: ArchiveServer, cid: string) => localBlockstore(server.dir).has(parseCid(cid));

  /** The CIDs of a file's blocks, read where they are stored. */
  async function blocksOf(server: ArchiveServer, cid: string): Promise<string[]> {
    const cids: string[] = [];
    for await (const block of server.store.blocks(cid)) cids.push(block.cid.toString());
    return cids;
  }

  it('serves a file uploaded to one server from the other, byte for byte, and keeps its blocks', async () => {
    const bytes = await bytesOf(700_000, 21);
    const { cid } = await a.store.add(bytes);
    await record('Presupuesto ejecutado', cid);
    const stored = await blocksOf(a, cid);
    expect(stored).toHaveLength(4);
    for (const block of stored) expect(await holds(b, block)).toBe(false);

    const response = await fetch(`${b.url}/ipfs/${cid}`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    // B asked A for each block, once, as raw blocks.
    expect(a.asked.sort()).toEqual(stored.map((block) => `/ipfs/${block}?format=raw`).sort());
    for (const block of stored) expect(await holds(b, block)).toBe(true);

    // Kept: the next reader is served from B's own folder, A is not asked again.
    a.asked.length = 0;
    const again = await fetch(`${b.url}/ipfs/${cid}`, { headers: { Range: 'bytes=300000-300009' } });
    expect(again.status).toBe(206);
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(bytes.subarray(300_000, 300_010)))).toBe(true);
    expect(a.asked).toEqual([]);
  });

  it('answers each block of a stored file as raw bytes with the trustless-gateway headers', async () => {
    const bytes = await bytesOf(600_000, 22);
    const { cid } = await a.store.add(bytes);
    await record('Nómina', cid);
    const [rootBlock, leaf] = await blocksOf(a, cid);
    for (const block of [rootBlock!, leaf!]) {
      const response = await fetch(`${a.url}/ipfs/${block}`, { headers: { Accept: RAW_BLOCK_MEDIA_TYPE } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(RAW_BLOCK_MEDIA_TYPE);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable, no-transform');
      const body = new Uint8Array(await response.arrayBuffer());
      expect(response.headers.get('content-length')).toBe(String(body.length));
      // The bytes hash to the block's CID: any client can check them.
      expect(createHash('sha256').update(body).digest().equals(Buffer.from(parseCid(block).multihash.digest))).toBe(true);
    }
    expect((await fetch(`${a.url}/ipfs/${leaf}?format=raw`)).headers.get('content-length')).toBe('262144');
  });

  it('answers an inner node of a deep DAG as raw bytes, with HEAD and 304, and reads such a file through', async () => {
    // 44 MiB of zeros: 176 links to one leaf, under two inner nodes below the root.
    const { cid } = await a.store.add(zeros(44 * MiB));
    await record('Serie larga', cid);
    const ids = (await a.store.blockIds(cid)).map(String);
    expect(ids).toHaveLength(4);
    const inner = ids.find((id) => id !== cid && parseCid(id).code === 0x70)!;

    const head = await fetch(`${a.url}/ipfs/${inner}?format=raw`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(RAW_BLOCK_MEDIA_TYPE);
    const length = Number(head.headers.get('content-length'));
    expect(length).toBeGreaterThan(0);
    const etag = head.headers.get('etag')!;
    expect((await fetch(`${a.url}/ipfs/${inner}?format=raw`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const body = new Uint8Array(await (await fetch(`${a.url}/ipfs/${inner}?format=raw`)).arrayBuffer());
    expect(body.length).toBe(length);
    expect(createHash('sha256').update(body).digest().equals(Buffer.from(parseCid(inner).multihash.digest))).toBe(true);

    // B has none of it: the root is a record's file, each inner node it fetched names the leaf.
    a.asked.length = 0;
    const response = await fetch(`${b.url}/ipfs/${cid}`);
    expect(response.status).toBe(200);
    const digest = createHash('sha256');
    let size = 0;
    for await (const chunk of response.body!) {
      digest.update(chunk);
      size += chunk.length;
    }
    expect(size).toBe(44 * MiB);
    expect(digest.digest().equals(createHash('sha256').update(Buffer.alloc(44 * MiB)).digest())).toBe(true);
    expect(new Set(a.asked)).toEqual(new Set(ids.map((id) => `/ipfs/${id}?format=raw`)));
  });

  it('refuses a gateway that sends altered bytes, and serves the file from the next one', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const c = await archiveServer('c', () => [tamperer.url, a.url]);
    const bytes = await bytesOf(300_000, 23);
    const { cid } = await a.store.add(bytes);
    await record('Deuda pública', cid);

    const response = await fetch(`${c.url}/ipfs/${cid}`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(tamperer.asked.length).toBeGreaterThan(0);
    expect(warn.mock.calls.flat().join(' ')).toContain('bytes que no corresponden al CID');
  });

  it('answers a clear error, never the altered bytes, when the only gateway alters them, and keeps nothing', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const d = await archiveServer('d', () => [tamperer.url]);
    const bytes = await bytesOf(300_000, 24);
    const { cid } = await a.store.add(bytes);
    await record('Licitaciones', cid);

    const response = await fetch(`${d.url}/ipfs/${cid}`);
    expect(response.status).toBe(502);
    expect(((await response.json()) as { message: string }).message).toContain('no se pudo obtener verificado');
    for (const block of await blocksOf(a, cid)) expect(await holds(d, block)).toBe(false);
  });

  it('never asks a gateway for a CID the database does not know as a file', async () => {
    // Stored on A, but no record holds it: not the archive's to fetch for anyone.
    const { cid: unrecorded } = await a.store.add(await bytesOf(200_000, 25));
    expect((await fetch(`${b.url}/ipfs/${unrecorded}`)).status).toBe(404);
    // A leaf of a recorded file, asked out of the blue: not a file either.
    const { cid } = await a.store.add(await bytesOf(600_000, 26));
    await record('Contratos', cid);
    const leaf = (await blocksOf(a, cid))[1]!;
    expect((await fetch(`${b.url}/ipfs/${leaf}`)).status).toBe(404);
    expect((await fetch(`${b.url}/ipfs/${(await cidOf(new TextEncoder().encode('nunca guardado'))).cid}`)).status).toBe(404);
    expect(a.asked).toEqual([]);
  });

  it('does not hammer the gateways for a file none of them has', async () => {
    const { cid } = await createContentStore({ dir: path.join(root, 'elsewhere') }).add(await bytesOf(100_000, 27));
    await record('Archivo perdido', cid);
    expect((await fetch(`${b.url}/ipfs/${cid}`)).status).toBe(404);
    expect(a.asked).toEqual([`/ipfs/${cid}?format=raw`]);
    // A, asked for a raw block, answered from its own folder only: it did not ask B in turn.
    expect(b.asked).toEqual([`/ipfs/${cid}`]);
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${b.url}/ipfs/${cid}`)).status).toBe(404);
    expect(a.asked).toHaveLength(1);
  });

  it('refuses a withdrawn file without fetching it, as bytes and as raw blocks', async () => {
    const { cid } = await a.store.add(await bytesOf(600_000, 28));
    const id = await record('Retirado', cid);
    const [rootBlock, leaf] = await blocksOf(a, cid);
    await changeRecordStatus(database.db, { id, status: 'blocked', actor: MODERATOR, reason: 'Datos personales' });

    expect((await fetch(`${b.url}/ipfs/${cid}`)).status).toBe(410);
    expect(a.asked).toEqual([]);
    for (const block of [rootBlock!, leaf!]) {
      const raw = await fetch(`${a.url}/ipfs/${block}?format=raw`);
      expect(raw.status).toBe(410);
      expect(raw.headers.get('content-type')).not.toBe(RAW_BLOCK_MEDIA_TYPE);
    }
    expect(await holds(b, rootBlock!)).toBe(false);
    await database.db.update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, id));
  });

  it('opens an archive that reads through from ARCHIVE_TRUSTLESS_GATEWAYS', async () => {
    const bytes = await bytesOf(400_000, 29);
    const { cid } = await a.store.add(bytes);
    await record('Padrón', cid);
    // An archive as `npm start` opens it, on an embedded database of its own.
    const dataDir = path.join(root, 'configured');
    const config = readConfig({ ARCHIVE_DATA_DIR: dataDir, ARCHIVE_SEED_ON_EMPTY: 'false', ARCHIVE_TRUSTLESS_GATEWAYS: `${a.url}/ , ${tamperer.url}` });
    expect(config.trustlessGateways).toEqual([a.url, tamperer.url]);
    const archive = await openArchive({ config });
    try {
      // Its own database: the file is a record there too.
      await archive.db.insert(alexandrias).values({ title: 'Padrón', type: 'csv', status: 'on_line', cid });
      expect(await collect(archive.store.cat(cid))).toEqual(Buffer.from(bytes));
      expect(await localBlockstore(path.join(dataDir, 'blocks')).has(parseCid(cid))).toBe(true);
      expect(a.asked).toContain(`/ipfs/${cid}?format=raw`);
    } finally {
      await archive.close();
    }
  }, 60_000);
});

describe('ARCHIVE_TRUSTLESS_GATEWAYS', () => {
  it('takes http(s) base URLs, and stops the start on anything else', () => {
    expect(readConfig({}).trustlessGateways).toEqual([]);
    expect(readConfig({ ARCHIVE_TRUSTLESS_GATEWAYS: 'https://ipfs.example.org/base/,http://127.0.0.1:8080' }).trustlessGateways).toEqual([
      'https://ipfs.example.org/base',
      'http://127.0.0.1:8080',
    ]);
    for (const bad of ['ftp://ipfs.example.org', 'https://usuario:clave@ipfs.example.org', 'https://ipfs.example.org/?x=1', 'no es una url']) {
      expect(() => readConfig({ ARCHIVE_TRUSTLESS_GATEWAYS: bad })).toThrow(/ARCHIVE_TRUSTLESS_GATEWAYS/);
    }
  });
});

describe('a gateway that hangs', () => {
  it('holds no reader longer than the timeout, however many wait, and turns away a line past its bound', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-hanging-'));
    try {
      // Blocks this server lacks, each of a catalogue file; the only gateway never answers.
      const cids = await Promise.all(Array.from({ length: 80 }, async (_, n) => (await cidOf(await bytesOf(1000, 100 + n))).cid));
      let asked = 0;
      const hanging: typeof fetch = (_url, init) => {
        asked += 1;
        return new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
      };
      const store = readThrough(localBlockstore(dir), {
        gateways: ['http://127.0.0.1:9'],
        isCatalogueFile: async () => true,
        fetch: hanging,
        timeoutMs: 400,
        concurrency: 2,
        warn: () => undefined,
      });
      const started = performance.now();
      const outcomes = await Promise.allSettled(cids.map((cid) => collect(store.get(parseCid(cid)))));
      const seconds = (performance.now() - started) / 1000;
      // Two at a time and 80 readers would be 16 s if each waited its turn and then its own 400 ms.
      expect(seconds).toBeLessThan(5);
      expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
      // Only those who got a slot before their deadline reached the gateway.
      expect(asked).toBeLessThan(cids.length);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a CID with a catalogue file’s digest under another codec', () => {
  it('is refused on its own, and its refusal never reaches a request for the file at the same time', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-twins-'));
    try {
      // A file of two leaves: its root is a dag-pb node; the same digest as a raw CID is its twin.
      const blocks = new Map<string, Uint8Array>();
      const digestOf = (cid: CID) => Buffer.from(cid.multihash.bytes).toString('hex');
      const { cid } = await importContent(pseudoRandom(CHUNK_SIZE + 1000, 31), {
        put: (block, bytes) => {
          if (!(bytes instanceof Uint8Array)) throw new Error('the importer hands whole blocks');
          blocks.set(digestOf(block), bytes);
          return block;
        },
      });
      const root = parseCid(cid);
      const twin = CID.createV1(RAW_CODE, root.multihash);
      expect(root.code).not.toBe(RAW_CODE);

      let refuseTwin!: (known: boolean) => void;
      const asked: string[] = [];
      const served: typeof fetch = async (url) => {
        const requested = parseCid(new URL(String(url)).pathname.replace('/ipfs/', ''));
        const bytes = blocks.get(digestOf(requested));
        return bytes ? new Response(new Uint8Array(bytes)) : new Response(null, { status: 404 });
      };
      const local = localBlockstore(dir);
      const askedLocally: string[] = [];
      const store = readThrough(
        {
          // Nothing is here yet: answered at once, so a read goes on to the gateways within a turn.
          has: (block: CID) => {
            askedLocally.push(block.toString());
            return false;
          },
          get: (block: CID) => local.get(block),
          put: (block: CID, bytes: Uint8Array) => local.put(block, bytes),
        },
        {
          gateways: ['http://127.0.0.1:9'],
          // The database answers for the twin only when the test says so, while the file's request comes in.
          isCatalogueFile: (asking) => {
            asked.push(asking);
            return asking === cid ? Promise.resolve(true) : new Promise((resolve) => (refuseTwin = resolve));
          },
          fetch: served,
          warn: () => undefined,
        },
      );

      const twinRead = collect(store.get(twin));
      await vi.waitFor(() => expect(asked).toEqual([twin.toString()]));
      const fileRead = collect(store.get(root));
      await vi.waitFor(() => expect(askedLocally).toContain(root.toString()));
      await new Promise((resolve) => setImmediate(resolve));
      refuseTwin(false);

      await expect(twinRead).rejects.toThrow(/Not Found/);
      expect(Buffer.from(await fileRead).equals(Buffer.from(blocks.get(digestOf(root))!))).toBe(true);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
