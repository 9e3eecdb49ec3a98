import { createHash } from 'node:crypto';
import { importByteStream, type ImportResult, type WritableStorage } from 'ipfs-unixfs-importer';
import { CID } from 'multiformats/cid';
import { create as createDigest } from 'multiformats/hashes/digest';
import { countedStream, wholeSha256Of, type ByteSource } from './byte-source.ts';
import { CHUNK_SIZE, DAG_PB_CODE, importerOptions, RAW_CODE, SHA2_256_CODE } from './profile.ts';

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
 *
 * A file that fits in one chunk (most of a catalogue's files, and every empty one) is, in the
 * profile, that chunk as one raw block: its CID is the SHA-256 of its bytes. Such a file is hashed
 * here with node:crypto and written as that block, without the importer's pipeline of async
 * generators, which cost more than the hash itself for a 50 KB file (issue #18, "Fast"). The first
 * chunk is read before choosing, as the importer's own chunker reads it; a longer file goes to the
 * importer whole, its first chunk included, so the two paths cannot disagree on a CID. A source that
 * hashed its bytes on their way (`inspect`'s stream) gives that SHA-256 instead of a second pass.
 */
export async function importContent(
  source: ByteSource,
  blocks: WritableStorage,
): Promise<AddResult> {
  const knownSha256 = wholeSha256Of(source);
  const content = countedStream(source);
  const chunks = content.stream[Symbol.asyncIterator]();
  const first: Uint8Array[] = [];
  let firstBytes = 0;
  // One byte past a chunk tells a file of exactly one chunk from a longer one.
  while (firstBytes <= CHUNK_SIZE) {
    const next = await chunks.next();
    if (next.done) return addSingleBlock(first, firstBytes, blocks, knownSha256);
    first.push(next.value);
    firstBytes += next.value.byteLength;
  }
  const whole = (async function* () {
    let finished = false;
    try {
      yield* first.splice(0);
      yield* { [Symbol.asyncIterator]: () => chunks };
      finished = true;
    } finally {
      // Stopped early (a failed write), even while the first chunk was replayed: the source lets
      // go of its stream.
      if (!finished) await chunks.return?.();
    }
  })();
  const root = await importByteStream(whole, blocks, importerOptions());
  assertProfile(root);
  return { cid: root.cid.toString(), size: content.bytesRead() };
}

/** A file of at most one chunk: one raw leaf, CIDv1 of its SHA-256, as the importer would make it. */
async function addSingleBlock(parts: Uint8Array[], size: number, blocks: WritableStorage, knownSha256?: () => Uint8Array): Promise<AddResult> {
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
  const sha256 = knownSha256?.() ?? createHash('sha256').update(bytes).digest();
  const cid = CID.createV1(RAW_CODE, createDigest(SHA2_256_CODE, sha256));
  await blocks.put(cid, bytes);
  return { cid: cid.toString(), size };
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
