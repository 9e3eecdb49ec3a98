/**
 * The default blockstore: a blockstore-fs folder (one file per block, sharded by the multihash's
 * next-to-last characters), created on first use. Staging writes its block files in the same
 * naming, on the same disk, so adopting one is a `rename`. Looking for a block and moving one in are
 * the calls a harvest makes for every file: `diskCalls` makes them directly while the disk is quick.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { FsBlockstore } from 'blockstore-fs';
import { NextToLast } from 'blockstore-fs/sharding';
import type { CID } from 'multiformats/cid';
import type { OpenedBlockstore } from './blockstores.ts';
import { diskCallsFor, type DiskCalls } from './disk-calls.ts';

/**
 * blockstore-fs's default layout, where a block lives under the folder, remembered per CID: a
 * captured file's block is named when it is staged, looked for, and moved, and naming it means a
 * base32 encoding of its multihash each time.
 */
class RememberedLayout extends NextToLast {
  readonly #names = new WeakMap<CID, { dir: string; file: string }>();

  override encode(cid: CID): { dir: string; file: string } {
    let name = this.#names.get(cid);
    if (name === undefined) {
      name = super.encode(cid);
      this.#names.set(cid, name);
    }
    return name;
  }
}

export const blockLayout = new RememberedLayout();

/** The blockstore kept in `dir`. */
export function localBlockstore(dir: string): OpenedBlockstore {
  const blocks = new FsBlockstore(dir, { createIfMissing: true, shardingStrategy: blockLayout });
  let opening: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (opening ??= blocks.open().catch((error: unknown) => {
      opening = undefined; // let a later call retry, e.g. once a missing mount appears
      throw error;
    }));
  /** Shard folders known to exist: a gigabyte's commit would otherwise ask for each of 4,000 blocks. */
  const shards = new Set<string>();
  /** Direct or through the threads, by the folder's file system: asked once, when first needed. */
  let calls: DiskCalls | undefined;
  const diskCalls = () => (calls ??= diskCallsFor(dir));

  return {
    async has(cid, options) {
      await ready();
      // As blockstore-fs answers: an aborted question finds nothing.
      if (options?.signal?.aborted) return false;
      const { dir: shard, file: name } = blockLayout.encode(cid);
      return diskCalls().exists(path.join(dir, shard, name));
    },
    async *get(cid, options) {
      await ready();
      yield* blocks.get(cid, options);
    },
    async put(cid, bytes, options) {
      await ready();
      return blocks.put(cid, bytes, options);
    },
    async delete(cid, options) {
      await ready();
      await blocks.delete(cid, options);
    },
    async adopt(cid: CID, file: string) {
      const { dir: shard, file: name } = blockLayout.encode(cid);
      const folder = path.join(dir, shard);
      const target = path.join(folder, name);
      if (!shards.has(folder)) {
        await fs.mkdir(folder, { recursive: true });
        shards.add(folder);
      }
      try {
        await diskCalls().rename(file, target);
      } catch (error) {
        // The shard folder went away behind our back (an operator emptied the store): once more.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !(await isFile(file))) throw error;
        await fs.mkdir(folder, { recursive: true });
        await diskCalls().rename(file, target);
      }
    },
    async probe() {
      await ready();
      // Asked, not tried: a file written on every check would be in the way of a backup copying the
      // folder. (The folder's one file that is not a block, its name, is written once: store-identity.ts.)
      // A file where the folder should be passes `access`; a read-only disk fails it, root or not.
      if (!(await fs.stat(dir)).isDirectory()) throw new Error(`${dir} no es una carpeta`);
      await fs.access(dir, fs.constants.W_OK);
    },
    async close() {
      await blocks.close();
    },
  };
}

async function isFile(file: string): Promise<boolean> {
  return fs.stat(file).then((stat) => stat.isFile(), () => false);
}
