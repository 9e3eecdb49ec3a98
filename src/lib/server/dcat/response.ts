/**
 * The answers of `/catalog.jsonld` and `/catalog.ttl`: the catalogue streamed as it is read, with a
 * tag from what it was built from so a harvester that already has it gets a 304 for one small query.
 */
import { Turns } from '../concurrency/turns.ts';
import type { Db } from '../db/index.ts';
import { HttpError } from '../http/errors.ts';
import { PUBLIC_DOCUMENT_HEADERS, fingerprintHash, isNotModified, notModified, streamText } from '../export/http.ts';
import { catalogFingerprint } from '../queries/catalog.ts';
import { readCatalog, type CatalogGraph } from './catalog.ts';
import { catalogJsonLd } from './jsonld.ts';
import { catalogTurtle } from './turtle.ts';

/**
 * Raised whenever what the documents say for the same data changes, so older tags stop matching
 * (2: the catalogue facts of #18/#20; 3: the original's dates on datasets, the archive's on
 * catalogue records, frequencies outside the EU table as labelled `dct:Frequency` nodes; 4: the
 * current file's distribution issued when the archive got it, as earlier versions' are; 5: a
 * day the original's catalogue gave as a day stated as `xsd:date`; 6: a harvested record's words in
 * the language its catalogue declared, or in none, and a distribution's file name in none).
 */
const CATALOG_VERSION = 6;

/**
 * The lane catalogue documents are written in: one chunk at a time in this process, whoever asks.
 * Writing one is seconds of CPU on a large archive, and ten clients asking together slowed every
 * other page threefold; in one lane, any other request waits behind one chunk at most. A turn is
 * held while a chunk is made, never while a client reads it, so a slow reader holds nothing.
 */
const LANE = new Turns(1);

/**
 * Catalogue documents being sent at once, in this process. A client that stops reading keeps its
 * document open, and with it a page of records (`DOCUMENT_PAGE_SIZE`): this bounds what such
 * clients can hold, whatever their number. One more request waits for a turn, in line (before it
 * has read anything, it holds nothing), and is refused with a 503 and a `Retry-After` only when
 * the line is full: a hundred readers at once under load were served, eight at a time.
 */
export const CATALOG_DOCUMENTS_AT_ONCE = 8;
/** Requests for a catalogue document waiting for a turn, at most; the next is refused at once. */
export const CATALOG_DOCUMENTS_WAITING = 64;
const DOCUMENTS = new Turns(CATALOG_DOCUMENTS_AT_ONCE, {
  maxWaiting: CATALOG_DOCUMENTS_WAITING,
  tooManyWaiting: () =>
    new HttpError(503, 'Se están enviando demasiadas copias del catálogo a la vez; vuelva a pedirlo en medio minuto.', { 'Retry-After': '30' }),
});

/** Requests waiting for a catalogue document's turn in this process, now. */
export function catalogDocumentsWaiting(): number {
  return DOCUMENTS.waiting('documents');
}

/**
 * Records per database page of a catalogue document: what a document being sent holds at most of
 * them. A thousand (the exports' page, written once to a file) made about 10 MB per document
 * whose client had stopped reading; a hundred cost the database ten short queries per thousand
 * records instead of one.
 */
const DOCUMENT_PAGE_SIZE = 100;

export const CATALOG_FORMATS = {
  jsonld: { contentType: 'application/ld+json', write: catalogJsonLd },
  turtle: { contentType: 'text/turtle; charset=utf-8', write: catalogTurtle },
} as const satisfies Record<string, { contentType: string; write: (graph: CatalogGraph) => AsyncIterable<string> }>;

export type CatalogFormat = keyof typeof CATALOG_FORMATS;

export interface CatalogRequest {
  db: Db;
  /** The archive's public origin (`config.publicUrl` or the request's). */
  origin: string;
  request: Request;
  /** Records per database page (tests make it small to cross many pages). */
  pageSize?: number;
}

/** The whole catalogue in `format`, streamed, or a 304 when the client's copy is current. */
export async function catalogResponse(format: CatalogFormat, { db, origin, request, pageSize }: CatalogRequest): Promise<Response> {
  const { contentType, write } = CATALOG_FORMATS[format];
  // Weak: the same data gives an equivalent document, which is all the tag promises.
  const etag = `W/"${fingerprintHash({ version: CATALOG_VERSION, format, origin, data: await catalogFingerprint(db) })}"`;
  const headers = { ...PUBLIC_DOCUMENT_HEADERS, ETag: etag };
  if (isNotModified(request, { etag })) return notModified(headers);
  // A HEAD is answered with the headers alone: Astro answers it with a GET's headers and throws the
  // body away unread, and with it the turn below, which nothing would give back (eight HEADs from
  // an uptime monitor left the catalogue answering 503 for good).
  if (request.method === 'HEAD') return new Response(null, { headers: { ...headers, 'Content-Type': contentType } });
  const giveBack = await DOCUMENTS.take('documents', request.signal);
  try {
    const graph = await inTurn(request.signal, () => readCatalog(db, origin, { pageSize: pageSize ?? DOCUMENT_PAGE_SIZE }));
    // The document's turn is given back once it is sent, or its client has gone.
    return new Response(streamText(oneChunkAtATime(write(graph), request.signal), giveBack), { headers: { ...headers, 'Content-Type': contentType } });
  } catch (error) {
    giveBack();
    throw error;
  }
}

/** `work` in the catalogue's lane: only one piece of catalogue writing runs at a time in this process. */
async function inTurn<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const giveBack = await LANE.take('catalogue', signal);
  try {
    return await work();
  } finally {
    giveBack();
  }
}

/** `chunks`, each one made in the lane: a turn is held while a chunk is written, never while a client reads it. */
async function* oneChunkAtATime(chunks: AsyncIterable<string>, signal: AbortSignal): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await inTurn(signal, () => iterator.next());
      if (step.done) return;
      yield step.value;
    }
  } finally {
    await iterator.return?.(undefined);
  }
}
