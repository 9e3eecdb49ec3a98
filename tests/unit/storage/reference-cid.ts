/**
 * An independent implementation of kubo's `ipfs add --cid-version=1` CID, written from the
 * specs with node:crypto and a hand-made protobuf encoder, sharing no code with the store
 * (no ipfs-unixfs, no @ipld/dag-pb, no multiformats). Tests compare the store against it.
 *
 * - chunks: fixed 256 KiB; each is a raw leaf, CIDv1 codec 0x55;
 * - a file of one chunk (an empty file included) is that leaf;
 * - otherwise a balanced tree: leaves grouped 174 per dag-pb node (CIDv1 codec 0x70), those
 *   nodes grouped 174 per node, and so on up to one root;
 * - dag-pb PBNode = Links (field 2, each a PBLink) then Data (field 1);
 *   PBLink = Hash (1, CID bytes), Name (2, ""), Tsize (3, block size + all blocks below);
 *   UnixFS Data = Type (1, File = 2), filesize (3), blocksizes (4, one per link, not packed);
 * - CID = varint version, varint codec, multihash (0x12, 32, sha-256 digest); text = 'b' + base32.
 */
import { createHash } from 'node:crypto';

export const CHUNK = 256 * 1024;
export const LINKS_PER_NODE = 174;

interface DagNode {
  cid: Uint8Array;
  /** Bytes of this block and all blocks below it (PBLink.Tsize). */
  tsize: number;
  /** File bytes under this node (UnixFS blocksizes entry). */
  fileSize: number;
}

/** The CID kubo gives `content`, read as a stream. */
export async function referenceCid(
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<string> {
  const leaves: DagNode[] = [];
  for await (const chunk of fixedChunks(content)) leaves.push(rawLeaf(chunk));
  let level = leaves;
  while (level.length > 1) {
    const parents: DagNode[] = [];
    for (let i = 0; i < level.length; i += LINKS_PER_NODE) {
      parents.push(fileNode(level.slice(i, i + LINKS_PER_NODE)));
    }
    level = parents;
  }
  const [root] = level;
  if (root === undefined) throw new Error('unreachable: the chunker yields at least one chunk');
  return cidToString(root.cid);
}

/** The CID of one raw block: what a file of at most one chunk is named, and every leaf. */
export function rawLeafCid(bytes: Uint8Array): string {
  return cidToString(rawLeaf(bytes).cid);
}

async function* fixedChunks(
  content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  let chunk = new Uint8Array(CHUNK);
  let filled = 0;
  let emitted = false;
  for await (const piece of content) {
    let at = 0;
    while (at < piece.length) {
      const n = Math.min(CHUNK - filled, piece.length - at);
      chunk.set(piece.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === CHUNK) {
        yield chunk;
        emitted = true;
        chunk = new Uint8Array(CHUNK);
        filled = 0;
      }
    }
  }
  // An empty file is still one (empty) chunk.
  if (filled > 0 || !emitted) yield chunk.subarray(0, filled);
}

function rawLeaf(bytes: Uint8Array): DagNode {
  return { cid: cidBytes(0x55, bytes), tsize: bytes.length, fileSize: bytes.length };
}

function fileNode(children: DagNode[]): DagNode {
  const fileSize = children.reduce((sum, child) => sum + child.fileSize, 0);
  const unixfs = concat([
    varintField(1, 2),
    varintField(3, fileSize),
    ...children.map((child) => varintField(4, child.fileSize)),
  ]);
  const noName = new Uint8Array(0);
  const links = children.map((child) =>
    bytesField(
      2,
      concat([bytesField(1, child.cid), bytesField(2, noName), varintField(3, child.tsize)]),
    ),
  );
  const block = concat([...links, bytesField(1, unixfs)]);
  const below = children.reduce((sum, child) => sum + child.tsize, 0);
  return { cid: cidBytes(0x70, block), tsize: block.length + below, fileSize };
}

function cidBytes(codec: number, block: Uint8Array): Uint8Array {
  const digest = createHash('sha256').update(block).digest();
  return concat([varint(1), varint(codec), varint(0x12), varint(digest.length), digest]);
}

function varintField(field: number, value: number): Uint8Array {
  return concat([varint(field << 3), varint(value)]);
}

function bytesField(field: number, value: Uint8Array): Uint8Array {
  return concat([varint((field << 3) | 2), varint(value.length), value]);
}

/** Unsigned LEB128, with division rather than bit operators so sizes past 2^32 stay right. */
function varint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Multibase 'b': RFC 4648 base32, lower case, no padding. */
function cidToString(bytes: Uint8Array): string {
  let text = 'b';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      text += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) text += BASE32[(buffer << (5 - bits)) & 31];
  return text;
}
