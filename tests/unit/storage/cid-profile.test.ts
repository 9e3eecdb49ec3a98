import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { vouchSha256 } from '../../../src/lib/server/storage/byte-source.ts';
import { importContent } from '../../../src/lib/server/storage/import-content.ts';
import { inspect } from '../../../src/lib/server/uploads/inspect.ts';
import { cidOf, createContentStore } from '../../../src/lib/server/storage/index.ts';
import { KiB, MiB, pseudoRandom, useTempDirs, zeros } from './helpers.ts';
import { CHUNK, LINKS_PER_NODE, referenceCid } from './reference-cid.ts';

/** Published by kubo (`ipfs add --cid-version=1`). */
const KUBO = {
  helloWorld: 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4',
  fiveMiBOfZeros: 'bafybeid7mu43g4fehkxhdkl4x3lu4pybxuxpg57it6r6z7e36soj7h2yd4',
  empty: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku',
};

const helloWorld = new TextEncoder().encode('hello world\n');

describe('the reference implementation', () => {
  it('reproduces kubo’s vectors, so it can judge the store', async () => {
    expect(await referenceCid([helloWorld])).toBe(KUBO.helloWorld);
    expect(await referenceCid([])).toBe(KUBO.empty);
    expect(await referenceCid(zeros(5 * MiB))).toBe(KUBO.fiveMiBOfZeros);
  });
});

describe('CIDs of added files', () => {
  const tempDir = useTempDirs();

  it('match kubo’s vectors', async () => {
    const store = createContentStore({ dir: await tempDir() });
    expect(await store.add(helloWorld)).toEqual({ cid: KUBO.helloWorld, size: 12 });
    expect(await store.add(new Uint8Array(0))).toEqual({ cid: KUBO.empty, size: 0 });
    expect(await store.add(zeros(5 * MiB))).toEqual({ cid: KUBO.fiveMiBOfZeros, size: 5 * MiB });
  });

  it('are what cidOf computes without storing', async () => {
    expect(await cidOf(helloWorld)).toEqual({ cid: KUBO.helloWorld, size: 12 });
    expect(await cidOf([])).toEqual({ cid: KUBO.empty, size: 0 });
    expect(await cidOf(zeros(5 * MiB))).toEqual({ cid: KUBO.fiveMiBOfZeros, size: 5 * MiB });
  });

  const sizes: Array<[string, number]> = [
    ['empty', 0],
    ['one byte', 1],
    ['one chunk less a byte', 256 * KiB - 1],
    ['exactly one chunk', 256 * KiB],
    ['one chunk and a byte', 256 * KiB + 1],
    ['3 MiB + 7 bytes', 3 * MiB + 7],
    ['exactly one full node of 174 chunks', LINKS_PER_NODE * CHUNK],
    ['a second level (174 chunks + 1 byte)', LINKS_PER_NODE * CHUNK + 1],
  ];

  it.each(sizes)('match the reference for %s', { timeout: 30_000 }, async (_, size) => {
    const store = createContentStore({ dir: await tempDir() });
    const expected = await referenceCid(pseudoRandom(size, size));
    expect(await store.add(pseudoRandom(size, size))).toEqual({ cid: expected, size });
    expect(await cidOf(pseudoRandom(size, size))).toEqual({ cid: expected, size });
  });

  it('depend on the bytes only, not on how the stream is cut', async () => {
    for (const size of [CHUNK - 1, CHUNK, 2 * CHUNK + 3]) {
      const expected = await referenceCid(pseudoRandom(size, 9));
      for (const pieceSize of [13, 4096, CHUNK - 1, CHUNK, CHUNK + 1, size]) {
        expect((await cidOf(pseudoRandom(size, 9, pieceSize))).cid).toBe(expected);
      }
    }
  });

  it('let go of the source when a write fails, read or not past the first chunk', async () => {
    // The longer one beyond what the importer reads ahead (8 chunks at once).
    for (const size of [4 * KiB, 32 * CHUNK]) {
      let cancelled = false;
      let offset = 0;
      const bytes = new Uint8Array(size).map((_, index) => index % 251);
      const source = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= size) return controller.close();
          controller.enqueue(bytes.subarray(offset, offset + 64 * KiB));
          offset += 64 * KiB;
        },
        cancel() {
          cancelled = true;
        },
      });
      const failing = { put: () => Promise.reject(new Error('disco lleno')) };
      await expect(importContent(source, failing)).rejects.toThrow('disco lleno');
      // A file of one chunk was read whole before its write; a longer one stops where the write
      // failed, its stream cancelled.
      for (let turn = 0; turn < 100 && size > CHUNK && !cancelled; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(cancelled).toBe(size > CHUNK);
      if (size > CHUNK) expect(offset).toBeLessThan(size);
    }
  });

  describe('of a file inspected on its way in (uploads and captures)', () => {
    const inspected = (content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) =>
      inspect(
        (async function* () {
          yield* content;
        })(),
        { maxBytes: 10 * MiB, tooLargeMessage: 'demasiado grande', checkHead: () => {} },
      );

    it.each(sizes.slice(0, 6))('match the reference for %s, and the inspection’s SHA-256 is the bytes’', async (_, size) => {
      const inspection = inspected(pseudoRandom(size, size, 64 * KiB));
      expect(await cidOf(inspection.stream)).toEqual({ cid: await referenceCid(pseudoRandom(size, size)), size });
      const whole = createHash('sha256');
      for await (const piece of pseudoRandom(size, size)) whole.update(piece);
      expect(inspection.result().sha256).toBe(whole.digest('hex'));
    });

    it('take a one-block file’s digest from the inspection instead of hashing its bytes again', async () => {
      // A stream vouched for with another file's digest: the CID follows it, so no second hash was made.
      const claimed = createHash('sha256').update('otro archivo').digest();
      const stream = vouchSha256(
        (async function* () {
          yield helloWorld;
        })(),
        () => claimed,
      );
      const { cid } = await cidOf(stream);
      expect(cid).not.toBe(KUBO.helloWorld);
      expect(cid).toBe(await referenceCid([new TextEncoder().encode('otro archivo')]));
      // A property of that name or any other on a stream vouches for nothing: only `vouchSha256` does.
      const carried = Object.assign(
        (async function* () {
          yield helloWorld;
        })(),
        { wholeSha256: () => claimed },
      );
      expect((await cidOf(carried)).cid).toBe(KUBO.helloWorld);
    });

    it('refuse the digest of a stream not read to its end', async () => {
      const inspection = inspected([helloWorld, helloWorld]);
      const chunks = inspection.stream[Symbol.asyncIterator]();
      await chunks.next();
      expect(() => inspection.wholeSha256()).toThrow('read to its end');
      expect(() => inspection.result()).toThrow('read to its end');
    });
  });
});
