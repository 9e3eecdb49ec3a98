/**
 * Compression of what `npm start` serves (issue #20, "Faster first bytes"): pages, styles, scripts,
 * JSON and the catalogue's exports (DCAT, Turtle, CSV…) go out as brotli or gzip when the client
 * accepts it, chosen by `Accept-Encoding`, with `Vary: Accept-Encoding`.
 *
 * It wraps the Node response the adapter writes to (scripts/start.ts), so every route, rendered or
 * static, is covered by one mechanism. The body passes through a zlib stream chunk by chunk: a large
 * export is never held whole, and backpressure reaches whoever writes (a piped file waits for
 * `drain`). Never compressed:
 * - what is compressed already (images, ZIP, PDF, CAR, `application/octet-stream`…): only the text
 *   types below are;
 * - anything under `/ipfs/` (the gateway serves bytes exactly as their CID names them) and any
 *   response to a `Range` request (a 206's byte offsets are offsets of the identity encoding);
 * - bodies under 1 KiB, a response that says `Cache-Control: no-transform` or is already encoded.
 * A strong `ETag` becomes weak once compressed: the bytes differ from the identity ones, and the
 * archive's conditional requests already use the weak comparison (lib/server/export/http.ts).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import { varyWith } from './response-headers.ts';

export type Encoding = 'br' | 'gzip';

/** Below this a compressed body saves less than its headers and the CPU cost. */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * Brotli at quality 5 compresses HTML about as well as gzip -9 at a fraction of quality 11's cost,
 * which suits bodies compressed per request.
 */
const BROTLI_QUALITY = 5;

const COMPRESSIBLE_TYPE =
  /^(?:text\/(?!event-stream)[\w.+-]+|image\/svg\+xml|application\/(?:json|javascript|ecmascript|xml|x-turtle|n-triples|n-quads|trig|x-ndjson|graphql-response\+json|[\w.-]+\+(?:json|xml)))$/;

/** Whether a `Content-Type` names text worth compressing. */
export function isCompressibleType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return COMPRESSIBLE_TYPE.test(contentType.split(';')[0]!.trim().toLowerCase());
}

/**
 * The encoding to use for an `Accept-Encoding` header: brotli when accepted at least as much as
 * gzip, else gzip, else none. `q=0` refuses an encoding; `*` stands for those not named.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...parameters] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (encoding: Encoding) => weights.get(encoding) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gzip = Math.max(weightOf('gzip'), weights.get('x-gzip') ?? 0);
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}

export interface CompressionFacts {
  /** The request target (path and query). */
  url: string | undefined;
  requestHeaders: IncomingMessage['headers'];
  status: number;
  /** The response's headers as they stand when the body starts. */
  responseHeaders: OutgoingHttpHeaders;
}

/**
 * What to do with a response: `vary` when its encoding depends on `Accept-Encoding` (so caches
 * keep one copy per encoding), and the `encoding` to use, if any.
 */
export function compressionFor(facts: CompressionFacts): { vary: boolean; encoding: Encoding | null } {
  const none = { vary: false, encoding: null };
  const header = (name: string) => {
    const value = facts.responseHeaders[name];
    return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
  };
  if (facts.status < 200 || facts.status === 204 || facts.status === 206 || facts.status === 304) return none;
  if ((facts.url ?? '').startsWith('/ipfs/')) return none;
  if (facts.requestHeaders.range !== undefined) return none;
  if (header('content-encoding') !== undefined) return none;
  if (/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(header('cache-control') ?? '')) return none;
  if (!isCompressibleType(header('content-type'))) return none;
  const length = header('content-length');
  if (length !== undefined && Number(length) < MIN_COMPRESSED_BYTES) return none;
  return { vary: true, encoding: negotiateEncoding(facts.requestHeaders['accept-encoding']) };
}

function createCompressor(encoding: Encoding, length: number | undefined): zlib.Gzip | zlib.BrotliCompress {
  if (encoding === 'gzip') return zlib.createGzip();
  const params: Record<number, number> = { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY };
  if (length !== undefined) params[zlib.constants.BROTLI_PARAM_SIZE_HINT] = length;
  return zlib.createBrotliCompress({ params });
}

