import { createHash } from 'node:crypto';
import type { ReadableStorage } from 'ipfs-unixfs-exporter';
import type { CID } from 'multiformats/cid';
import { CorruptBlockError, MissingBlockError } from './errors.ts';
import { SHA2_256_CODE } from './profile.ts';

/** The read side of a blockstore (blockstore-fs yields a block as a stream of file chunks). */
export type BlockGetter = ReadableStorage;

/**
 * Reads one whole block and checks that its bytes hash to the digest in its CID, so that no
 * byte leaves the store unverified: a flipped bit on disk becomes an error, not a bad download.
 *
 * @throws {MissingBlockError} when the store has no such block
 * @throws {CorruptBlockError} when the bytes do not match the CID
 */
export async function readVerifiedBlock(store: BlockGetter, cid: CID): Promise<Uint8Array> {
  if (cid.multihash.code !== SHA2_256_CODE) {
    // Only reachable through a link inside a stored DAG (`parseCid` filters roots): `add`
    // never writes such a link, so the DAG itself is not what the archive stored.
    throw new CorruptBlockError(cid.toString(), 'links to a block that is not sha2-256');
  }
  const bytes = await readAll(store, cid);
  const digest = createHash('sha256').update(bytes).digest();
  if (!digest.equals(cid.multihash.digest)) throw new CorruptBlockError(cid.toString());
  return bytes;
}

async function readAll(store: BlockGetter, cid: CID): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for await (const chunk of store.get(cid)) {
      chunks.push(chunk);
      length += chunk.byteLength;
    }
  } catch (error) {
    // blockstore-fs reports every failure to open or read a block file as NotFoundError.
    if (error instanceof Error && error.name === 'NotFoundError') {
      throw new MissingBlockError(cid.toString(), { cause: error });
    }
    throw error;
  }
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, length);
}
