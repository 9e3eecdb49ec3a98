/**
 * A staging area for files that are not accepted yet: an upload streams its blocks here, and only
 * once the contribution is verified are they moved into the store. A refused, failed or
 * interrupted upload then leaves nothing in the store, not even stray blocks.
 *
 * A staged upload is a blockstore-fs folder of its own, laid out exactly like the store, so that
 * committing is one `rename` per block (the staging root lives beside the store, on the same
 * file system). Blocks move in the order the importer wrote them, leaves first and each file's
 * root last: a crash half-way through a commit can leave some blocks in the store, but never a
 * root whose blocks are missing.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FsBlockstore } from 'blockstore-fs';
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
  /** Moves every staged block into the store, roots last, then removes the staging folder. */
  commit(): Promise<void>;
  /** Removes the staging folder and everything in it; safe to call more than once. */
  discard(): Promise<void>;
}

export interface StagingArea {
  /** Starts a staged upload in a fresh folder. */
  begin(): StagedUpload;
  /**
   * Removes folders left by processes that are gone (a crash mid-upload), found by the process id
   * each folder name starts with. Folders of live processes, this one included, are kept.
   */
  sweep(): Promise<number>;
}

/** Same layout as the store's blockstore (blockstore-fs's default), so paths match one to one. */
const layout = new NextToLast();

/**
 * The staging area of the store kept in `storeDir`; `dir` must be on the same file system (the
 * archive keeps it beside `blocks/` in its data folder).
 */
export function createStagingArea({ storeDir, dir }: { storeDir: string; dir: string }): StagingArea {
  return {
    begin() {
      const folder = path.join(dir, `${process.pid}-${randomUUID()}`);
      const blockstore = new FsBlockstore(folder, { createIfMissing: true, shardingStrategy: layout });
      const writer = coalesceWrites(blockstore);
      const written: CID[] = [];
      const recorded: WritableStorage = {
        async put(cid, bytes, options) {
          await writer.put(cid, bytes, options);
          written.push(cid);
          return cid;
        },
      };
      let opened: Promise<void> | undefined;

      return {
        async add(source) {
          await (opened ??= blockstore.open());
          return importContent(source, recorded);
        },
        async commit() {
          const made = new Set<string>();
          for (const cid of written) {
            const { dir: shard, file } = layout.encode(cid);
            const target = path.join(storeDir, shard);
            if (!made.has(target)) {
              await fs.mkdir(target, { recursive: true });
              made.add(target);
            }
            try {
              await fs.rename(path.join(folder, shard, file), path.join(target, file));
            } catch (error) {
              // The same block written twice (a repeated chunk) moved with its first mention.
              if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
            }
          }
          await fs.rm(folder, { recursive: true, force: true });
        },
        async discard() {
          await fs.rm(folder, { recursive: true, force: true });
        },
      };
    },
    async sweep() {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        return 0;
      }
      let removed = 0;
      for (const name of names) {
        const pid = Number(name.split('-')[0]);
        if (Number.isSafeInteger(pid) && isProcessAlive(pid)) continue;
        await fs.rm(path.join(dir, name), { recursive: true, force: true });
        removed += 1;
      }
      return removed;
    },
  };
}
