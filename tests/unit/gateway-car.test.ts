/**
 * The gateway's trustless answers: CARs of stored files, read back with an independent reader
 * (@ipld/car) and checked the way a trustless client would, block hashes, depth-first order,
 * and the blocks re-importing to the same CID and bytes.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { CarBlockIterator, CarWriter } from '@ipld/car';
import { decode as decodeDagPb } from '@ipld/dag-pb';
import { NextToLast } from 'blockstore-fs/sharding';
import { exporter } from 'ipfs-unixfs-exporter';
import { importByteStream } from 'ipfs-unixfs-importer';
import { fixedSize } from 'ipfs-unixfs-importer/chunker';
import { balanced } from 'ipfs-unixfs-importer/layout';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carHeader, encodeCar, varint } from '../../src/lib/server/gateway/car.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { HttpError } from '../../src/lib/server/http/errors.ts';
import { cidOf, MissingBlockError } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { collect, MiB, pseudoRandom, zeros } from './storage/helpers.ts';

interface Block {
  cid: CID;
  bytes: Uint8Array;
}

/**
 * A CAR needs nothing from the catalogue but whether its file was withdrawn (a blocked record's):
 * an empty database, where nothing is.
 */
let emptyCatalogue: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  emptyCatalogue = await createTestDatabase('pglite');
}, 120_000);
afterAll(() => emptyCatalogue?.destroy());

/** The blocks `ipfs add --cid-version=1` (kubo) writes for `content`, by CID. */
async function kuboBlocks(content: Uint8Array): Promise<{ root: string; blocks: Map<string, Uint8Array> }> {
  const blocks = new Map<string, Uint8Array>();
  const { cid } = await importByteStream(
    [content],
    {
      put(cid, bytes) {
        if (!(bytes instanceof Uint8Array)) throw new TypeError('the importer writes whole blocks');
        blocks.set(cid.toString(), bytes);
        return cid;
      },
    },
    {
      cidVersion: 1,
      rawLeaves: true,
      reduceSingleLeafToSelf: true,
      chunker: fixedSize({ chunkSize: 256 * 1024 }),
      layout: balanced({ maxChildrenPerNode: 174 }),
    },
  );
  return { root: cid.toString(), blocks };
}

/** Reads a CAR response with @ipld/car, streaming, as a client would. */
async function readCar(response: Response): Promise<{ version: number; roots: string[]; blocks: Block[] }> {
  const iterator = await CarBlockIterator.fromIterable(response.body as unknown as AsyncIterable<Uint8Array>);
  const blocks: Block[] = [];
  for await (const block of iterator) blocks.push(block);
  return { version: iterator.version, roots: (await iterator.getRoots()).map(String), blocks };
}

/** The order a depth-first walk from `root` visits `blocks` in, each block once unless `dups`. */
function depthFirst(root: string, blocks: Map<string, Uint8Array>, dups: boolean): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (cid: CID): void => {
    const key = cid.toString();
    if (!dups && seen.has(key)) return;
    seen.add(key);
    order.push(key);
    if (cid.code !== 0x70) return;
    for (const link of decodeDagPb(blocks.get(key)!).Links) visit(link.Hash);
  };
  visit(CID.parse(root));
  return order;
}

/**
 * What a trustless client checks: the CAR names the root, every block hashes to its CID, the
 * blocks come depth-first from the root, they are exactly the blocks kubo makes of the content,
 * and reading the file back out of them gives the content and its CID.
 */
