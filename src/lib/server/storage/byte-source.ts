/**
 * Everything `add` and `cidOf` accept as file content. Chunks are read one at a time and never
 * gathered, so a file of any size passes through in bounded memory. A chunk must not be
 * changed after it is yielded: the importer may still be hashing a view of it.
 */
export type ByteSource =
  | Uint8Array
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | Iterable<Uint8Array>;

/**
 * Streams whose bytes were hashed on their way (`inspect`), with the SHA-256 of everything they
 * yield, known once they are exhausted: a file of one block takes its CID from it (`importContent`)
 * instead of hashing the same bytes a second time. Private to this module: only code that vouches
 * for a stream (`vouchSha256`) puts it here, never a property a caller or a wrapper could carry on.
 */
const knownSha256 = new WeakMap<object, () => Uint8Array>();

/**
 * Vouches that `stream` yields exactly the bytes whose SHA-256 `digest` gives once it is exhausted
 * (it throws before). Only for a stream that hashes what it yields, or passes on unchanged the
 * bytes of one that does.
 */
export function vouchSha256<S extends AsyncIterable<Uint8Array>>(stream: S, digest: () => Uint8Array): S {
  knownSha256.set(stream, digest);
  return stream;
}

/** `source`'s SHA-256 as vouched for (`vouchSha256`), when it is. */
export function wholeSha256Of(source: ByteSource): (() => Uint8Array) | undefined {
  return typeof source === 'object' ? knownSha256.get(source) : undefined;
}

/** A byte stream that counts what flowed through it, to report the file size after import. */
export interface CountedStream {
  stream: AsyncIterable<Uint8Array>;
  /** Bytes yielded so far; the file size once the stream is exhausted. */
  bytesRead(): number;
}

/** Wraps any `ByteSource` as an async iterable of `Uint8Array` chunks and counts its bytes. */
export function countedStream(source: ByteSource): CountedStream {
  let bytes = 0;
  async function* counting(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunksOf(source)) {
      // The importer would turn a string or number array into bytes on its own; the archive
      // wants a type error instead of quietly storing a different file.
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError(`Content chunks must be Uint8Array, got ${describe(chunk)}`);
      }
      bytes += chunk.byteLength;
      yield chunk;
    }
  }
  return { stream: counting(), bytesRead: () => bytes };
}

function chunksOf(source: ByteSource): AsyncIterable<unknown> | Iterable<unknown> {
  if (source instanceof Uint8Array) return [source];
  if (isReadableStream(source)) return readAll(source);
  return source;
}

function isReadableStream(source: ByteSource): source is ReadableStream<Uint8Array> {
  return typeof (source as Partial<ReadableStream<Uint8Array>>).getReader === 'function';
}

/**
 * Reads a web stream through its reader rather than its async iterator, which not every
 * runtime's typings declare. If the import stops early (a failed write), the stream is
 * cancelled so its producer stops too.
 */
async function* readAll(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * `stream` read whole into memory, refused past `max` bytes (whatever its sender said its length
 * was): the stream is cancelled, so its producer stops, and `tooLarge()` is thrown. Either way the
 * reader's lock is released. A body that came as one chunk is returned as it came, uncopied.
 */
export async function readWhole(stream: ReadableStream<Uint8Array>, max: number, tooLarge: () => Error): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  // Leaving the loop early (the throw) cancels the stream: `readAll`'s own cleanup.
  for await (const chunk of readAll(stream)) {
    length += chunk.byteLength;
    if (length > max) throw tooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}
