/**
 * HTTP pieces the catalogue and the exports share: answering conditional requests (RFC 9110 §13),
 * a tag from what a document was built from, and a response body streamed from text chunks.
 */
import { createHash } from 'node:crypto';

/** Public, cacheable for an hour, readable from any origin (the data is open). */
export const PUBLIC_DOCUMENT_HEADERS = {
  'Cache-Control': 'public, max-age=3600',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** A short, stable hash of `parts` (hex): equal parts, equal hash. */
export function fingerprintHash(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** Entity tags in an If-None-Match header; `*` matches anything. */
function listedTags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** `W/"x"` and `"x"` are the same tag under the weak comparison If-None-Match uses. */
const opaque = (tag: string) => tag.replace(/^W\//, '');

/**
 * Whether an If-None-Match header names `etag` (or is `*`), under the weak comparison it uses
 * (RFC 9110 §13.1.2): a client that keeps `W/"x"` has the copy tagged `"x"`.
 */
export function noneMatchHolds(ifNoneMatch: string, etag: string): boolean {
  const tags = listedTags(ifNoneMatch);
  return tags.includes('*') || tags.some((tag) => opaque(tag) === opaque(etag));
}

/**
 * Whether the client's copy is current: If-None-Match when sent (it takes precedence), else
 * If-Modified-Since against `lastModified` at the one-second precision of HTTP dates.
 */
export function isNotModified(request: Request, current: { etag: string; lastModified?: Date | undefined }): boolean {
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null) return noneMatchHolds(ifNoneMatch, current.etag);
  const ifModifiedSince = request.headers.get('if-modified-since');
  if (ifModifiedSince === null || !current.lastModified) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(current.lastModified.getTime() / 1000) * 1000 <= since;
}

/** The 304 answer, with the validators and caching headers a 200 would carry. */
export function notModified(headers: Record<string, string>): Response {
  return new Response(null, { status: 304, headers });
}

/**
 * A response body from text chunks, pulled one at a time: the next chunk is produced only when
 * the client has taken the previous one, so a slow reader holds back the database, not memory.
 * `finished` is called once, when the body has been read to its end, cancelled (the client went
 * away, even before the first chunk) or cut short by an error.
 */
export function streamText(chunks: AsyncIterable<string>, finished: () => void = () => {}): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    finished();
  };
  /** The client went away while a chunk was being made: that chunk goes nowhere. */
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { value, done } = await iterator.next();
          if (cancelled) return;
          if (done) {
            end();
            controller.close();
            return;
          }
          if (value.length > 0) {
            controller.enqueue(encoder.encode(value));
            return;
          }
        }
      } catch (error) {
        end();
        if (cancelled) return;
        // Headers are gone already: all that is left is to cut the body short, visibly.
        console.error('Error al generar el documento:', error);
        controller.error(error);
      }
    },
    async cancel() {
      cancelled = true;
      end();
      await iterator.return?.(undefined);
    },
  });
}
