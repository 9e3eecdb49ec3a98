/**
 * The archive's IPFS gateway, `/ipfs/{cid}` (DECISIONS: Storage): stored files served by CID,
 * verified block by block as they stream, with range requests and immutable caching, and with
 * headers that keep a visitor's upload from ever running as the archive's own page. Asked for
 * `?format=car` (or `Accept: application/vnd.ipld.car`), it answers the file's DAG as a CAR
 * instead, for clients that verify every block themselves (see `car.ts`); asked for `?format=raw`
 * (or `Accept: application/vnd.ipld.raw`), it answers the one block the CID names, root, inner node
 * or leaf of a stored file: what other archive servers read through from (`storage/read-through.ts`).
 * Those raw answers come from this server's own blocks only, so servers that list each other as
 * gateways never pass a request back and forth.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { aletheias, alexandrias, recordVersions, sheetPreviews } from '../db/schema.ts';
import { noneMatchHolds } from '../export/http.ts';
import { acceptWeight } from '../http/accept.ts';
import { HttpError, WithdrawnError } from '../http/errors.ts';
import { ASSET_TYPES, STATUS_STANDING } from '../../domain/constants.ts';
import { firstCharacters } from '../../domain/text.ts';
import { DETECTION_BYTES, detectEncoding, hasHighByte } from '../../tabular/decode.ts';
import { recordPath } from '../../paths.ts';
import { InvalidCidError, NotInStoreError, parseCid, type ContentStore, type FileStat } from '../storage/index.ts';
import { RAW_BLOCK_MEDIA_TYPE, ReadThroughError, withoutReadThrough } from '../storage/read-through.ts';
import { CAR_MEDIA_TYPE, encodeCar, negotiateCar, type CarRequest } from './car.ts';
import { detectContent, downloadName, hasPdfHeader, mediaType } from '../content-type.ts';
import { withKnownCatalogueFile } from './catalogue-files.ts';
import { withdrawnBlockOf, type Withdrawal } from './withdrawn-blocks.ts';

/**
 * A CID names its bytes forever; `no-transform` tells every proxy and CDN on the way, and our own
 * compression, never to re-encode them (a client checks them against the CID).
 */
const IMMUTABLE = 'public, max-age=31536000, immutable, no-transform';

/** Types a browser shows without running anything of ours: served inline. The archive's formats all are. */
const PASSIVE_TYPES = new Set<string>([
  ...Object.values(ASSET_TYPES).flatMap(({ mediaType }) => mediaType ?? []),
  'text/plain',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/zip',
]);

/** What the first bytes say a file is, for files the archive has no record of. */
export function sniffType(head: Uint8Array): string {
  return mediaType(detectContent(head), 'other');
}

/** What the catalogue says of a stored file: its declared type and name, and whether it was withdrawn. */
interface CatalogueEntry {
  /** From its record, else its proof, else the sheet it was extracted as; null when nothing holds it. */
  declared: { mimeType: string | null; fileName: string | null } | null;
  /** A blocked record that holds it, when every record holding it is blocked (see below). */
  withdrawnBy: { id: number; cid: string | null } | null;
}

/** `a.status` as its `STATUS_STANDING`, for an `order by`. */
const STANDING_OF_STATUS = sql.raw(
  `case a.status ${Object.entries(STATUS_STANDING).map(([status, standing]) => `when '${status}' then ${standing}`).join(' ')} end`,
);

/**
 * One lookup for both questions the gateway asks of a CID. Every record that holds the file (as its
 * document, a proof, a sheet extracted from a spreadsheet, or an earlier version of its file) is
 * found; the first by that order declares its type and name, and among records that hold it the
 * same way, the most public (`STATUS_STANDING`, as its page chooses), then the oldest: a later
 * upload of the same bytes, blocked for its name, does not name the published record's download.
 *
 * A file is withdrawn when every record holding it is blocked: blocking withdraws a record's links,
 * and the gateway then refuses its files by CID too, so a blocked document is not one shared
 * address away. A file also held by a record that is not blocked stays served (the CID names the
 * bytes, and another contribution may rightly hold the same ones). A CID no record holds (a DAG's
 * inner blocks, among others) is withdrawn when it is a block of a withdrawn file that no served
 * file shares: `withdrawn-blocks.ts`.
 */
