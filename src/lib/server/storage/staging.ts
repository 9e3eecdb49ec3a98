/**
 * A staging area for files that are not accepted yet: an upload streams its blocks here, and only
 * once the contribution is verified are they moved into the store. A refused, failed or
 * interrupted upload then leaves nothing in the store, not even stray blocks.
 *
 * A staged upload is a flat folder of its own holding one file per block, named as the store names
 * it, so that committing is one `rename` per block into the store's layout (the staging root lives
 * beside the store, on the same file system). Writing there is a plain `writeFile`: the folder is
 * private to the upload and thrown away whole on failure, so it needs neither the store's atomic
 * temporary-file-and-rename nor its shard folders, and a gigabyte's 4,000 blocks cost a third
 * fewer system calls. A commit moves the blocks several at a time, and each file's root only once
 * all the other blocks are in: a crash half-way through a commit can leave some blocks in the
 * store, but never a root whose blocks are missing.
 *
 * The move happens inside the upload's database transaction, last: after the transaction has
 * spent the upload's nonce, so that the same signed upload sent twice at once cannot move blocks
 * and then take them back from under the copy that won. The blocks it adds to the store are
 * journalled first: if the transaction then fails they are taken back (`discard`), and if the
 * process dies before `settle`, the next start undoes the move unless the record was committed.
 * (A block that another upload adds at the same moment, for an identical chunk, could be taken
 * back with it; identical 256 KiB chunks in two concurrent, differing files are the only case.)
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { NextToLast } from 'blockstore-fs/sharding';
import type { WritableStorage } from 'ipfs-unixfs-importer';
import type { CID } from 'multiformats/cid';
import type { ByteSource } from './byte-source.ts';
import { coalesceWrites } from './coalesce-writes.ts';
import { importContent, type AddResult } from './import-content.ts';
import { isProcessAlive } from '../process.ts';

/** One upload's staged files. */
export interface StagedUpload {
  /** Stores a file in this upload's staging folder; the same CID `ContentStore.add` would give. */
  add(source: ByteSource): Promise<AddResult>;
  /**
   * Moves every staged block into the store, the files' roots last. The blocks the store did not have yet
   * are first written down in a journal beside the staging folder, naming `keptBy` (the CID whose
   * record makes the move final), so that a crash before `settle()` can be undone at start-up.
   */
  commit(keptBy: string): Promise<void>;
  /** The move is final (its record is committed): forgets the journal and the staging folder. */
  settle(): Promise<void>;
  /**
   * Takes back what the move added to the store (after `commit`, when the record could not be
   * written), then clears the staging folder; before `commit`, just clears it. Safe to repeat.
   */
  discard(): Promise<void>;
}

/** What a commit in progress wrote down: the blocks it added to the store, and why they stay. */
interface Journal {
  keptBy: string;
  added: string[];
}

export interface StagingArea {
  /** Starts a staged upload in a fresh folder. */
  begin(): StagedUpload;
  /**
   * Clears what processes that are gone (a crash mid-upload) left, found by the process id each
   * name starts with: staging folders, and moves that were journalled but never settled, which are
   * undone unless `isKept(keptBy)` says their record was committed after all.
   */
  sweep(isKept: (cid: string) => Promise<boolean>): Promise<number>;
}

/** Same layout as the store's blockstore (blockstore-fs's default), so paths match one to one. */
const layout = new NextToLast();

/**
 * File-system calls a commit keeps in flight: enough to keep libuv's four threads busy, as one at
 * a time left a gigabyte's commit waiting on 8,000 round trips in turn.
 */
const MOVES_AT_ONCE = 16;

/**
 * The staging area of the store kept in `storeDir`; `dir` must be on the same file system (the
 * archive keeps it beside `blocks/` in its data folder).
 */
