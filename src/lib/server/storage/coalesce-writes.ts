import type { WritableStorage } from 'ipfs-unixfs-importer';
import { base32 } from 'multiformats/bases/base32';

/**
 * Wraps a blockstore's `put` so that one block written several times at once reaches the
 * disk once. A file with repeated chunks (runs of zeros) makes the importer write the same
 * block concurrently, and blockstore-fs then races on one temporary file: the losers retry
 * a failing rename for about a second before giving up quietly.
 *
 * A block that is already on disk is still rewritten, on purpose: adding the same bytes again
 * then repairs a block that was damaged.
 */
export function coalesceWrites(store: WritableStorage): WritableStorage {
  const inFlight = new Map<string, Promise<unknown>>();
  return {
    async put(cid, bytes, options) {
      // blockstore-fs files blocks by multihash: raw and dag-pb CIDs of the same bytes share one.
      const key = base32.encode(cid.multihash.bytes);
      let write = inFlight.get(key);
      if (write === undefined) {
        write = Promise.resolve(store.put(cid, bytes, options)).finally(() => inFlight.delete(key));
        inFlight.set(key, write);
      }
      await write;
      return cid;
    },
  };
}
