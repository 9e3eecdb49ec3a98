/**
 * Trustless answers of the gateway: a stored file's whole DAG as a CARv1 stream
 * (https://ipld.io/specs/transport/car/carv1/), which a client checks block by block against the
 * CID it asked for, trusting nothing the archive says (IPFS Trustless Gateway specification,
 * https://specs.ipfs.tech/http-gateways/trustless-gateway/).
 *
 * The encoding is written here rather than taken from a library: a CAR is a varint-prefixed
 * dag-cbor header followed by varint-prefixed (CID, bytes) pairs, and the header is one tiny
 * map whose bytes are fixed but for the root CID.
 */
import type { CID } from 'multiformats/cid';
import { mediaRanges } from '../http/accept.ts';
import { HttpError } from '../http/errors.ts';

/** The media type of a CAR (IANA `application/vnd.ipld.car`). */
export const CAR_MEDIA_TYPE = 'application/vnd.ipld.car';

/** What a client asked of a CAR; the archive always answers version 1 in depth-first order. */
export interface CarRequest {
  /** Send a block again each time the DAG links to it (`dups=y`), or only once (`dups=n`). */
  dups: boolean;
  /** Chosen by the `Accept` header alone, with no `format` in the URL (for `Content-Location`). */
  negotiated: boolean;
}

/** A block to write into a CAR. */
export interface CarBlock {
  cid: CID;
  bytes: Uint8Array;
}

/** An unsigned LEB128 varint, as CAR frames its header and every block. */
export function varint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`Not a varint: ${value}`);
  const bytes: number[] = [];
  // Division rather than shifts: JavaScript's bitwise operators stop at 32 bits.
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
  return Uint8Array.from(bytes);
}

/** The head of a CBOR item: its major type and a length or value below 2^16. */
function cborHead(major: number, value: number): number[] {
  if (value < 24) return [(major << 5) | value];
  if (value < 0x100) return [(major << 5) | 24, value];
  if (value < 0x10000) return [(major << 5) | 25, value >> 8, value & 0xff];
  throw new RangeError(`CBOR item too long for a CAR header: ${value}`);
}

function cborText(text: string): number[] {
  const bytes = new TextEncoder().encode(text);
  return [...cborHead(3, bytes.length), ...bytes];
}

/**
 * The CARv1 header for one root, varint length included: the dag-cbor map
 * `{roots: [root], version: 1}`. dag-cbor sorts keys by length first, so `roots` comes before
 * `version`; a CID is tag 42 over its bytes behind a 0x00 prefix (the identity multibase).
 */
export function carHeader(root: CID): Uint8Array {
  const link = [0x00, ...root.bytes];
  const header = Uint8Array.from([
    ...cborHead(5, 2),
    ...cborText('roots'),
    ...cborHead(4, 1),
    ...cborHead(6, 42),
    ...cborHead(2, link.length),
    ...link,
    ...cborText('version'),
    ...cborHead(0, 1),
  ]);
  return concat(varint(header.length), header);
}

/**
 * Encodes a CARv1 stream: the header naming `root`, then each block as it arrives. A block's
 * bytes are passed on as they are, never copied or gathered, so the stream holds no more
 * memory than its source does.
 */
export async function* encodeCar(root: CID, blocks: AsyncIterable<CarBlock>): AsyncGenerator<Uint8Array> {
  yield carHeader(root);
  for await (const { cid, bytes } of blocks) {
    yield concat(varint(cid.bytes.length + bytes.length), cid.bytes);
    yield bytes;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Whether the archive can answer CAR parameters: version 1, depth-first (or any) order, `dups` y or n. */
function supported(params: { version?: string; order?: string; dups?: string }): boolean {
  return (
    (params.version === undefined || params.version === '1') &&
    (params.order === undefined || params.order === 'dfs' || params.order === 'unk') &&
    (params.dups === undefined || params.dups === 'y' || params.dups === 'n')
  );
}

/**
 * Whether a gateway request asks for a CAR, and which one: `?format=car` or an `Accept` header
 * naming `application/vnd.ipld.car`, with its `version`, `order` and `dups` parameters, which
 * the `car-version`, `car-order` and `car-dups` query parameters override (the URL wins, as the
 * specification says). Null for a request of the file itself.
 *
 * @throws {HttpError} 406 when only CAR variants the archive cannot produce are acceptable
 */
export function negotiateCar(url: URL, accept: string | null): CarRequest | null {
  const format = url.searchParams.get('format');
  if (format !== null && format !== 'car') return null;
  const offers = mediaRanges(accept ?? '')
    .filter((range) => range.type === CAR_MEDIA_TYPE && range.q > 0)
    .sort((a, b) => b.q - a.q);
  if (format === null && offers.length === 0) return null;

  const fromUrl = {
    version: url.searchParams.get('car-version') ?? undefined,
    order: url.searchParams.get('car-order') ?? undefined,
    dups: url.searchParams.get('car-dups') ?? undefined,
  };
  const candidates = (offers.length > 0 ? offers : [{ params: new Map<string, string>() }]).map(({ params }) => ({
    version: fromUrl.version ?? params.get('version'),
    order: fromUrl.order ?? params.get('order'),
    dups: fromUrl.dups ?? params.get('dups'),
  }));
  const chosen = candidates.find(supported);
  if (!chosen) {
    throw new HttpError(406, 'Solo se ofrece CAR versión 1, en orden dfs, con dups=y o dups=n.');
  }
  // Without a preference, each block once: what the specification asks of a gateway that can choose.
  return { dups: chosen.dups === 'y', negotiated: format === null };
}
