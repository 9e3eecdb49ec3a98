/**
 * The one CID profile the archive uses: the parameters of `ipfs add --cid-version=1` in kubo,
 * shared by the store (server) and the 'Verificar' button (browser).
 * Every value is spelled out rather than left to library defaults, because a default that
 * changes in a future release would silently give the same file a different CID.
 */
import type { ImporterOptions } from 'ipfs-unixfs-importer';
import { fixedSize } from 'ipfs-unixfs-importer/chunker';
import { balanced } from 'ipfs-unixfs-importer/layout';

/** Leaf size: kubo's default `size-262144` chunker. */
export const CHUNK_SIZE = 256 * 1024;

/** Links per interior node: go-unixfs's `DefaultLinksPerBlock` (8 KiB / ~47 bytes per link). */
export const MAX_CHILDREN_PER_NODE = 174;

/** Multicodec of leaves (`raw`) and of the interior UnixFS nodes (`dag-pb`). */
export const RAW_CODE = 0x55;
export const DAG_PB_CODE = 0x70;

/** Multihash code of sha2-256, the only hash the store writes and can verify. */
export const SHA2_256_CODE = 0x12;

/**
 * Importer options for the profile. A fresh object each call: the importer writes into the
 * options it is given (see its `profile` handling), so a shared object could drift.
 *
 * The hash is not an option: the importer hard-codes sha2-256 (`utils/persist.js`), which is
 * what the profile needs; `add` checks the root CID to catch a future change.
 */
export function importerOptions(): ImporterOptions {
  return {
    cidVersion: 1,
    rawLeaves: true,
    // kubo stores a file that fits in one chunk as that bare raw block, with no UnixFS wrapper.
    reduceSingleLeafToSelf: true,
    chunker: fixedSize({ chunkSize: CHUNK_SIZE }),
    layout: balanced({ maxChildrenPerNode: MAX_CHILDREN_PER_NODE }),
    fieldOrder: 'links-first',
    wrapWithDirectory: false,
    // Blocks hashed and written at once; each holds a 256 KiB chunk in memory until written.
    blockWriteConcurrency: 8,
  };
}