async function catalogueEntry(db: Db, cid: string): Promise<CatalogueEntry> {
  const result = (await db.execute(sql`
    with holders as (
      select ${alexandrias.id} as record_id, ${alexandrias.mimeType} as mime_type, ${alexandrias.fileName} as file_name, 1 as rank
        from ${alexandrias} where ${alexandrias.cid} = ${cid}
      union all
      select ${aletheias.alexandriaId}, ${aletheias.mimeType}, ${aletheias.fileName}, 2
        from ${aletheias} where ${aletheias.cid} = ${cid}
      union all
      select ${sheetPreviews.alexandriaId}, 'text/csv', ${sheetPreviews.name} || '.csv', 3
        from ${sheetPreviews} where ${sheetPreviews.cid} = ${cid}
      union all
      select ${recordVersions.alexandriaId}, ${recordVersions.mimeType}, ${recordVersions.fileName}, 4
        from ${recordVersions} where ${recordVersions.cid} = ${cid}
    )
    select count(*)::int as holders,
           (array_agg(h.mime_type order by h.rank, ${STANDING_OF_STATUS}, a.id))[1] as mime_type,
           (array_agg(h.file_name order by h.rank, ${STANDING_OF_STATUS}, a.id))[1] as file_name,
           bool_and(a.status = 'blocked') as withdrawn,
           (array_agg(a.id order by h.rank, a.id))[1] as record_id,
           (array_agg(a.cid order by h.rank, a.id))[1] as record_cid
    from holders h join ${alexandrias} a on a.id = h.record_id`)) as unknown as {
    rows: Array<{ holders: number; mime_type: string | null; file_name: string | null; withdrawn: boolean | null; record_id: number | null; record_cid: string | null }>;
  };
  const row = result.rows[0];
  if (!row || Number(row.holders) === 0) return { declared: null, withdrawnBy: null };
  return {
    declared: { mimeType: row.mime_type, fileName: row.file_name },
    withdrawnBy: row.withdrawn ? { id: Number(row.record_id), cid: row.record_cid } : null,
  };
}

export interface ByteRange {
  start: number;
  /** Inclusive, as HTTP counts. */
  end: number;
}

/** Whether `If-Range` lets a range be served: none sent, or exactly this strong ETag. */
export function ifRangeHolds(ifRange: string | null | undefined, etag: string): boolean {
  if (ifRange === null || ifRange === undefined) return true;
  return !etag.startsWith('W/') && ifRange.trim() === etag;
}