async function expectFaithfulCar(response: Response, content: Uint8Array): Promise<Block[]> {
  const { cid } = await cidOf(content);
  const car = await readCar(response);
  expect(car.version).toBe(1);
  expect(car.roots).toEqual([cid]);
  for (const block of car.blocks) {
    expect(createHash('sha256').update(block.bytes).digest().equals(block.cid.multihash.digest)).toBe(true);
  }
  const byCid = new Map(car.blocks.map((block) => [block.cid.toString(), block.bytes]));
  expect(car.blocks.map((block) => block.cid.toString())).toEqual(depthFirst(cid, byCid, false));

  const kubo = await kuboBlocks(content);
  expect(kubo.root).toBe(cid);
  expect([...byCid.keys()].sort()).toEqual([...kubo.blocks.keys()].sort());
  for (const [key, bytes] of kubo.blocks) expect(Buffer.from(byCid.get(key)!).equals(bytes)).toBe(true);

  const entry = await exporter(cid, { get: async function* (c: CID) { yield byCid.get(c.toString())!; } });
  if (entry.type !== 'file' && entry.type !== 'raw') throw new Error(`not a file: ${entry.type}`);
  const back = await collect(entry.content());
  expect(back.equals(content)).toBe(true);
  expect((await cidOf(back)).cid).toBe(cid);
  return car.blocks;
}

describe('CAR encoding', () => {
  it('writes varints as unsigned LEB128', () => {
    expect([...varint(0)]).toEqual([0]);
    expect([...varint(127)]).toEqual([0x7f]);
    expect([...varint(128)]).toEqual([0x80, 0x01]);
    expect([...varint(300)]).toEqual([0xac, 0x02]);
    expect([...varint(2 ** 35)]).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
  });

  it('writes the same header as @ipld/car, for raw and dag-pb roots', async () => {
    for (const root of [
      'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4',
      'bafybeid7mu43g4fehkxhdkl4x3lu4pybxuxpg57it6r6z7e36soj7h2yd4',
    ]) {
      const { writer, out } = CarWriter.create([CID.parse(root)]);
      const written = collect(out);
      await writer.close();
      expect(Buffer.from(carHeader(CID.parse(root))).equals(await written)).toBe(true);
    }
  });

  it('encodes an empty CAR that still names its root', async () => {
    const root = CID.parse('bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4');
    const bytes = await collect(encodeCar(root, (async function* () {})()));
    const iterator = await CarBlockIterator.fromBytes(bytes);
    expect((await iterator.getRoots()).map(String)).toEqual([root.toString()]);
  });
});

