import { randomUUID } from 'node:crypto';
import { stat as statPath } from 'node:fs/promises';
import path from 'node:path';
import { FsBlockstore } from 'blockstore-fs';
import { importDirectory } from 'ipfs-unixfs-importer';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cidOf,
  createContentStore,
  InvalidRangeError,
  NotAFileError,
  s3Blockstore,
  type ContentStore,
} from '../../../src/lib/server/storage/index.ts';
import { startS3, type TestS3 } from '../../helpers/s3.ts';
import { collect, digestOf, KiB, MiB, pseudoRandom, useTempDirs } from './helpers.ts';
import { CHUNK, LINKS_PER_NODE } from './reference-cid.ts';

/**
 * What a store does is the same on every blockstore: these run on a local folder and on an S3
 * bucket (s3rver on 127.0.0.1), each test in a place of its own.
 */
describe.each(['fs', 's3'] as const)('content store on %s', (backend) => {
  const tempDir = useTempDirs();
  let s3: TestS3 | undefined;
  beforeAll(async () => {
    if (backend === 's3') s3 = await startS3();
  });
  afterAll(() => s3?.stop());
  const newStore = async (): Promise<ContentStore> =>
    s3 ? createContentStore({ blockstore: s3Blockstore(s3.settings(`${randomUUID()}/`)) }) : createContentStore({ dir: await tempDir() });

  it('gives back the same bytes for one chunk and for many', async () => {
    const store = await newStore();
    for (const size of [0, 1, 12, CHUNK, CHUNK + 1, 3 * MiB + 7]) {
      const bytes = await collect(pseudoRandom(size, size));
      const { cid } = await store.add(bytes);
      expect((await collect(store.cat(cid))).equals(bytes), `size ${size}`).toBe(true);
    }
  });

  it('serves byte ranges', async () => {
    const store = await newStore();
    const bytes = await collect(pseudoRandom(3 * CHUNK + 100, 4));
    const { cid } = await store.add(bytes);
    const ranges: Array<[number, number | undefined]> = [
      [0, 1],
      [0, 100],
      [5, undefined],
      [CHUNK - 10, 20], // across a chunk boundary
      [CHUNK, CHUNK], // exactly the second chunk
      [10, 2 * CHUNK + 50], // spans three chunks
      [3 * CHUNK + 99, 1], // the last byte
      [3 * CHUNK, 10_000], // length past the end is cut short
      [bytes.length, undefined], // at the end: nothing
      [100, 0],
    ];
    for (const [offset, length] of ranges) {
      const end = length === undefined ? bytes.length : offset + length;
      const got = await collect(store.cat(cid, { offset, length }));
      expect(got.equals(bytes.subarray(offset, end)), `offset ${offset} length ${length}`).toBe(
        true,
      );
    }
  });

  it('serves ranges of a single-block file', async () => {
    const store = await newStore();
    const bytes = new TextEncoder().encode('hola mundo\n');
    const { cid } = await store.add(bytes);
    expect(Buffer.from(await collect(store.cat(cid, { offset: 5, length: 5 }))).toString()).toBe(
      'mundo',
    );
  });

  it('refuses a range that starts past the end or is not a byte count', async () => {
    const store = await newStore();
    const { cid } = await store.add(new Uint8Array(10));
    for (const range of [{ offset: 11 }, { offset: -1 }, { length: -1 }, { offset: 1.5 }]) {
      await expect(collect(store.cat(cid, range))).rejects.toBeInstanceOf(InvalidRangeError);
    }
  });

  it('reports presence and size', async () => {
    const store = await newStore();
    const small = await store.add(new TextEncoder().encode('hello world\n'));
    const big = await store.add(pseudoRandom(CHUNK * 2 + 1, 5));
    const absent = await cidOf(new TextEncoder().encode('never stored'));

    expect(await store.has(small.cid)).toBe(true);
    expect(await store.has(big.cid)).toBe(true);
    expect(await store.has(absent.cid)).toBe(false);
    expect(await store.stat(small.cid)).toEqual({ cid: small.cid, size: 12, type: 'raw' });
    expect(await store.stat(big.cid)).toEqual({ cid: big.cid, size: CHUNK * 2 + 1, type: 'file' });
  });

  it('answers to the CIDv0 form of a stored file with its canonical CID', async () => {
    const store = await newStore();
    const { cid } = await store.add(pseudoRandom(CHUNK + 1, 6));
    const v0 = CID.parse(cid).toV0().toString();
    expect(v0.startsWith('Qm')).toBe(true);
    expect(await store.stat(v0)).toEqual({ cid, size: CHUNK + 1, type: 'file' });
  });

  it('gives the same CID to the same bytes added twice', async () => {
    const store = await newStore();
    const first = await store.add(pseudoRandom(CHUNK * 3, 7));
    const second = await store.add(pseudoRandom(CHUNK * 3, 7));
    expect(second).toEqual(first);
  });

  it('accepts a web ReadableStream, an async iterable, an iterable and plain bytes', async () => {
    const store = await newStore();
    const bytes = await collect(pseudoRandom(CHUNK + 12_345, 8));
    const expected = await cidOf(bytes);
    const pieces = [
      bytes.subarray(0, 1000),
      bytes.subarray(1000, CHUNK + 1),
      bytes.subarray(CHUNK + 1),
    ];

    const webStream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    async function* asyncPieces(): AsyncGenerator<Uint8Array> {
      yield* pieces;
    }

    expect(await store.add(webStream)).toEqual(expected);
    expect(await store.add(asyncPieces())).toEqual(expected);
    expect(await store.add(pieces)).toEqual(expected);
    expect(await store.add(bytes)).toEqual(expected);
    expect((await collect(store.cat(expected.cid))).equals(bytes)).toBe(true);
  });

  it('rejects content that is not bytes instead of converting it', async () => {
    const store = await newStore();
    const strings = ['not', 'bytes'] as unknown as Uint8Array[];
    await expect(store.add(strings)).rejects.toBeInstanceOf(TypeError);
  });

});

