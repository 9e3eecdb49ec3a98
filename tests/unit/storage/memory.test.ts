import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContentStore, type ContentStore } from '../../../src/lib/server/storage/index.ts';
import { MiB, pseudoRandom } from './helpers.ts';

const FILE_SIZE = 256 * MiB;
const ALLOWED_GROWTH = 64 * MiB;
const SAMPLE_EVERY = 16 * MiB;

/**
 * Garbage collection on demand, so samples show what is still held rather than what V8 has
 * not yet swept (freed buffers linger for tens of MiB, independent of the file's size).
 */
function collectGarbage(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** Tracks the largest growth of rss and ArrayBuffer memory over a baseline. */
function memoryWatch() {
  const gc = collectGarbage();
  gc();
  const base = process.memoryUsage();
  const peak = { rss: 0, arrayBuffers: 0 };
  return {
    sample(): void {
      gc();
      const now = process.memoryUsage();
      peak.rss = Math.max(peak.rss, now.rss - base.rss);
      peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers - base.arrayBuffers);
    },
    peak,
  };
}

/** Passes a stream through, sampling memory every `SAMPLE_EVERY` bytes. */
async function* sampled(
  source: AsyncIterable<Uint8Array>,
  watch: ReturnType<typeof memoryWatch>,
  pause?: () => Promise<void>,
): AsyncGenerator<Uint8Array> {
  let sinceSample = 0;
  for await (const chunk of source) {
    sinceSample += chunk.length;
    if (sinceSample >= SAMPLE_EVERY) {
      sinceSample = 0;
      watch.sample();
    }
    yield chunk;
    if (pause) await pause();
  }
}

describe('memory use', () => {
  // One store for both tests, so the reading test reuses the 256 MiB the first one wrote.
  let dir: string;
  let store: ContentStore;
  let storedCid: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'archivo-storage-memory-'));
    store = createContentStore({ dir });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('does not grow with the file while adding 256 MiB', { timeout: 60_000 }, async () => {
    const watch = memoryWatch();
    const { cid, size } = await store.add(sampled(pseudoRandom(FILE_SIZE, 42, 64 * 1024), watch));
    watch.sample();

    expect(size).toBe(FILE_SIZE);
    expect(watch.peak.rss).toBeLessThan(ALLOWED_GROWTH);
    expect(watch.peak.arrayBuffers).toBeLessThan(ALLOWED_GROWTH);
    storedCid = cid;
  });

  it('does not read ahead of a slow reader of 256 MiB', { timeout: 60_000 }, async () => {
    const cid = storedCid ?? (await store.add(pseudoRandom(FILE_SIZE, 42))).cid;
    const watch = memoryWatch();
    let read = 0;
    // A consumer slower than the disk, like a download over a slow network.
    const slow = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));
    for await (const chunk of sampled(store.cat(cid), watch, slow)) read += chunk.length;
    watch.sample();

    expect(read).toBe(FILE_SIZE);
    expect(watch.peak.rss).toBeLessThan(ALLOWED_GROWTH);
    expect(watch.peak.arrayBuffers).toBeLessThan(ALLOWED_GROWTH);
  });
});