describe('the gateway as a trustless gateway', () => {
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  beforeAll(async () => {
    blocks = await createTestStore();
  });
  afterAll(async () => {
    await blocks?.destroy();
  });

  function get(cid: string, query = '', init: RequestInit = {}): Promise<Response> {
    const url = new URL(`http://archivo.test/ipfs/${cid}${query}`);
    return serveFile(emptyCatalogue.db, blocks.store, readGatewayRequest(cid, new Request(url, init), url));
  }

  it('answers a one-chunk file as its one raw block, with the headers the specification asks for', async () => {
    const content = new TextEncoder().encode('Ley 200-04 de Libre Acceso a la Información Pública\n');
    const { cid } = await blocks.store.add(content);
    const response = await get(cid, '?format=car');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.ipld.car; version=1; order=dfs; dups=n');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${cid}.car"`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable, no-transform');
    expect(response.headers.get('etag')).toBe(`"${cid}.car"`);
    expect(response.headers.get('vary')).toBe('Accept');
    // Asked by URL, the answer already has its own address.
    expect(response.headers.get('content-location')).toBeNull();
    // Streamed: its length is not known up front.
    expect(response.headers.get('content-length')).toBeNull();

    const car = await expectFaithfulCar(response, content);
    expect(car).toHaveLength(1);
    expect(car[0]!.cid.code).toBe(0x55);
  });

  it('answers a 1 MiB file as its dag-pb root and then its leaves, asked by Accept header', async () => {
    const content = await collect(pseudoRandom(MiB, 7));
    const { cid } = await blocks.store.add(content);
    const response = await get(cid, '', { headers: { Accept: 'application/vnd.ipld.car' } });

    expect(response.headers.get('content-type')).toMatch(/^application\/vnd\.ipld\.car; version=1/);
    expect(response.headers.get('content-location')).toBe(`/ipfs/${cid}?format=car&car-dups=n`);
    const car = await expectFaithfulCar(response, content);
    expect(car.map((block) => block.cid.code)).toEqual([0x70, 0x55, 0x55, 0x55, 0x55]);
  });

  it('answers a real file of the archive, byte for byte', async () => {
    const content = await readFile(path.join(FIXTURES_DIR, 'files/csv/licencias-construccion-mivhed-2022-2025.csv'));
    const { cid } = await blocks.store.add(content);
    const car = await expectFaithfulCar(await get(cid, '?format=car'), content);
    expect(car).toHaveLength(3);
  });

  it('sends a repeated block once, or every time when asked with dups=y', async () => {
    const content = await collect(zeros(MiB));
    const { cid } = await blocks.store.add(content);

    const once = await get(cid, '?format=car');
    expect((await expectFaithfulCar(once, content)).map((block) => block.cid.code)).toEqual([0x70, 0x55]);

    for (const every of [
      await get(cid, '?format=car&car-dups=y'),
      await get(cid, '', { headers: { Accept: 'application/vnd.ipld.car; version=1; order=dfs; dups=y' } }),
    ]) {
      expect(every.headers.get('content-type')).toBe('application/vnd.ipld.car; version=1; order=dfs; dups=y');
      expect(every.headers.get('etag')).toBe(`"${cid}.dups.car"`);
      const car = await readCar(every);
      const byCid = new Map(car.blocks.map((block) => [block.cid.toString(), block.bytes]));
      expect(car.blocks.map((block) => block.cid.toString())).toEqual(depthFirst(cid, byCid, true));
      expect(car.blocks).toHaveLength(5);
    }
  });

  it('answers HEAD and a matching If-None-Match without a body, and tells the CAR from the file', async () => {
    const { cid } = await blocks.store.add(new TextEncoder().encode('cabeceras'));
    const head = await get(cid, '?format=car', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers.get('content-type')).toMatch(/^application\/vnd\.ipld\.car/);

    expect((await get(cid, '?format=car', { headers: { 'If-None-Match': `"${cid}.car"` } })).status).toBe(304);
    // If-None-Match compares weakly (RFC 9110 §13.1.2): a cache that keeps the tag as W/"…", or asks for any copy.
    for (const tag of [`W/"${cid}"`, `"otro", W/"${cid}"`, '*']) expect((await get(cid, '', { headers: { 'If-None-Match': tag } })).status, tag).toBe(304);
    // The file's own ETag does not stand for its CAR.
    const other = await get(cid, '?format=car', { headers: { 'If-None-Match': `"${cid}"` } });
    expect(other.status).toBe(200);
    await other.body?.cancel();
  });

  it('names the CAR as asked with ?download=name', async () => {
    const { cid } = await blocks.store.add(new TextEncoder().encode('con nombre'));
    const response = await get(cid, '?format=car&download=presupuesto%202024.car');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="presupuesto 2024\.car"/);
    await response.body?.cancel();
  });

  it('answers 400, 404 and 406 before any byte for requests it cannot serve', async () => {
    const expectStatus = async (answer: Promise<unknown>, status: number) => {
      const error = await answer.then(() => null, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(status);
    };
    await expectStatus(get('no-es-un-cid', '?format=car'), 400);
    const { cid } = await cidOf(new TextEncoder().encode('nunca archivado'));
    await expectStatus(get(cid, '?format=car'), 404);
    await expectStatus(
      (async () => get(cid, '', { headers: { Accept: 'application/vnd.ipld.car; version=2' } }))(),
      406,
    );
  });

  it('cuts the CAR short when a block has gone missing mid-file, never sending a wrong one', async () => {
    const content = await collect(pseudoRandom(MiB, 11));
    const { cid } = await blocks.store.add(content);
    const kubo = await kuboBlocks(content);
    const lastLeaf = [...kubo.blocks.keys()].filter((key) => key.startsWith('bafk')).at(-1)!;
    const { dir: shard, file } = new NextToLast().encode(CID.parse(lastLeaf));
    await rm(path.join(blocks.dir, shard, file));

    const response = await get(cid, '?format=car');
    expect(response.status).toBe(200);
    await expect(readCar(response)).rejects.toBeInstanceOf(MissingBlockError);
  });
});

