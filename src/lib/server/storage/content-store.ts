import { decode as decodeDagPb } from '@ipld/dag-pb';
import {
  exporter,
  type RawNode,
  type ReadableStorage,
  type UnixFSEntry,
  type UnixFSFile,
} from 'ipfs-unixfs-exporter';
import type { CID } from 'multiformats/cid';
import type { ArchiveBlockstore } from './blockstores.ts';
import type { ByteSource } from './byte-source.ts';
import { parseCid } from './cid.ts';
import { coalesceWrites } from './coalesce-writes.ts';
import { CorruptBlockError, InvalidRangeError, NotAFileError, NotInStoreError } from './errors.ts';
import { importContent, type AddResult } from './import-content.ts';
import { localBlockstore } from './local-blockstore.ts';
import { DAG_PB_CODE, RAW_CODE } from './profile.ts';
import { ReadSession } from './read-session.ts';
import { readVerifiedBlock } from './verify.ts';

/** Where and how a content store keeps its blocks. */
export type ContentStoreOptions = {
  /**
   * How many bytes of a file `cat` may read ahead of a consumer that is busy, reads under way
   * included: about the most memory one slow download holds. Default 4 MiB.
   */
  readAheadBytes?: number;
} & (
  | {
      /** The blockstore the archive opened (`openBlockstore`), or a decorator of it. */
      blockstore: ArchiveBlockstore;
    }
  | {
      /** Folder of a local blockstore (one file per block); created on first use if missing. */
      dir: string;
    }
);


/** A byte range of a file: `length` bytes from `offset`, cut short at the end of the file. */
export interface CatOptions {
  /** First byte to return. Default 0; at most the file size. */
  offset?: number;
  /** How many bytes to return at most. Default: to the end of the file. */
  length?: number;
}

/** What the store knows of a stored file without reading it all. */
export interface FileStat {
  /** The CID in canonical form (CIDv1, base32), even when asked with a CIDv0. */
  cid: string;
  /** The file's size in bytes. */
  size: number;
  /** `raw`: a file of one chunk, stored as one bare block; `file`: a UnixFS DAG of chunks. */
  type: 'raw' | 'file';
}

/** One block of a stored file's DAG, its bytes already checked against its CID. */
export interface StoredBlock {
  /** CIDv1: `raw` for a leaf of file bytes, `dag-pb` for a UnixFS node that links to others. */
  cid: CID;
  bytes: Uint8Array;
}

/** How `blocks` walks a file's DAG. */
export interface BlocksOptions {
  /**
   * Yield a block again each time the DAG links to it (a file with repeated chunks, e.g. runs
   * of zeros, links one leaf many times). Default false: each block once, and a subtree
   * already yielded is not read again.
   */
  duplicates?: boolean;
}