export function createStagingArea({ storeDir, dir }: { storeDir: string; dir: string }): StagingArea {
  return {
    begin() {
      const folder = path.join(dir, `${process.pid}-${randomUUID()}`);
      const journalFile = `${folder}.journal.json`;
      // A block written twice at once (a repeated chunk) reaches the disk once.
      const writer = coalesceWrites({
        async put(cid, bytes) {
          await fs.writeFile(path.join(folder, layout.encode(cid).file), bytes);
          return cid;
        },
      });
      const written: CID[] = [];
      const roots = new Set<string>();
      const recorded: WritableStorage = {
        async put(cid, bytes, options) {
          await writer.put(cid, bytes, options);
          written.push(cid);
          return cid;
        },
      };
      let opened: Promise<unknown> | undefined;
      let added: string[] = [];

      return {
        async add(source) {
          await (opened ??= fs.mkdir(folder, { recursive: true }));
          const added = await importContent(source, recorded);
          roots.add(added.cid);
          return added;
        },
        async commit(keptBy) {
          const moves = new Map<string, { from: string; to: string; isRoot: boolean }>();
          for (const cid of written) {
            const { dir: shard, file } = layout.encode(cid);
            const to = path.join(storeDir, shard, file);
            // A repeated chunk is one block; a block that is also a root moves with the roots.
            const isRoot = roots.has(cid.toString()) || moves.get(to)?.isRoot === true;
            moves.set(to, { from: path.join(folder, file), to, isRoot });
          }
          const all = [...moves.values()];
          const isNew = await eachAtOnce(all, async (move) => !(await exists(move.to)));
          added = all.filter((_, index) => isNew[index]).map((move) => move.to);
          // Written down before the first block moves: a crash from here on can be undone.
          await writeJournal(journalFile, { keptBy, added });
          await eachAtOnce([...new Set(all.map((move) => path.dirname(move.to)))], (target) => fs.mkdir(target, { recursive: true }));
          await eachAtOnce(all.filter((move) => !move.isRoot), (move) => fs.rename(move.from, move.to));
          for (const move of all.filter((move) => move.isRoot)) await fs.rename(move.from, move.to);
        },
        async settle() {
          added = [];
          await fs.rm(journalFile, { force: true });
          await fs.rm(folder, { recursive: true, force: true });
        },
        async discard() {
          await removeAll(added);
          added = [];
          await fs.rm(journalFile, { force: true });
          await fs.rm(folder, { recursive: true, force: true });
        },
      };
    },
    async sweep(isKept) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        return 0;
      }
      let removed = 0;
      const orphan = (name: string) => {
        const pid = Number(name.split('-')[0]);
        return !(Number.isSafeInteger(pid) && isProcessAlive(pid));
      };
      // Unsettled moves first: undone unless their record made it.
      for (const name of names.filter((entry) => entry.endsWith('.journal.json') && orphan(entry))) {
        const file = path.join(dir, name);
        const journal = await readJournal(file);
        if (journal && !(await isKept(journal.keptBy))) await removeAll(journal.added);
        await fs.rm(file, { force: true });
        removed += 1;
      }
      for (const name of names.filter((entry) => !entry.endsWith('.journal.json') && orphan(entry))) {
        await fs.rm(path.join(dir, name), { recursive: true, force: true });
        removed += 1;
      }
      return removed;
    },
  };
}

/** `work` over every item, `MOVES_AT_ONCE` at a time; the results in the items' order. */
async function eachAtOnce<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MOVES_AT_ONCE, items.length) }, worker));
  return results;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

async function removeAll(files: string[]): Promise<void> {
  for (const file of files) await fs.rm(file, { force: true });
}

/** Written to a temporary name and renamed: a journal is either whole or absent. */
async function writeJournal(file: string, journal: Journal): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  const handle = await fs.open(temporary, 'w');
  try {
    await handle.writeFile(JSON.stringify(journal));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
}

async function readJournal(file: string): Promise<Journal | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Journal;
  } catch {
    return null;
  }
}