/** One `bytes=` range of a file of `size` bytes; null for none or one we cannot serve as asked. */
export function parseRange(header: string | null, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: answer the whole file, as HTTP allows.
  if (!match || (!match[1] && !match[2])) return null;
  if (!match[1]) {
    const suffix = Math.min(Number(match[2]), size);
    return suffix === 0 ? 'unsatisfiable' : { start: size - suffix, end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function toStream(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A name safe inside a Content-Disposition header (RFC 6266 with RFC 5987 for non-ASCII). */
function disposition(kind: 'inline' | 'attachment', fileName: string | null): string {
  if (!fileName) return kind;
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  // RFC 5987's attr-char excludes ' ( ) * too, which encodeURIComponent leaves as they are.
  const encoded = encodeURIComponent(fileName.toWellFormed()).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export interface GatewayRequest {
  cid: string;
  method: string;
  /**
   * The `Host` the request came to (already one the configuration allows): the archive's origin or
   * the content origin. Absent counts as the archive's.
   */
  host?: string;
  /** The query string, `?` included, or empty: kept when a request is sent to the content origin. */
  search?: string;
  /** A browser navigating to the file (`Sec-Fetch-Mode: navigate`), which would render it. */
  navigation?: boolean;
  range: string | null;
  /** `If-Range`: the range holds only while it names this file's ETag; absent for none. */
  ifRange?: string | null;
  ifNoneMatch: string | null;
  download: boolean;
  fileName: string | null;
  /** A CAR of the file's DAG instead of its bytes; absent or null for the file itself. */
  car?: CarRequest | null;
  /** The one block the CID names, as bytes (`application/vnd.ipld.raw`), instead of the file. */
  raw?: boolean;
}

/** Longest file name taken from a URL into a Content-Disposition header. */
const MAX_FILE_NAME = 200;

/**
 * Reads a gateway request from its URL and headers. `?download=true` (with an optional
 * `&filename=`) makes the file an attachment under its own or the given name; `?download=name`
 * makes it an attachment named `name`.
 *
 * @throws {HttpError} 406 when the request asks only for a CAR the archive cannot produce
 */
export function readGatewayRequest(cid: string, request: Request, url: URL): GatewayRequest {
  const format = url.searchParams.get('format');
  if (format !== null && format !== '' && !FORMATS.has(format)) {
    throw new HttpError(400, `El archivo no se sirve en el formato «${firstCharacters(format.toWellFormed(), 40)}»: pida el archivo mismo (sin format), ?format=raw (un bloque) o ?format=car (su DAG).`);
  }
  const download = url.searchParams.get('download');
  const named = download && download !== 'true' && download !== 'false' ? download : null;
  const fileName = named ?? url.searchParams.get('filename');
  const car = negotiateCar(url, request.headers.get('accept'));
  return {
    cid,
    method: request.method,
    host: url.host.toLowerCase(),
    search: url.search,
    navigation: request.headers.get('sec-fetch-mode') === 'navigate',
    range: request.headers.get('range'),
    ifRange: request.headers.get('if-range'),
    ifNoneMatch: request.headers.get('if-none-match'),
    download: download === 'true' || named !== null,
    // Cut by characters, not UTF-16 units: half an emoji would make the header unencodable.
    fileName: fileName ? firstCharacters(fileName.toWellFormed(), MAX_FILE_NAME) : null,
    car,
    raw: car === null && wantsRawBlock(url, request.headers.get('accept')),
  };
}

/** The `format`s of the trustless gateway the archive answers; the path gateway's others (tar, dag-json…) it does not. */
const FORMATS: ReadonlySet<string> = new Set(['raw', 'car']);

/**
 * Whether a request asks for one raw block: `?format=raw`, or no `format` and an `Accept` header
 * that names `application/vnd.ipld.raw` (a CAR, when it is asked for too, is answered first).
 */
export function wantsRawBlock(url: URL, accept: string | null): boolean {
  const format = url.searchParams.get('format');
  if (format !== null) return format === 'raw';
  return acceptWeight(accept, RAW_BLOCK_MEDIA_TYPE) > 0;
}

/** The stored file's stat, with the store's failures turned into the answers a visitor gets. */
async function statFile(store: ContentStore, cid: string): Promise<FileStat> {
  try {
    return await store.stat(cid);
  } catch (error) {
    if (error instanceof InvalidCidError) throw new HttpError(400, 'El CID no es válido.');
    if (error instanceof NotInStoreError) throw new HttpError(404, 'Este archivo no está en el archivo.');
    if (error instanceof ReadThroughError) throw unreachable();
    throw error;
  }
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  return ifNoneMatch !== null && noneMatchHolds(ifNoneMatch, etag);
}

/** Where the gateway may show files inline, when user content has an origin of its own. */
export interface GatewayOptions {
  /** `ArchiveConfig.contentOrigin`: when set, files render inline only on that origin. */
  contentOrigin?: string | undefined;
}

/** The 410 of a withdrawn file or block, pointing at the record whose page gives the reason. */
function withdrawn(by: Withdrawal, what: string): HttpError {
  const page = by.cid ? recordPath({ cid: by.cid, id: by.id }) : null;
  const where = page ? ` El motivo está en la página del registro: ${page}` : '';
  // Not cached: a moderator may put the record back online.
  return new WithdrawnError(`${what} retirado por la moderación del archivo.${where}`, page, { 'Cache-Control': 'no-store' });
}

/** A file this server lacks and the configured gateways did not give verified (`storage/read-through.ts`). */
function unreachable(): HttpError {
  return new HttpError(502, 'Este archivo no está en este servidor y no se pudo obtener verificado de las otras copias del archivo. Inténtelo de nuevo más tarde.', {
    'Cache-Control': 'no-store',
  });
}

/** A stored file's stat, once the catalogue says it is not withdrawn (nor, for a block, part of a withdrawn file). */
async function servableStat(db: Db, store: ContentStore, cid: string): Promise<{ stat: FileStat; declared: CatalogueEntry['declared'] }> {
  let canonical: string;
  try {
    canonical = parseCid(cid).toV1().toString();
  } catch (error) {
    if (error instanceof InvalidCidError) throw new HttpError(400, 'El CID no es válido.');
    throw error;
  }
  // The catalogue before the store: a withdrawn file is refused, never first fetched from a gateway.
  const { declared, withdrawnBy } = await catalogueEntry(db, canonical);
  if (withdrawnBy) throw withdrawn(withdrawnBy, 'Este archivo fue');
  // Held by a record and not withdrawn is what the read-through admits a missing file by: it is
  // told so, rather than asking the database again (`catalogue-files.ts`).
  const stat = await withKnownCatalogueFile(canonical, declared !== null, () => statFile(store, canonical));
  if (!declared) {
    // Which blocks withdrawn files are made of is read from this server's own blocks: asking the
    // gateways for every served file's nodes to answer one request would let a visitor make us
    // fetch the whole catalogue.
    const block = await withoutReadThrough(() => withdrawnBlockOf(db, store, stat.cid));
    if (block) throw withdrawn(block, 'Este bloque es parte de un archivo');
  }
  return { stat, declared };
}

/** The first bytes of a stored file. */
async function headOf(store: ContentStore, cid: string): Promise<Uint8Array> {
  const head: Uint8Array[] = [];
  for await (const chunk of store.cat(cid, { length: 4096 })) head.push(chunk);
  return Buffer.concat(head);
}

/**
 * A text file's charset, named from its first bytes as the record page's CSV search reads them
 * (`detectEncoding`): opened in the browser, a Windows-1252 CSV (as public offices often export
 * them) reads «AÑO», not «A�O». Code page 850 has no name browsers know, and is left unnamed.
 */
async function textCharset(store: ContentStore, stat: FileStat): Promise<string | null> {
  const parts: Uint8Array[] = [];
  for await (const chunk of store.cat(stat.cid, { length: DETECTION_BYTES })) parts.push(chunk);
  const prefix = Buffer.concat(parts);
  const whole = stat.size <= DETECTION_BYTES;
  // Plain ASCII so far says nothing of the letters further on (the CSV search decides then, as it
  // reads them): no name is better than a wrong one.
  if (!whole && !hasHighByte(prefix)) return null;
  const encoding = detectEncoding(prefix, whole);
  return encoding === 'cp850' ? null : encoding;
}

/** Answers a gateway request for a stored file (or, when it asks for one, for its CAR). */
export async function serveFile(db: Db, store: ContentStore, request: GatewayRequest, options: GatewayOptions = {}): Promise<Response> {
  if (request.raw) return withoutReadThrough(() => serveRawBlock(db, store, request));
  try {
    return await serveWhole(db, store, request, options);
  } catch (error) {
    // The first bytes (a sniff, a PDF's header) may be what the gateways could not give.
    if (error instanceof ReadThroughError) throw unreachable();
    throw error;
  }
}

async function serveWhole(db: Db, store: ContentStore, request: GatewayRequest, options: GatewayOptions): Promise<Response> {
  const { stat, declared } = await servableStat(db, store, request.cid);
  if (request.car) return serveCar(store, stat, request, request.car);
  const etag = `"${stat.cid}"`;
  let type = declared?.mimeType ?? null;
  if (!type) type = sniffType(await headOf(store, stat.cid));
  // Records stored before PDFs were checked whole may hold a page that only mentioned `%PDF-`
  // (issue #16, item 14): what does not start as a PDF is not served as one.
  else if (type === ASSET_TYPES.pdf.mediaType && !hasPdfHeader(await headOf(store, stat.cid))) type = 'application/octet-stream';
  const passive = PASSIVE_TYPES.has(type);
  const contentType = passive ? type : 'application/octet-stream';
  const name = request.fileName ?? declared?.fileName ?? null;
  let inline = passive && !request.download;
  // With an origin for user content, nothing renders on the archive's own: a browser going to
  // the file is sent there, and anything else (an <img>, a fetch) gets it as an attachment.
  const contentOrigin = options.contentOrigin;
  const elsewhere = contentOrigin !== undefined && request.host !== new URL(contentOrigin).host;
  if (inline && elsewhere) {
    if (request.navigation) {
      return new Response(null, {
        status: 302,
        headers: { Location: `${contentOrigin}/ipfs/${stat.cid}${request.search ?? ''}`, 'Cache-Control': 'public, max-age=3600', Vary: 'Accept, Sec-Fetch-Mode' },
      });
    }
    inline = false;
  }
  const headers: Record<string, string> = {
    // Whatever a contributor uploads, it can never run as the archive: anything not plainly
    // passive is a download, nothing is sniffed into HTML, and documents are sandboxed (PDFs are
    // exempt: the browser's PDF viewer refuses to work sandboxed, and runs no script of ours;
    // with a content origin configured, they render only there). A download is named with the
    // extension of what it is, whatever name it was uploaded or linked under.
    'Content-Type': contentType,
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': disposition(inline ? 'inline' : 'attachment', name === null ? null : downloadName(name, contentType)),
    'Cache-Control': IMMUTABLE,
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Access-Control-Allow-Origin': '*',
    'X-Ipfs-Path': `/ipfs/${stat.cid}`,
    // The same URL answers a CAR to a client that asks for one, and on the archive's origin a
    // navigation differently from an embed: caches must keep them apart.
    Vary: elsewhere ? 'Accept, Sec-Fetch-Mode' : 'Accept',
  };
  if (type !== ASSET_TYPES.pdf.mediaType) headers['Content-Security-Policy'] = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

  if (matches(request.ifNoneMatch, etag)) return new Response(null, { status: 304, headers });
  if (passive && type.startsWith('text/')) {
    const charset = await textCharset(store, stat);
    if (charset) headers['Content-Type'] = `${contentType}; charset=${charset}`;
  }
  // A client resuming a download it began under another ETag (or a date: a CID's bytes have no
  // Last-Modified) gets the whole file, never a piece of different bytes (RFC 9110 §13.1.5).
  const range = ifRangeHolds(request.ifRange, etag) ? parseRange(request.range, stat.size) : null;
  if (range === 'unsatisfiable') {
    return new Response(null, { status: 416, headers: { ...headers, 'Content-Range': `bytes */${stat.size}` } });
  }
  const slice = range ?? { start: 0, end: stat.size - 1 };
  const length = Math.max(0, slice.end - slice.start + 1);
  headers['Content-Length'] = String(length);
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${stat.size}`;
  const status = range ? 206 : 200;
  if (request.method === 'HEAD' || length === 0) return new Response(null, { status, headers });
  return new Response(toStream(store.cat(stat.cid, { offset: slice.start, length })), { status, headers });
}

/**
 * The file's whole DAG as a CARv1, root first in depth-first order, streamed as the blocks are
 * read and verified. Its length is not known before the walk, so it goes without
 * Content-Length, and without ranges (`entity-bytes` is not supported). A block found missing
 * mid-stream cuts the stream short, as the specification expects: the client sees an
 * incomplete CAR, never a wrong one.
 */
function serveCar(store: ContentStore, stat: FileStat, request: GatewayRequest, car: CarRequest): Response {
  const dups = car.dups ? 'y' : 'n';
  const etag = car.dups ? `"${stat.cid}.dups.car"` : `"${stat.cid}.car"`;
  const headers = trustlessHeaders(
    stat.cid,
    `${CAR_MEDIA_TYPE}; version=1; order=dfs; dups=${dups}`,
    etag,
    // A CID is plain ASCII, so the default name needs no RFC 5987 form.
    request.fileName ? disposition('attachment', downloadName(request.fileName, CAR_MEDIA_TYPE)) : `attachment; filename="${stat.cid}.car"`,
  );
  if (car.negotiated) headers['Content-Location'] = `/ipfs/${stat.cid}?format=car&car-dups=${dups}`;
  if (matches(request.ifNoneMatch, etag)) return new Response(null, { status: 304, headers });
  if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
  const blocks = store.blocks(stat.cid, { duplicates: car.dups });
  return new Response(toStream(encodeCar(parseCid(stat.cid), blocks)), { status: 200, headers });
}

/**
 * The headers of a trustless-gateway answer (a CAR or a raw block): bytes a client verifies
 * against the CID, downloaded rather than shown, cached for good, readable from any origin.
 */
function trustlessHeaders(cid: string, contentType: string, etag: string, contentDisposition: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': contentDisposition,
    'Cache-Control': IMMUTABLE,
    ETag: etag,
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Access-Control-Allow-Origin': '*',
    'X-Ipfs-Path': `/ipfs/${cid}`,
    'X-Ipfs-Roots': cid,
    Vary: 'Accept',
  };
}

/**
 * One block as its bytes (IPFS Trustless Gateway, `application/vnd.ipld.raw`): a stored file's
 * root, inner node or leaf, read from this server's own blocks, verified, and refused as the
 * file's CAR would be when the file is withdrawn. A block is at most a 256 KiB leaf or a node of
 * a few KiB, so it is read whole before answering, with its exact length.
 */
async function serveRawBlock(db: Db, store: ContentStore, request: GatewayRequest): Promise<Response> {
  const { stat } = await servableStat(db, store, request.cid);
  const etag = `"${stat.cid}.raw"`;
  const headers = trustlessHeaders(stat.cid, RAW_BLOCK_MEDIA_TYPE, etag, `attachment; filename="${stat.cid}.bin"`);
  if (matches(request.ifNoneMatch, etag)) return new Response(null, { status: 304, headers });
  const blocks = store.blocks(stat.cid)[Symbol.asyncIterator]();
  let block: Uint8Array;
  try {
    // The walk yields the root before it reads anything below it; stopping there reads no more.
    const first = await blocks.next();
    if (first.done) throw new HttpError(404, 'Este archivo no está en el archivo.');
    block = first.value.bytes;
  } finally {
    await blocks.return?.(undefined);
  }
  headers['Content-Length'] = String(block.byteLength);
  if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
  // A copy (of at most a leaf) typed as the plain ArrayBuffer a body takes.
  return new Response(block.slice(), { status: 200, headers });
}
