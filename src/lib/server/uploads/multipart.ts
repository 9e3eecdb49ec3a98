/**
 * A multipart/form-data body read as a sequence of parts that the caller pulls one at a time.
 * Files are streams, never buffered: a part's bytes flow only as fast as the caller consumes them
 * (busboy pauses the request meanwhile), so an upload of any size passes in bounded memory.
 * Whatever goes wrong (a malformed body, a dropped connection, the caller giving up) ends the
 * iteration with a typed error and releases the request.
 */
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { PayloadTooLargeError, ValidationError } from '../http/errors.ts';
import { nodeRequestOf } from '../http/node-request.ts';
import { discardRest } from '../http/unread-body.ts';

export type Part =
  | { kind: 'field'; name: string; value: string }
  | {
      kind: 'file';
      name: string;
      /** The file name the browser sent, as is (untrusted). */
      fileName: string;
      /** The type the browser claimed (untrusted: the content decides). */
      mimeType: string;
      /** Must be read to its end (or the iteration abandoned) before the next part arrives. */
      content: AsyncIterable<Uint8Array>;
    };

export interface MultipartLimits {
  /** Largest text field, in bytes. */
  fieldBytes: number;
  fields: number;
  files: number;
}

/** The body was cut short or is not well-formed multipart. */
export class MalformedUploadError extends ValidationError {
  constructor(message = 'La subida llegó incompleta o mal formada: vuelva a intentarlo.') {
    super(message);
    this.name = 'MalformedUploadError';
  }
}

/**
 * Reads `request`'s multipart body part by part: straight from the socket when the server gives
 * access to it (see `nodeRequestOf`), or from the web body.
 */
export async function* readMultipart(request: Request, limits: MultipartLimits): AsyncGenerator<Part> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType) || !request.body) {
    throw new ValidationError('La subida debe enviarse como multipart/form-data.');
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      limits: {
        fieldSize: limits.fieldBytes,
        fields: limits.fields,
        files: limits.files,
        // busboy signals `partsLimit` on reaching the count, not on passing it.
        parts: limits.fields + limits.files + 1,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
  } catch {
    throw new ValidationError('La subida debe enviarse como multipart/form-data con su separador (boundary).');
  }

  const queue = new PartQueue();
  let currentFile: Readable | undefined;
  const fail = (error: Error) => {
    queue.fail(error);
    currentFile?.destroy(error);
  };

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(new PayloadTooLargeError(`El campo «${name.slice(0, 40)}» es demasiado largo.`));
    else queue.push({ kind: 'field', name, value });
  });
  parser.on('file', (name, stream, info) => {
    currentFile = stream;
    // Its reader hears a failure through the iteration; a file nobody reads any more must not
    // turn the same failure into an uncaught 'error' event.
    stream.on('error', () => {});
    queue.push({ kind: 'file', name, fileName: info.filename ?? '', mimeType: info.mimeType, content: stream });
  });
  const tooMany = () => fail(new ValidationError('La subida trae más partes de las esperadas.'));
  parser.on('fieldsLimit', tooMany);
  parser.on('filesLimit', tooMany);
  parser.on('partsLimit', tooMany);
  parser.on('error', () => fail(new MalformedUploadError()));
  parser.on('finish', () => queue.end());

  const body: Readable =
    nodeRequestOf(request) ?? Readable.fromWeb(request.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('error', () => fail(new MalformedUploadError('La conexión se cortó antes de terminar la subida.')));
  body.pipe(parser);
  try {
    yield* queue;
  } finally {
    // Finished, failed or abandoned: stop parsing and let go of the parts; what the client still
    // sends is read and dropped, so that it reads the answer (unread-body.ts).
    body.unpipe(parser);
    parser.destroy();
    discardRest(body);
  }
}

/** Parts waiting for the reader, or the reader waiting for parts. */
class PartQueue implements AsyncIterable<Part> {
  private readonly parts: Part[] = [];
  private waiting: { resolve: (result: IteratorResult<Part>) => void; reject: (error: Error) => void } | undefined;
  private ended = false;
  private error: Error | undefined;

  push(part: Part): void {
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: part, done: false });
    } else this.parts.push(part);
  }

  end(): void {
    this.ended = true;
    this.settle();
  }

  fail(error: Error): void {
    this.error ??= error;
    this.settle();
  }

  private settle(): void {
    if (!this.waiting || this.parts.length > 0) return;
    const { resolve, reject } = this.waiting;
    this.waiting = undefined;
    if (this.error) reject(this.error);
    else if (this.ended) resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<Part> {
    return {
      next: () => {
        if (this.error) return Promise.reject(this.error);
        const part = this.parts.shift();
        if (part) return Promise.resolve({ value: part, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
    };
  }
}
