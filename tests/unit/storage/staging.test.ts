/**
 * The staging area: blocks join the store only on commit, a failed commit is taken back, and a
 * commit interrupted by a crash is undone by a later sweep unless its record made it. On a local
 * folder (blocks moved by rename) and on an S3 bucket (blocks PUT, staged copies removed on settle).
 * Sweeps that judge owners by their lease in the database: tests/integration/staging-instances.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createContentStore,
  createStagingArea,
  localBlockstore,
  s3Blockstore,
  type FileGuard,
  type OpenedBlockstore,
} from '../../../src/lib/server/storage/index.ts';
import { startS3, type TestS3 } from '../../helpers/s3.ts';
import { guardHolding, NO_TRANSACTION } from './helpers.ts';

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

async function files(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)).sort();
}

/** 1 MiB that no other test stores: four equal leaves (one block) and a root. */
const payload = (seed: number) => Buffer.alloc(1024 * 1024, seed);

describe.each(['fs', 's3'] as const)('the staging area on %s', (backend) => {
  let s3: TestS3 | undefined;
  let root: string;
  let stagingDir: string;
  let target: OpenedBlockstore;
  /** What the store holds: block files, or the bucket's keys under this test's prefix. */
  let stored: () => Promise<string[]>;

  beforeAll(async () => {
    if (backend === 's3') s3 = await startS3();
  });
  afterAll(() => s3?.stop());
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
    stagingDir = path.join(root, 'staging');
    if (s3) {
      const prefix = `${randomUUID()}/`;
      target = s3Blockstore(s3.settings(prefix));
      stored = () => s3!.keys(prefix);
    } else {
      const storeDir = path.join(root, 'blocks');
      target = localBlockstore(storeDir);
      stored = () => files(storeDir);
    }
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  const newStaging = () => createStagingArea({ store: target, dir: stagingDir, guard: guardHolding() });
  const newStore = () => createContentStore({ blockstore: target });

  it('adds nothing to the store until commit, and settles into it', async () => {
    const upload = newStaging().begin();
    const { cid } = await upload.add(payload(1));
    expect(await stored()).toEqual([]);
    await upload.commit(NO_TRANSACTION);
    expect(await stored()).toHaveLength(2); // four equal leaves are one block, and the root
    await upload.settle();
    expect(await files(stagingDir)).toEqual([]);
    const chunks: Uint8Array[] = [];
    for await (const chunk of newStore().cat(cid)) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(payload(1))).toBe(true);
  });

  it('moves the root of each file only once every other block is in the store', async () => {
    const store = newStore();
    const storedWhenRootArrived = new Map<string, number>();
    /** The two files' roots, once known. */
    const roots: string[] = [];
    // The store as staging sees it, noting how many blocks were in when each root arrived.
    const watched: OpenedBlockstore = {
      ...target,
      async adopt(cid, file) {
        await target.adopt(cid, file);
        for (const root of roots) {
          if (!storedWhenRootArrived.has(root) && (await store.has(root))) storedWhenRootArrived.set(root, (await stored()).length);
        }
      },
    };
    const upload = createStagingArea({ store: watched, dir: stagingDir, guard: guardHolding() }).begin();
    // Random bytes: every 256 KiB leaf differs, so there are many blocks to move at once.
    const document = await upload.add(randomBytes(3 * 1024 * 1024 + 5));
    const proof = await upload.add(randomBytes(600 * 1024));
    roots.push(document.cid, proof.cid);
    await upload.commit(NO_TRANSACTION);
    const total = (await stored()).length;
    expect(total).toBe(13 + 1 + 3 + 1); // the document's leaves and root, the proof's
    // Each root arrived among the last two moves: after every leaf of both files.
    expect(storedWhenRootArrived.get(document.cid)! >= total - 1).toBe(true);
    expect(storedWhenRootArrived.get(proof.cid)! >= total - 1).toBe(true);
  });

  it("moves the roots of many one-block files side by side, as a group of captures has them", async () => {
    let moving = 0;
    let mostAtOnce = 0;
    const watched: OpenedBlockstore = {
      ...target,
      async adopt(cid, file) {
        mostAtOnce = Math.max(mostAtOnce, ++moving);
        try {
          await target.adopt(cid, file);
        } finally {
          moving -= 1;
        }
      },
    };
    const upload = createStagingArea({ store: watched, dir: stagingDir, guard: guardHolding() }).begin();
    // Forty small files: each is one block, its own root.
    for (let index = 0; index < 40; index += 1) await upload.add(randomBytes(1000));
    await upload.commit(NO_TRANSACTION);
    expect(await stored()).toHaveLength(40);
    // One at a time, a group's hundreds of roots waited on each other's round trip to the disk.
    expect(mostAtOnce).toBeGreaterThan(1);
  });

  it("moves a root that is also a chunk of another staged file before that file's root", async () => {
    const tail = randomBytes(1000);
    const arrived: string[] = [];
    let small = '';
    const watched: OpenedBlockstore = {
      ...target,
      async adopt(cid, file) {
        // The shared block takes its time: a root that did not wait for it would land first.
        if (cid.toString() === small) await new Promise((resolve) => setTimeout(resolve, 50));
        await target.adopt(cid, file);
        arrived.push(cid.toString());
      },
    };
    const upload = createStagingArea({ store: watched, dir: stagingDir, guard: guardHolding() }).begin();
    // A full chunk and a tail, and a small file of the tail's bytes: one block, both a root and a chunk.
    const large = await upload.add(Buffer.concat([randomBytes(256 * 1024), tail]));
    small = (await upload.add(tail)).cid;
    await upload.commit(NO_TRANSACTION);
    expect(arrived).toContain(small);
    expect(arrived.indexOf(small)).toBeLessThan(arrived.indexOf(large.cid));
  });

  it('lets no block land after a failed commit is taken back', async () => {
    let started = 0;
    let ended = 0;
    const watched: OpenedBlockstore = {
      ...target,
      async adopt(cid, file) {
        started += 1;
        try {
          if (started === 3) throw new Error('el disco se llenó');
          await new Promise((resolve) => setTimeout(resolve, 20));
          await target.adopt(cid, file);
        } finally {
          ended += 1;
        }
      },
    };
    const upload = createStagingArea({ store: watched, dir: stagingDir, guard: guardHolding() }).begin();
    for (let index = 0; index < 40; index += 1) await upload.add(randomBytes(1000));
    await expect(upload.commit(NO_TRANSACTION)).rejects.toThrow('el disco se llenó');
    // The moves under way had ended, and none of the forty was started after the failure.
    expect(ended).toBe(started);
    expect(started).toBeLessThan(40);
    const startedByThen = started;
    await upload.discard();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started).toBe(startedByThen);
    expect(await stored()).toEqual([]);
  });

  it('takes the roots back before their other blocks when a commit is undone', async () => {
    const deleted: string[] = [];
    const watched: OpenedBlockstore = {
      ...target,
      async delete(cid, options) {
        deleted.push(cid.toString());
        await target.delete(cid, options);
      },
    };
    const upload = createStagingArea({ store: watched, dir: stagingDir, guard: guardHolding() }).begin();
    // Random bytes: three different leaves and a root.
    const { cid } = await upload.add(randomBytes(600 * 1024));
    await upload.commit(NO_TRANSACTION);
    await upload.discard();
    expect(deleted).toHaveLength(4);
    expect(deleted[0]).toBe(cid);
    expect(await stored()).toEqual([]);
  });

  it('takes back a commit whose record failed, leaving blocks the store had before', async () => {
    await newStore().add(payload(2));
    const before = await stored();
    const upload = newStaging().begin();
    // The same file again (its blocks are already stored) and a new one.
    await upload.add(payload(2));
    await upload.add(payload(3));
    await upload.commit(NO_TRANSACTION);
    expect((await stored()).length).toBeGreaterThan(before.length);
    await upload.discard();
    expect(await stored()).toEqual(before);
    expect(await files(stagingDir)).toEqual([]);
  });

  it('has a later owner undo a move a dead one never settled, unless its record was committed', async () => {
    const before = await stored();
    for (const kept of [false, true]) {
      // Without a registered instance, staging belongs to this process alone, and any other owner
      // of the folder is gone: the next area (a restarted process) sweeps what this one left.
      const upload = newStaging().begin();
      const { cid } = await upload.add(payload(kept ? 5 : 4));
      await upload.commit(NO_TRANSACTION);
      const asked: string[][] = [];
      const removed = await createStagingArea({ store: target, dir: stagingDir, guard: guardHolding(new Set(kept ? [cid] : []), asked) }).sweep();
      expect(asked).toEqual([[cid]]);
      expect(removed).toBe(2); // the journal and the folder
      expect(await fs.readdir(stagingDir)).toEqual([]);
      if (!kept) expect(await stored()).toEqual(before);
      else expect(await newStore().has(cid)).toBe(true);
    }
  });

  it('takes back only the blocks of files no record holds, keeping a chunk a held file shares', async () => {
    const before = await stored();
    const heldCids = new Set<string>();
    const asked: string[][] = [];
    const upload = createStagingArea({ store: target, dir: stagingDir, guard: guardHolding(heldCids, asked) }).begin();
    // Two files of one move sharing a 256 KiB chunk: `held` is four of it, `taken` two of it and two of another.
    const held = await upload.add(payload(10));
    const taken = await upload.add(Buffer.concat([Buffer.alloc(512 * 1024, 10), Buffer.alloc(512 * 1024, 11)]));
    await upload.commit(NO_TRANSACTION);
    expect((await stored()).length).toBe(before.length + 4); // the shared chunk, the other one, two roots
    // The transaction failed, but meanwhile another upload of `held`'s bytes committed its record
    // (finding these blocks in the store, it journalled none): they must stay.
    heldCids.add(held.cid);
    await upload.discard();
    expect(asked).toEqual([[held.cid, taken.cid]]);
    expect((await stored()).length).toBe(before.length + 2);
    expect((await collect(newStore().cat(held.cid))).equals(payload(10))).toBe(true);
    expect(await newStore().has(taken.cid)).toBe(false);
    expect(await files(stagingDir)).toEqual([]);
  });

  it('takes nothing back when the database cannot say what is held, and leaves the journal to a sweep', async () => {
    const before = await stored();
    const unreachable: FileGuard = {
      hold: async () => {},
      undoing: async () => {
        throw new Error('la base de datos no responde');
      },
    };
    const upload = createStagingArea({ store: target, dir: stagingDir, guard: unreachable }).begin();
    const { cid } = await upload.add(payload(12));
    await upload.commit(NO_TRANSACTION);
    await expect(upload.discard()).rejects.toThrow('la base de datos no responde');
    // The blocks stay (nothing is taken back unsure), the staged copies go, and the journal waits
    // under a name no instance owns.
    expect(await newStore().has(cid)).toBe(true);
    const left = await fs.readdir(stagingDir);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^[0-9a-f-]{36}\.orphan\.journal\.json$/);
    // A sweep that can ask goes on with it (here every other owner counts as gone).
    expect(await newStaging().sweep()).toBe(1);
    expect(await stored()).toEqual(before);
    expect(await fs.readdir(stagingDir)).toEqual([]);
  });

  it('goes on sweeping past a journal it cannot undo, and keeps that one for the next sweep', async () => {
    const before = await stored();
    const first = newStaging().begin();
    const stuck = await first.add(payload(13));
    await first.commit(NO_TRANSACTION);
    const second = newStaging().begin();
    const fine = await second.add(payload(14));
    await second.commit(NO_TRANSACTION);
    // Both processes "died" before settling. The guard cannot answer for the first file.
    const choosy: FileGuard = {
      hold: async () => {},
      undoing: async (cids, undo) => {
        if (cids.includes(stuck.cid)) throw new Error('cerrojo ocupado demasiado tiempo');
        return undo(new Set());
      },
    };
    expect(await createStagingArea({ store: target, dir: stagingDir, guard: choosy }).sweep()).toBe(3); // a journal, two folders
    expect(await newStore().has(fine.cid)).toBe(false);
    expect(await newStore().has(stuck.cid)).toBe(true);
    expect(await fs.readdir(stagingDir)).toHaveLength(1);
    expect(await newStaging().sweep()).toBe(1);
    expect(await stored()).toEqual(before);
  });

  it('leaves its own uploads alone when it sweeps', async () => {
    const staging = newStaging();
    const upload = staging.begin();
    const { cid } = await upload.add(payload(6));
    expect(await staging.sweep()).toBe(0);
    await upload.commit(NO_TRANSACTION);
    await upload.settle();
    expect(await newStore().has(cid)).toBe(true);
  });
});