/** What only a local folder shows, and the files of two DAG levels (44 MB), read on disk alone. */
describe('content store on a local folder', () => {
  const tempDir = useTempDirs();
  const newStore = async (): Promise<ContentStore> => createContentStore({ dir: await tempDir() });

  it('creates its folder on first use', async () => {
    const dir = path.join(await tempDir(), 'nested', 'blocks');
    const store = createContentStore({ dir });
    await store.add(new Uint8Array([1, 2, 3]));
    expect((await statPath(dir)).isDirectory()).toBe(true);
  });

  it('gives back a file of two DAG levels intact', { timeout: 30_000 }, async () => {
    const store = await newStore();
    const size = LINKS_PER_NODE * CHUNK + 5 * KiB;
    const { cid } = await store.add(pseudoRandom(size, 3));
    expect(await digestOf(store.cat(cid))).toEqual(await digestOf(pseudoRandom(size, 3)));
  });

  it('refuses to serve a directory as a file', async () => {
    const dir = await tempDir();
    const blocks = new FsBlockstore(dir);
    await blocks.open();
    const folder = await importDirectory({ path: 'carpeta' }, blocks);
    const store = createContentStore({ dir });
    expect(await store.has(folder.cid.toString())).toBe(true);
    await expect(store.stat(folder.cid.toString())).rejects.toBeInstanceOf(NotAFileError);
    await expect(collect(store.cat(folder.cid.toString()))).rejects.toBeInstanceOf(NotAFileError);
  });

  it('lets a reader stop early, then serves the file again', async () => {
    const store = await newStore();
    const size = (LINKS_PER_NODE + 2) * CHUNK; // two DAG levels
    const { cid } = await store.add(pseudoRandom(size, 10));
    let read = 0;
    for await (const chunk of store.cat(cid)) {
      read += chunk.length;
      if (read >= CHUNK) break;
    }
    expect(read).toBe(CHUNK);
    expect(await digestOf(store.cat(cid))).toEqual(await digestOf(pseudoRandom(size, 10)));
  });

  it('still completes when it may not read ahead at all', async () => {
    const dir = await tempDir();
    const size = (LINKS_PER_NODE + 2) * CHUNK + 3;
    const { cid } = await createContentStore({ dir }).add(pseudoRandom(size, 11));
    const store = createContentStore({ dir, readAheadBytes: 1 });
    expect(await digestOf(store.cat(cid))).toEqual(await digestOf(pseudoRandom(size, 11)));
    const offset = CHUNK * (LINKS_PER_NODE - 1) + 5; // spans the two subtrees
    const range = await collect(store.cat(cid, { offset, length: CHUNK * 2 }));
    const bytes = await collect(pseudoRandom(size, 11));
    expect(range.equals(bytes.subarray(offset, offset + CHUNK * 2))).toBe(true);
  });
});