/** The archive's content-addressed file store. */
export interface ContentStore {
  /**
   * Stores a file, streaming it in 256 KiB chunks, and returns its CID and size. Adding bytes
   * already stored gives the same CID and rewrites their blocks, which repairs damaged ones.
   */
  add(source: ByteSource): Promise<AddResult>;
  /**
   * Streams a stored file (or a range of it), checking every block against its hash before
   * any of its bytes are yielded. Every error, an unknown CID included, surfaces from the
   * iteration; those about the request itself come from the first `next()`, before any byte.
   *
   * @throws {InvalidCidError} `cid` is not a CID the store can hold
   * @throws {InvalidRangeError} `offset` is past the end, or `offset`/`length` are not byte counts
   * @throws {NotInStoreError} the store has no such file
   * @throws {NotAFileError} the CID names a directory or other non-file node
   * @throws {CorruptBlockError} a block's bytes no longer match its CID (may come mid-stream)
   * @throws {MissingBlockError} a block of the file is gone (may come mid-stream)
   */
  cat(cid: string, options?: CatOptions): AsyncIterable<Uint8Array>;
  /**
   * Every block of the file's DAG in depth-first order, root first (links in the order the
   * node lists them), each checked against its hash before it is yielded: what a trustless
   * gateway sends as a CAR. Reads a few blocks ahead of the consumer and holds no more, so a
   * file of any size streams in bounded memory. Errors surface from the iteration, as in `cat`.
   *
   * @throws {InvalidCidError} `cid` is not a CID the store can hold
   * @throws {NotInStoreError} the store has no such file
   * @throws {NotAFileError} the CID names a directory or other non-file node
   * @throws {CorruptBlockError} a block's bytes no longer match its CID (may come mid-stream)
   * @throws {MissingBlockError} a block of the file is gone (may come mid-stream)
   */
  blocks(cid: string, options?: BlocksOptions): AsyncIterable<StoredBlock>;
  /**
   * The CIDs of every block of the file's DAG, root included, each once, in no promised order.
   * Only interior (dag-pb) nodes are read, and verified: a leaf is named by its parent's link,
   * so a 200 MB file costs a handful of small reads, not 200 MB. For knowing which blocks a
   * file is made of (the gateway refuses a withdrawn file's blocks by their own CIDs).
   *
   * @throws {InvalidCidError} `cid` is not a CID the store can hold
   * @throws {NotInStoreError} the store has no such file
   * @throws {CorruptBlockError} an interior node's bytes no longer match its CID
   * @throws {MissingBlockError} an interior node of the file is gone
   */
  blockIds(cid: string): Promise<CID[]>;
  /**
   * Whether the file's root block is stored (the rest of its blocks are not checked).
   *
   * @throws {InvalidCidError}
   */
  has(cid: string): Promise<boolean>;
  /**
   * The file's size and kind, from its root block alone (verified like any block).
   *
   * @throws {InvalidCidError} `cid` is not a CID the store can hold
   * @throws {NotInStoreError} the store has no such file
   * @throws {NotAFileError} the CID names a directory or other non-file node
   * @throws {CorruptBlockError} the root block's bytes no longer match its CID
   */
  stat(cid: string): Promise<FileStat>;
  /** Releases the blockstore (an S3 client's connections; blockstore-fs holds nothing open). */
  close(): Promise<void>;
}

const DEFAULT_READ_AHEAD_BYTES = 4 * 1024 * 1024;

/**
 * How many blocks `blocks` reads ahead of its consumer at each level of the DAG: about 2 MiB of
 * leaves, enough to keep the disk busy while the client drains the stream, and no more.
 */
const BLOCKS_READ_AHEAD = 8;

/**
 * Opens the content store over `options.blockstore`, or over a local blockstore in `options.dir`.
 * Synchronous so it can back a module-level singleton: nothing is reached before the first call.
 */