describe('the staging area after an upgrade', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('undoes a journal of the pid-named staging (block file paths) its sole owner finds', async () => {
    const storeDir = path.join(root, 'blocks');
    const stagingDir = path.join(root, 'staging');
    const store = createContentStore({ dir: storeDir });
    const { cid } = await store.add(payload(7));
    const blockFiles = await files(storeDir);
    // What a process of the earlier release left: `<pid>-<upload>` and its journal of paths.
    const old = path.join(stagingDir, `4242-${randomUUID()}`);
    await fs.mkdir(old, { recursive: true });
    await fs.writeFile(`${old}.journal.json`, JSON.stringify({ keptBy: cid, added: blockFiles }));
    // Its record made it: the journal's `keptBy` is held, and nothing is taken back.
    expect(await createStagingArea({ storeDir, dir: stagingDir, guard: guardHolding(new Set([cid])) }).sweep()).toBe(2);
    expect(await files(storeDir)).toEqual(blockFiles);
    // It did not: every block it names goes.
    await fs.mkdir(old, { recursive: true });
    await fs.writeFile(`${old}.journal.json`, JSON.stringify({ keptBy: cid, added: blockFiles }));
    expect(await createStagingArea({ storeDir, dir: stagingDir, guard: guardHolding() }).sweep()).toBe(2);
    expect(await files(storeDir)).toEqual([]);
    expect(await fs.readdir(stagingDir)).toEqual([]);
  });
});