type WriteCallback = (error?: Error | null) => void;

/**
 * Makes `response` compress its body when `compressionFor` says so. Call it before anything is
 * written: it decides when the headers go out (on `writeHead`, or on the first `write`/`end`).
 */
export function compressWhenAccepted(request: IncomingMessage, response: ServerResponse): void {
  // Node's own methods, called with whatever arguments the caller gave (their overloads do not type).
  type Loose<T> = (this: ServerResponse, ...args: unknown[]) => T;
  const original = {
    writeHead: response.writeHead as Loose<ServerResponse>,
    write: response.write as Loose<boolean>,
    end: response.end as Loose<ServerResponse>,
  };
  let decided = false;
  let compressor: zlib.Gzip | zlib.BrotliCompress | null = null;

  const decide = () => {
    decided = true;
    const { vary, encoding } = compressionFor({
      url: request.url,
      requestHeaders: request.headers,
      status: response.statusCode,
      responseHeaders: response.getHeaders(),
    });
    if (vary) response.setHeader('Vary', varyWith(response.getHeader('vary')?.toString(), 'Accept-Encoding'));
    if (!encoding) return;
    const length = response.getHeader('content-length');
    response.removeHeader('Content-Length');
    response.setHeader('Content-Encoding', encoding);
    const etag = response.getHeader('etag')?.toString();
    if (etag && !etag.startsWith('W/')) response.setHeader('ETag', `W/${etag}`);
    // A HEAD answer has the headers of the GET one and no body to compress.
    if (request.method === 'HEAD') return;
    compressor = createCompressor(encoding, length === undefined ? undefined : Number(length));
    const stream = compressor;
    stream.on('data', (chunk: Buffer) => {
      if (!original.write.call(response, chunk)) stream.pause();
    });
    response.on('drain', () => stream.resume());
    stream.on('drain', () => response.emit('drain'));
    stream.on('error', (error) => response.destroy(error));
    // A client that goes away mid-body: stop compressing for it.
    response.on('close', () => stream.destroy());
  };

  response.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (decided) return original.writeHead.call(this, statusCode, ...rest);
    const reason = typeof rest[0] === 'string' ? rest[0] : undefined;
    const headers = reason === undefined ? rest[0] : rest[1];
    // Raw header arrays are not used by the adapter; such a response is passed on unchanged.
    if (Array.isArray(headers)) {
      decided = true;
      return original.writeHead.call(this, statusCode, ...rest);
    }
    for (const [name, value] of Object.entries((headers ?? {}) as OutgoingHttpHeaders)) {
      if (value !== undefined) this.setHeader(name, value);
    }
    this.statusCode = statusCode;
    decide();
    return reason === undefined ? original.writeHead.call(this, statusCode) : original.writeHead.call(this, statusCode, reason);
  } as ServerResponse['writeHead'];

  response.write = function (this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (!decided) decide();
    if (!compressor) return original.write.call(this, chunk, encoding, callback);
    if (!this.headersSent) this.writeHead(this.statusCode);
    return (compressor.write as (...args: unknown[]) => boolean).call(compressor, chunk, encoding, callback);
  } as ServerResponse['write'];

  response.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (!decided) {
      // The whole body in one call: its length is known, as Node would state it.
      if (!this.headersSent && !this.hasHeader('content-length') && (typeof chunk === 'string' || chunk instanceof Uint8Array)) {
        this.setHeader('Content-Length', typeof chunk === 'string' ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : chunk.byteLength);
      }
      decide();
    }
    if (!compressor) return original.end.call(this, chunk, encoding, callback);
    if (!this.headersSent) this.writeHead(this.statusCode);
    const done = [chunk, encoding, callback].find((argument) => typeof argument === 'function') as WriteCallback | undefined;
    const body = typeof chunk === 'function' ? undefined : chunk;
    const bodyEncoding = typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined;
    const stream = compressor;
    stream.once('end', () => original.end.call(this, done));
    if (body === undefined || body === null) stream.end();
    else if (bodyEncoding) stream.end(body, bodyEncoding);
    else stream.end(body);
    return this;
  } as ServerResponse['end'];
}
