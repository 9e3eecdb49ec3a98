/**
 * The archive's content-addressed store: files go in as streams and are named by their CID;
 * they come out as streams, every block checked against its hash on the way.
 *
 * CID profile: exactly what `ipfs add --cid-version=1` (kubo) gives, so that anyone can check a
 * download against its CID with stock IPFS tools, and the archive's files can be pinned on the
 * public network under the same names:
 *
 * - UnixFS file, CIDv1, base32 (`bafy…`), sha2-256;
 * - fixed 256 KiB chunks stored as raw leaves (`bafk…`); a file of one chunk *is* its leaf;
 * - balanced DAG, at most 174 links per node.
 *
 * Each parameter is set explicitly (`profile.ts`) rather than taken from the importer's
 * defaults, which can change (its newer `unixfs-v1-2025` profile already uses 1 MiB chunks and
 * 1024 links); tests check the CIDs against kubo's vectors and an independent implementation.
 *
 * Blocks live in the configured blockstore (`blockstores.ts`): a blockstore-fs folder, one file per
 * block, or an S3-compatible bucket, one object per block. Memory use does not grow with the file:
 * `add` and `cidOf` stream, and `cat` reads at most a few MiB ahead of its consumer.
 *
 * @module
 */
export { cidOf, type AddResult } from './import-content.ts';
export { vouchSha256, type ByteSource } from './byte-source.ts';
export {
  createContentStore,
  type BlocksOptions,
  type CatOptions,
  type ContentStore,
  type ContentStoreOptions,
  type FileStat,
  type StoredBlock,
} from './content-store.ts';
export { parseCid } from './cid.ts';
export { createStagingArea, type FileGuard, type GuardedTx, type StagedUpload, type StagingArea, type StagingOptions, type StagingOwner } from './staging.ts';
export { databaseFileGuard } from './file-guard.ts';
export {
  BlockNotFoundError,
  localBlockstore,
  openBlockstore,
  s3Blockstore,
  type ArchiveBlockstore,
  type OpenedBlockstore,
  type S3BlockstoreOptions,
  type StagingTarget,
} from './blockstores.ts';
export {
  CorruptBlockError,
  InvalidCidError,
  InvalidRangeError,
  MissingBlockError,
  NotAFileError,
  NotInStoreError,
  StorageError,
} from './errors.ts';
export { CHUNK_SIZE, MAX_CHILDREN_PER_NODE } from './profile.ts';