export function createContentStore(options: ContentStoreOptions): ContentStore {
  const blockstore = 'blockstore' in options ? options.blockstore : localBlockstore(options.dir);
  const writer = coalesceWrites(blockstore);
  const readAhead = options.readAheadBytes ?? DEFAULT_READ_AHEAD_BYTES;

  /** Reads the root block only, so unlike `ReadSession` it may throw straight to the exporter. */
  const verifiedRoot: ReadableStorage = {
    async *get(cid: CID) {
      yield await readVerifiedBlock(blockstore, cid);
    },
  };

  async function findRoot(input: string): Promise<CID> {
    const cid = parseCid(input);
    if (!(await blockstore.has(cid))) throw new NotInStoreError(cid.toV1().toString());
    return cid;
  }

  async function* cat(input: string, range: CatOptions = {}): AsyncGenerator<Uint8Array> {
    const { offset = 0, length } = range;
    checkByteCount('offset', offset);
    if (length !== undefined) checkByteCount('length', length);
    const cid = await findRoot(input);

    const session = new ReadSession(blockstore, readAhead);
    let content: AsyncIterator<Uint8Array> | undefined;
    try {
      const entry = await session.guard(openFile(cid, session.blocks));
      const size = Number(entry.size);
      if (offset > size) {
        throw new InvalidRangeError(`Offset ${offset} is past the end of ${size}-byte ${input}`);
      }
      const end = length === undefined ? size : Math.min(size, offset + length);
      if (end === offset) return;
      content = entry.content({ offset, length: end - offset })[Symbol.asyncIterator]();
      // Stop at the range's last byte rather than at the exporter's end: it may still be
      // reading one block too many (see read-session.ts), which could fail.
      for (let left = end - offset; left > 0; ) {
        const next = await session.next(content);
        if (next.done === true) return;
        left -= next.value.byteLength;
        session.consumed(next.value.byteLength);
        yield next.value;
      }
    } finally {
      session.close();
      // After a failed read the exporter is parked on it for good, and `return()` would wait
      // behind that; otherwise ending it stops its queue at once.
      if (!session.failed) content?.return?.().catch(() => undefined);
    }
  }

  async function* blocks(input: string, options: BlocksOptions = {}): AsyncGenerator<StoredBlock> {
    const root = await findRoot(input);
    // Refuses directories and foreign nodes before anything is yielded, as `stat` does.
    await openFile(root, verifiedRoot);
    const seen = options.duplicates ? undefined : new Set<string>();
    const read = (cid: CID): Promise<Uint8Array> => {
      const reading = readVerifiedBlock(blockstore, cid);
      // Read ahead, maybe never awaited if the consumer stops first: not an unhandled rejection.
      reading.catch(() => undefined);
      return reading;
    };

    async function* walk(cid: CID, bytes: Uint8Array): AsyncGenerator<StoredBlock> {
      seen?.add(cid.toString());
      yield { cid, bytes };
      if (cid.code === RAW_CODE) return;
      const links = childLinks(cid, bytes).filter((link) => !seen?.has(link.toString()));
      const ahead: Array<Promise<Uint8Array>> = [];
      let next = 0;
      for (const link of links) {
        while (next < links.length && ahead.length < BLOCKS_READ_AHEAD) ahead.push(read(links[next++]!));
        const block = await ahead.shift()!;
        // A repeated link within this node was queued before its first copy was yielded.
        if (seen?.has(link.toString())) continue;
        yield* walk(link, block);
      }
    }

    // CIDv0 and CIDv1 name the same dag-pb block; a CAR names it the canonical way.
    const canonical = root.toV1();
    yield* walk(canonical, await readVerifiedBlock(blockstore, canonical));
  }

  async function blockIds(input: string): Promise<CID[]> {
    const root: CID = (await findRoot(input)).toV1();
    const found = new Map<string, CID>([[root.toString(), root]]);
    // Breadth-first over interior nodes only; a node already met (a repeated subtree) is not read again.
    let level = root.code === DAG_PB_CODE ? [root] : [];
    while (level.length > 0) {
      const next: CID[] = [];
      for (const node of level) {
        for (const link of childLinks(node, await readVerifiedBlock(blockstore, node))) {
          const key = link.toString();
          if (found.has(key)) continue;
          found.set(key, link);
          if (link.code === DAG_PB_CODE) next.push(link);
        }
      }
      level = next;
    }
    return [...found.values()];
  }

  return {
    async add(source) {
      return importContent(source, writer);
    },
    cat,
    blocks,
    blockIds,
    async has(input) {
      return blockstore.has(parseCid(input));
    },
    async stat(input) {
      const cid = await findRoot(input);
      const entry = await openFile(cid, verifiedRoot);
      return { cid: cid.toV1().toString(), size: Number(entry.size), type: entry.type };
    },
    async close() {
      await blockstore.close();
    },
  };
}

/** Resolves a root block to a file entry, refusing directories and non-UnixFS nodes. */
async function openFile(cid: CID, blocks: ReadableStorage): Promise<RawNode | UnixFSFile> {
  let entry: UnixFSEntry;
  try {
    entry = await exporter(cid, blocks);
  } catch (error) {
    if (error instanceof Error && error.name === 'NotUnixFSError') {
      throw new NotAFileError(cid.toV1().toString(), { cause: error });
    }
    throw error;
  }
  if (entry.type === 'raw' || entry.type === 'file') return entry;
  throw new NotAFileError(cid.toV1().toString());
}

/**
 * The blocks a dag-pb node links to. Its bytes already matched its hash, so a node that does
 * not decode, or links outside the archive's profile, is a stored DAG `add` never wrote.
 */
function childLinks(cid: CID, bytes: Uint8Array): CID[] {
  let links;
  try {
    links = decodeDagPb(bytes).Links;
  } catch {
    throw new CorruptBlockError(cid.toString(), 'is not a valid dag-pb node');
  }
  return links.map((link) => {
    if (link.Hash.code !== RAW_CODE && link.Hash.code !== DAG_PB_CODE) {
      throw new CorruptBlockError(cid.toString(), 'links to a block that is neither raw nor dag-pb');
    }
    return link.Hash.toV1();
  });
}

function checkByteCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidRangeError(`${name} must be a whole number of bytes, got ${value}`);
  }
}