/** Garbage collection on demand, so memory samples show what is still held. */
function collectGarbage(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

describe('memory use of a CAR', () => {
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  beforeAll(async () => {
    blocks = await createTestStore();
  });
  afterAll(async () => {
    await blocks?.destroy();
  });

  it('streams 128 MiB (three levels of DAG) without holding the file', { timeout: 120_000 }, async () => {
    const size = 128 * MiB;
    const { cid } = await blocks.store.add(pseudoRandom(size, 3, 64 * 1024));
    const url = new URL(`http://archivo.test/ipfs/${cid}?format=car`);
    const response = await serveFile(emptyCatalogue.db, blocks.store, readGatewayRequest(cid, new Request(url), url));

    const gc = collectGarbage();
    gc();
    const base = process.memoryUsage();
    const peak = { buffers: 0, held: 0 };
    let leafBytes = 0;
    let count = 0;
    const iterator = await CarBlockIterator.fromIterable(response.body as unknown as AsyncIterable<Uint8Array>);
    for await (const block of iterator) {
      expect(createHash('sha256').update(block.bytes).digest().equals(block.cid.multihash.digest)).toBe(true);
      if (block.cid.code === 0x55) leafBytes += block.bytes.length;
      if (++count % 64 === 0) {
        gc();
        const now = process.memoryUsage();
        peak.buffers = Math.max(peak.buffers, now.arrayBuffers - base.arrayBuffers);
        peak.held = Math.max(peak.held, now.heapUsed + now.arrayBuffers - base.heapUsed - base.arrayBuffers);
      }
    }
    // 512 leaves under 3 interior nodes under the root.
    expect(count).toBe(512 + 3 + 1);
    expect(leafBytes).toBe(size);
    // Holding the file would take 128 MiB, in buffers or on the heap. Both bounds are half that:
    // under the load of a full test run the buffers swing by tens of MB (41 MB seen). RSS is not
    // the measure: it counts what the allocator has freed but not yet handed back, and V8 frees dead
    // buffers on a background thread after the collection, so on a busy machine it grew by 150 to
    // 270 MB with this same code, and under 64 MB on a quiet one.
    expect(peak.buffers).toBeLessThan(64 * MiB);
    expect(peak.held).toBeLessThan(64 * MiB);
  });
});

describe('the file itself, beside its CAR', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    blocks = await createTestStore();
  });
  afterAll(async () => {
    await database?.destroy();
    await blocks?.destroy();
  });

  function get(cid: string, query = '', init: RequestInit = {}): Promise<Response> {
    const url = new URL(`http://archivo.test/ipfs/${cid}${query}`);
    return serveFile(database.db, blocks.store, readGatewayRequest(cid, new Request(url, init), url));
  }

  it('keeps its own headers and tells caches that Accept picks the answer', async () => {
    const content = new TextEncoder().encode('fecha,valor\n2024-01-01,1\n');
    const { cid } = await blocks.store.add(content);
    const response = await get(cid, '', { headers: { Accept: 'text/html,*/*;q=0.8' } });
    expect(response.headers.get('etag')).toBe(`"${cid}"`);
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);
    // An empty format is the file itself; one the archive does not serve is refused (`readGatewayRequest`).
    expect((await get(cid, '?format=', { headers: { Accept: 'text/html,*/*;q=0.8' } })).headers.get('etag')).toBe(`"${cid}"`);
    // `?format=raw` is the block the CID names, which for a file of one chunk holds the same bytes.
    const raw = await get(cid, '?format=raw', { headers: { Accept: 'application/vnd.ipld.car' } });
    expect(raw.headers.get('etag')).toBe(`"${cid}.raw"`);
    expect(raw.headers.get('content-type')).toBe('application/vnd.ipld.raw');
    expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
  });

  it('downloads under the name given by ?download=name, or by ?download=true&filename=', async () => {
    const { cid } = await blocks.store.add(new TextEncoder().encode('descarga'));
    const named = await get(cid, '?download=informe%20final.csv');
    expect(named.headers.get('content-disposition')).toMatch(/^attachment; filename="informe final\.csv"/);
    const legacy = await get(cid, '?download=true&filename=informe.csv');
    expect(legacy.headers.get('content-disposition')).toMatch(/^attachment; filename="informe\.csv"/);
    await Promise.all([named, legacy].map((response) => response.body?.cancel()));
  });
});
