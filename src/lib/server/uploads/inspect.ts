/**
 * Watching a file go by on its way to the store: its size against the limit, its SHA-256 (which
 * the contributor signed), and its first bytes, checked as soon as they have arrived so that a
 * file of the wrong type is refused before the rest of it is read.
 */
import { createHash } from 'node:crypto';
import { PayloadTooLargeError } from '../http/errors.ts';
import { HEAD_BYTES } from '../content-type.ts';

export interface Inspection {
  /** The bytes, passed through unchanged; throws the limit's or the check's error mid-stream. */
  stream: AsyncIterable<Uint8Array>;
  /** Once the stream is exhausted: the SHA-256 (hex), the size and the leading bytes. */
  result(): { sha256: string; size: number; head: Uint8Array };
}

export interface InspectOptions {
  maxBytes: number;
  /** Spanish message of the 413 when the file passes `maxBytes`. */
  tooLargeMessage: string;
  /** Called once with the first `HEAD_BYTES` (fewer for a shorter file); may throw to refuse it. */
  checkHead(head: Uint8Array): void;
}

export function inspect(content: AsyncIterable<Uint8Array>, options: InspectOptions): Inspection {
  const hash = createHash('sha256');
  let size = 0;
  const headParts: Uint8Array[] = [];
  let headSize = 0;
  let head: Uint8Array | undefined;

  const checkHead = () => {
    head = Buffer.concat(headParts, headSize);
    options.checkHead(head);
  };

  async function* stream(): AsyncGenerator<Uint8Array> {
    for await (const chunk of content) {
      size += chunk.byteLength;
      if (size > options.maxBytes) throw new PayloadTooLargeError(options.tooLargeMessage);
      hash.update(chunk);
      if (head === undefined) {
        const wanted = HEAD_BYTES - headSize;
        headParts.push(chunk.subarray(0, wanted));
        headSize += Math.min(wanted, chunk.byteLength);
        if (headSize >= HEAD_BYTES) checkHead();
      }
      yield chunk;
    }
    if (head === undefined) checkHead();
  }

  return {
    stream: stream(),
    result() {
      if (head === undefined) throw new Error('The file has not been read to its end');
      return { sha256: hash.digest('hex'), size, head };
    },
  };
}
