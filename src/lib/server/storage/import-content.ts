import { importByteStream, type ImportResult, type WritableStorage } from 'ipfs-unixfs-importer';
import { countedStream, type ByteSource } from './byte-source.ts';
import { DAG_PB_CODE, importerOptions, RAW_CODE, SHA2_256_CODE } from './profile.ts';

/** What adding a file yields: its CID in the archive's profile and its length in bytes. */
export interface AddResult {
  /** CIDv1, base32 (`bafk…` for a single raw block, `bafy…` for a UnixFS DAG). */
  cid: string;
  /** The file's size in bytes (the content's length, not the DAG's). */
  size: number;
}

/**
 * Runs the importer over `source` with the archive's CID profile, writing blocks to `blocks`.
 * Shared by `cidOf` and the store's `add`, so the two cannot disagree on a CID.
 */
export async function importContent(
  source: ByteSource,
  blocks: WritableStorage,
): Promise<AddResult> {
  const content = countedStream(source);
  const root = await importByteStream(content.stream, blocks, importerOptions());
  assertProfile(root);
  return { cid: root.cid.toString(), size: content.bytesRead() };
}

/** Blocks are hashed and dropped: the importer needs somewhere to put them. */
const discard: WritableStorage = {
  put: (cid) => cid,
};

/**
 * Computes the CID `add` would give `source` (the one `ipfs add --cid-version=1` gives) without
 * storing anything, e.g. to check a client's claimed CID or find a duplicate before keeping a
 * file. Streams: memory does not grow with the size of the content.
 */
export function cidOf(source: ByteSource): Promise<AddResult> {
  return importContent(source, discard);
}

/** Guards against an importer release that changes a parameter the options cannot pin. */
function assertProfile(root: ImportResult): void {
  const { cid } = root;
  const ok =
    cid.version === 1 &&
    (cid.code === RAW_CODE || cid.code === DAG_PB_CODE) &&
    cid.multihash.code === SHA2_256_CODE;
  if (!ok) throw new Error(`Importer produced ${cid.toString()} outside the archive's CID profile`);
}
