/**
 * The blockstore behind the content store, chosen by configuration (issue #21): the data folder's
 * `blocks/` (blockstore-fs, the default), or an S3-compatible bucket that several servers share.
 *
 * Both are the same small interface, the part of interface-blockstore the archive uses (get, has,
 * put, delete), so that a decorator (a read-through cache, say) can wrap either without knowing
 * which it is. Besides, each can `adopt` a block file that staging wrote, which is how a commit
 * moves an accepted upload in: a rename on the same disk, a PUT to a bucket.
 *
 * Blocks are named by CID. A block the store lacks is a `NotFoundError` (by name, as
 * interface-store and blockstore-fs report it), which `verify.ts` turns into `MissingBlockError`.
 *
 * @module
 */
import path from 'node:path';
import type { CID } from 'multiformats/cid';
import type { BlockstoreSettings } from '../config.ts';
import { localBlockstore } from './local-blockstore.ts';
import { s3Blockstore } from './s3-blockstore.ts';

/** What every call may take: a signal that abandons it (interface-store's `AbortOptions`). */
export interface AbortOptions {
  signal?: AbortSignal;
}

/** What the content store reads and writes blocks through; any decorator of it must keep this shape. */
export interface ArchiveBlockstore {
  /** Whether the block is stored (its bytes are not read). */
  has(cid: CID, options?: AbortOptions): Promise<boolean>;
  /**
   * The block's bytes, in one or more chunks, unverified (the content store checks them against the
   * CID). A missing block throws an error named `NotFoundError`.
   */
  get(cid: CID, options?: AbortOptions): AsyncGenerator<Uint8Array>;
  /** Stores (or rewrites) the block. */
  put(cid: CID, bytes: Uint8Array, options?: AbortOptions): Promise<CID>;
  /** Removes the block; removing a block that is not there is not an error. */
  delete(cid: CID, options?: AbortOptions): Promise<void>;
  /** Lets go of what the store holds open (connections); the store is not used afterwards. */
  close(): Promise<void>;
}

/** The side of a blockstore that staging commits into (`staging.ts`). */
export interface StagingTarget extends Pick<ArchiveBlockstore, 'has' | 'delete'> {
  /**
   * Takes the staged block file `file` in as block `cid`. The file is the staging area's: the store
   * may move it away (a rename) or leave it for the staging area to remove.
   */
  adopt(cid: CID, file: string): Promise<void>;
}

/** Whether the store can be used now, for the health check (`/v2/health`). */
export interface ProbedStore {
  /** Resolves when the store is there to be used; throws, saying why, when it is not (a folder it may not write, a missing bucket). */
  probe(): Promise<void>;
}

/** A blockstore as the archive opens it: readable and writable, a target for staging, and probed for health. */
export type OpenedBlockstore = ArchiveBlockstore & StagingTarget & ProbedStore;

/** A block the store does not have, named as interface-store names that failure. */
export class BlockNotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/**
 * Opens the blockstore that `settings` name (`ArchiveConfig.blockstore`); `dataDir` holds the
 * local one. Synchronous, like `createContentStore`: nothing is reached before the first call.
 */
export function openBlockstore(settings: BlockstoreSettings, dataDir: string): OpenedBlockstore {
  return settings.kind === 's3' ? s3Blockstore(settings) : localBlockstore(path.join(dataDir, 'blocks'));
}

export { localBlockstore } from './local-blockstore.ts';
export { s3Blockstore, type S3BlockstoreOptions } from './s3-blockstore.ts';
