/**
 * The staging area: blocks join the store only on commit, a failed commit is taken back, and a
 * commit interrupted by a crash is undone at start-up unless its record made it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createContentStore, createStagingArea } from '../../../src/lib/server/storage/index.ts';

async function files(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)).sort();
}

/** 1 MiB that no other test stores: four leaves and a root. */
const payload = (seed: number) => Buffer.alloc(1024 * 1024, seed);

describe('the staging area', () => {
  let root: string;
  let storeDir: string;
  let stagingDir: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    storeDir = path.join(root, 'blocks');
    stagingDir = path.join(root, 'staging');
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('adds nothing to the store until commit, and settles into it', async () => {
    const staging = createStagingArea({ storeDir, dir: stagingDir });
    const upload = staging.begin();
    const { cid } = await upload.add(payload(1));
    expect(await files(storeDir)).toEqual([]);
    await upload.commit(cid);
    await upload.settle();
    expect(await files(stagingDir)).toEqual([]);
    const store = createContentStore({ dir: storeDir });
    const chunks: Uint8Array[] = [];
    for await (const chunk of store.cat(cid)) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(payload(1))).toBe(true);
  });

  it('moves the root of each file only once every other block is in the store', async () => {
    const staging = createStagingArea({ storeDir, dir: stagingDir });
    const store = createContentStore({ dir: storeDir });
    const upload = staging.begin();
    // Random bytes: every 256 KiB leaf differs, so there are many blocks to move at once.
    const document = await upload.add(randomBytes(3 * 1024 * 1024 + 5));
    const proof = await upload.add(randomBytes(600 * 1024));
    const storedWhenRootArrived = new Map<string, number>();
    const rename = fs.rename;
    const spy = vi.spyOn(fs, 'rename').mockImplementation(async (from, to) => {
      await rename(from, to);
      for (const { cid } of [document, proof]) {
        if (!storedWhenRootArrived.has(cid) && (await store.has(cid))) storedWhenRootArrived.set(cid, (await files(storeDir)).length);
      }
    });
    try {
      await upload.commit(document.cid);
    } finally {
      spy.mockRestore();
    }
    const total = (await files(storeDir)).length;
    expect(total).toBe(13 + 1 + 3 + 1); // the document's leaves and root, the proof's
    // Each root arrived among the last two renames: after every leaf of both files.
    expect(storedWhenRootArrived.get(document.cid)! >= total - 1).toBe(true);
    expect(storedWhenRootArrived.get(proof.cid)! >= total - 1).toBe(true);
  });

  it('takes back a commit whose record failed, leaving blocks the store had before', async () => {
    const store = createContentStore({ dir: storeDir });
    await store.add(payload(2));
    const before = await files(storeDir);
    const staging = createStagingArea({ storeDir, dir: stagingDir });
    const upload = staging.begin();
    // The same file again (its blocks are already stored) and a new one.
    await upload.add(payload(2));
    const { cid } = await upload.add(payload(3));
    await upload.commit(cid);
    expect((await files(storeDir)).length).toBeGreaterThan(before.length);
    await upload.discard();
    expect(await files(storeDir)).toEqual(before);
    expect(await files(stagingDir)).toEqual([]);
  });

  it('undoes at start-up a move a dead process never settled, unless its record was committed', async () => {
    const before = await files(storeDir);
    for (const kept of [false, true]) {
      const staging = createStagingArea({ storeDir, dir: stagingDir });
      const upload = staging.begin();
      const { cid } = await upload.add(payload(kept ? 5 : 4));
      await upload.commit(cid);
      // The process "dies": its files now carry the pid of a process that is not running.
      for (const name of await fs.readdir(stagingDir)) {
        await fs.rename(path.join(stagingDir, name), path.join(stagingDir, name.replace(/^\d+-/, '2147483646-')));
      }
      const asked: string[] = [];
      await createStagingArea({ storeDir, dir: stagingDir }).sweep(async (keptBy) => {
        asked.push(keptBy);
        return kept;
      });
      expect(asked).toEqual([cid]);
      expect(await fs.readdir(stagingDir)).toEqual([]);
      if (!kept) expect(await files(storeDir)).toEqual(before);
      else expect(await createContentStore({ dir: storeDir }).has(cid)).toBe(true);
    }
  });
});
