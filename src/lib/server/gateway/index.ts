/**
 * The archive's IPFS gateway, `/ipfs/{cid}` (DECISIONS: Storage): stored files served by CID,
 * verified block by block as they stream, with range requests and immutable caching, and with
 * headers that keep a visitor's upload from ever running as the archive's own page.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { aletheias, alexandrias } from '../db/schema.ts';
import { HttpError } from '../http/errors.ts';
import { InvalidCidError, NotInStoreError, type ContentStore } from '../storage/index.ts';

/** Types a browser shows without running anything of ours: served inline. */
const PASSIVE_TYPES = new Set([
  'application/pdf',
  'text/plain',
  'text/csv',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/zip',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.spreadsheet',
]);

/** What the first bytes say a file is, for files the archive has no record of. */
export function sniffType(head: Uint8Array): string {
  const starts = (...bytes: number[]) => bytes.every((byte, i) => head[i] === byte);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && head[8] === 0x57 && head[9] === 0x45) return 'image/webp';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'application/zip';
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return 'application/vnd.ms-excel';
  return 'application/octet-stream';
}

/** The declared type of a CID: from its record or proof, or null when the archive has none. */
async function declaredType(db: Db, cid: string): Promise<{ mimeType: string | null; fileName: string | null } | null> {
  const [record] = await db
    .select({ mimeType: alexandrias.mimeType, fileName: alexandrias.fileName })
    .from(alexandrias)
    .where(eq(alexandrias.cid, cid))
    .limit(1);
  if (record) return record;
  const [proof] = await db
    .select({ mimeType: aletheias.mimeType, fileName: aletheias.fileName })
    .from(aletheias)
    .where(eq(aletheias.cid, cid))
    .limit(1);
  return proof ?? null;
}

export interface ByteRange {
  start: number;
  /** Inclusive, as HTTP counts. */
  end: number;
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
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export interface GatewayRequest {
  cid: string;
  method: string;
  range: string | null;
  ifNoneMatch: string | null;
  download: boolean;
  fileName: string | null;
}

/** Answers a gateway request for a stored file. */
export async function serveFile(db: Db, store: ContentStore, request: GatewayRequest): Promise<Response> {
  let stat;
  try {
    stat = await store.stat(request.cid);
  } catch (error) {
    if (error instanceof InvalidCidError) throw new HttpError(400, 'El CID no es válido.');
    if (error instanceof NotInStoreError) throw new HttpError(404, 'Este archivo no está en el archivo.');
    throw error;
  }
  const etag = `"${stat.cid}"`;
  const declared = await declaredType(db, stat.cid);
  let type = declared?.mimeType ?? null;
  if (!type) {
    const head: Uint8Array[] = [];
    for await (const chunk of store.cat(stat.cid, { length: 16 })) head.push(chunk);
    type = sniffType(Buffer.concat(head));
  }
  const passive = PASSIVE_TYPES.has(type);
  const fileName = request.fileName ?? declared?.fileName ?? null;
  const headers: Record<string, string> = {
    // Whatever a contributor uploads, it can never run as the archive: anything not plainly
    // passive is a download, nothing is sniffed into HTML, and documents are sandboxed (PDFs are
    // exempt: the browser's PDF viewer refuses to work sandboxed, and runs no script of ours).
    'Content-Type': passive ? type : 'application/octet-stream',
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': disposition(request.download || !passive ? 'attachment' : 'inline', fileName),
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Access-Control-Allow-Origin': '*',
    'X-Ipfs-Path': `/ipfs/${stat.cid}`,
  };
  if (type !== 'application/pdf') headers['Content-Security-Policy'] = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

  if (request.ifNoneMatch && request.ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) {
    return new Response(null, { status: 304, headers });
  }
  const range = parseRange(request.range, stat.size);
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
