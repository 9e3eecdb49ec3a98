import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import { NextToLast } from 'blockstore-fs/sharding';
import { CID } from 'multiformats/cid';
import { identity } from 'multiformats/hashes/identity';
import { sha256 } from 'multiformats/hashes/sha2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cidOf,
  CorruptBlockError,
  createContentStore,
  InvalidCidError,
  MissingBlockError,
  NotInStoreError,
  StorageError,
  type ContentStore,
} from '../../../src/lib/server/storage/index.ts';
import { collect, digestOf, pseudoRandom, useTempDirs } from './helpers.ts';
import { CHUNK, LINKS_PER_NODE, rawLeafCid } from './reference-cid.ts';

/** Where blockstore-fs keeps a block: its default sharding, by multihash. */
function blockFile(dir: string, cid: string): string {
  const { dir: shard, file } = new NextToLast().encode(CID.parse(cid));
  return path.join(dir, shard, file);
}

/** Flips one byte of a stored block in place, as disk damage would. */
async function damage(dir: string, cid: string, at = 100): Promise<void> {
  const handle = await open(blockFile(dir, cid), 'r+');
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, at);
    byte[0] = (byte[0] ?? 0) ^ 0xff;
    await handle.write(byte, 0, 1, at);
  } finally {
    await handle.close();
  }
}

/** The CID of the `index`-th 256 KiB chunk of `content`. */
async function leafCid(content: AsyncIterable<Uint8Array>, index: number): Promise<string> {
  const bytes = await collect(content);
  return rawLeafCid(bytes.subarray(index * CHUNK, (index + 1) * CHUNK));
}

describe('content store integrity', () => {
  const tempDir = useTempDirs();
  let dir: string;
  let store: ContentStore;

  // The exporter turns some read errors into unhandled rejections (see read-session.ts):
  // vitest would report them, but an explicit check names the cause.
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  beforeEach(async () => {
    dir = await tempDir();
    store = createContentStore({ dir });
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });

  it('refuses a damaged leaf in the middle of a file', async () => {
    const size = 3 * CHUNK + 10;
    const { cid } = await store.add(pseudoRandom(size, 1));
    const leaf = await leafCid(pseudoRandom(size, 1), 1);
    await damage(dir, leaf);

    const error = await collect(store.cat(cid)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptBlockError);
    expect(error).toMatchObject({ cid: leaf });
  });

  it('still serves ranges that avoid a damaged block, even one ending just before it', async () => {
    const size = 3 * CHUNK + 10;
    const { cid } = await store.add(pseudoRandom(size, 1));
    await damage(dir, await leafCid(pseudoRandom(size, 1), 1));
    const bytes = await collect(pseudoRandom(size, 1));
    const patient = createContentStore({ dir, readAheadBytes: 1 });
    // The exporter also reads the block after a range that ends on a boundary, and whether
    // that read fails before or after the range's bytes arrive is a race: try it often.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      for (const reader of [store, patient]) {
        const head = await collect(reader.cat(cid, { offset: 0, length: CHUNK }));
        expect(head.equals(bytes.subarray(0, CHUNK))).toBe(true);
      }
    }
    const tail = await collect(store.cat(cid, { offset: 2 * CHUNK }));
    expect(tail.equals(bytes.subarray(2 * CHUNK))).toBe(true);
  });

  it('stops before yielding any byte of the damaged block', async () => {
    const size = 3 * CHUNK;
    const { cid } = await store.add(pseudoRandom(size, 2));
    await damage(dir, await leafCid(pseudoRandom(size, 2), 1), 5);
    const received: number[] = [];
    await expect(
      (async () => {
        for await (const chunk of store.cat(cid)) received.push(chunk.length);
      })(),
    ).rejects.toBeInstanceOf(CorruptBlockError);
    expect(received.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(CHUNK);
  });

  it('refuses a damaged leaf deep in a two-level file without crashing the process', async () => {
    const size = (LINKS_PER_NODE + 3) * CHUNK;
    const { cid } = await store.add(pseudoRandom(size, 3));
    await damage(dir, await leafCid(pseudoRandom(size, 3), LINKS_PER_NODE + 1));
    await expect(digestOf(store.cat(cid))).rejects.toBeInstanceOf(CorruptBlockError);
  });

  it('refuses a damaged single-block file, in cat and stat', async () => {
    const { cid } = await store.add(pseudoRandom(1000, 4));
    await damage(dir, cid, 10);
    await expect(collect(store.cat(cid))).rejects.toBeInstanceOf(CorruptBlockError);
    await expect(store.stat(cid)).rejects.toBeInstanceOf(CorruptBlockError);
  });

  it('refuses a damaged root node', async () => {
    const { cid } = await store.add(pseudoRandom(2 * CHUNK, 5));
    await damage(dir, cid, 20);
    await expect(collect(store.cat(cid))).rejects.toBeInstanceOf(CorruptBlockError);
    await expect(store.stat(cid)).rejects.toBeInstanceOf(CorruptBlockError);
  });

  it('reports a lost leaf as a missing block', async () => {
    const size = 2 * CHUNK;
    const { cid } = await store.add(pseudoRandom(size, 6));
    const leaf = await leafCid(pseudoRandom(size, 6), 1);
    await rm(blockFile(dir, leaf));
    const error = await collect(store.cat(cid)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingBlockError);
    expect(error).toMatchObject({ cid: leaf });
  });

  it('repairs a damaged block when the same bytes are added again', async () => {
    const size = 2 * CHUNK + 1;
    const { cid } = await store.add(pseudoRandom(size, 7));
    await damage(dir, await leafCid(pseudoRandom(size, 7), 0));
    await expect(digestOf(store.cat(cid))).rejects.toBeInstanceOf(CorruptBlockError);
    await store.add(pseudoRandom(size, 7));
    expect(await digestOf(store.cat(cid))).toEqual(await digestOf(pseudoRandom(size, 7)));
  });

  it('answers NotInStoreError for a well-formed CID it never stored', async () => {
    const { cid } = await cidOf(new TextEncoder().encode('never stored'));
    await expect(collect(store.cat(cid))).rejects.toBeInstanceOf(NotInStoreError);
    await expect(store.stat(cid)).rejects.toBeInstanceOf(NotInStoreError);
    expect(await store.has(cid)).toBe(false);
  });

  it('answers InvalidCidError for strings that cannot name a stored file', async () => {
    // Well-formed CIDs the store can never hold: bytes inlined in the CID, and a dag-cbor block.
    const inline = CID.createV1(0x55, identity.digest(new TextEncoder().encode('hi'))).toString();
    const dagCbor = CID.createV1(0x71, await sha256.digest(new Uint8Array([0xa0]))).toString();
    for (const input of ['', 'garbage', 'bafy', 'QmNotReallyACid', inline, dagCbor]) {
      await expect(collect(store.cat(input)), input).rejects.toBeInstanceOf(InvalidCidError);
      await expect(store.stat(input), input).rejects.toBeInstanceOf(InvalidCidError);
      await expect(store.has(input), input).rejects.toBeInstanceOf(InvalidCidError);
    }
    const error = await store.stat('garbage').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ name: 'InvalidCidError', input: 'garbage' });
  });
});
