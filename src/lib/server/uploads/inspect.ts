/**
 * Watching a file go by on its way to the store: its size against the limit, its SHA-256 (which
 * the contributor signed), and its first bytes, checked as soon as they have arrived so that a
 * file of the wrong type is refused before the rest of it is read. Other digests a caller must
 * check (a catalogue's declared MD5 or SHA-1) are computed in the same pass: a file is read once.
 */
import { createHash } from 'node:crypto';
import { PayloadTooLargeError } from '../http/errors.ts';
import { HEAD_BYTES } from '../content-type.ts';
import { vouchSha256 } from '../storage/byte-source.ts';

export interface Inspection {
  /**
   * The bytes, passed through unchanged; throws the limit's or the check's error mid-stream. Its
   * SHA-256 is vouched for (`vouchSha256`): the store need not hash a one-block file again for its CID.
   */
  stream: AsyncIterable<Uint8Array>;
  /** The SHA-256 of the bytes, once the stream is exhausted (it throws before). */
  wholeSha256(): Uint8Array;
  /**
   * Once the stream is exhausted: the SHA-256 (hex), the size, the leading bytes, and each digest
   * of `InspectOptions.digests` (hex) by its algorithm's name. Taken once: the inspection then lets
   * go of the leading bytes, since a caller may keep it until a transaction ends (a capture waiting
   * for its group) while only the caller needs them.
   */
  result(): { sha256: string; size: number; head: Uint8Array; digests: Record<string, string> };
}

export interface InspectOptions {
  maxBytes: number;
  /** Spanish message of the 413 when the file passes `maxBytes`. */
  tooLargeMessage: string;
  /** Called once with the first `HEAD_BYTES` (fewer for a shorter file); may throw to refuse it. */
  checkHead(head: Uint8Array): void;
  /** Digests to compute besides SHA-256, by node:crypto name (`md5`, `sha1`, `sha512`). */
  digests?: readonly string[];
}

const EMPTY = new Uint8Array(0);

export function inspect(content: AsyncIterable<Uint8Array>, options: InspectOptions): Inspection {
  const hash = createHash('sha256');
  const others = [...new Set(options.digests ?? [])].filter((algorithm) => algorithm !== 'sha256').map((algorithm) => [algorithm, createHash(algorithm)] as const);
  let size = 0;
  const headParts: Uint8Array[] = [];
  let headSize = 0;
  let head: Uint8Array | undefined;
  let taken = false;
  let finished = false;
  let sha256: Buffer | undefined;
  // A hash gives its digest once; the store and `result` both ask for it.
  const wholeSha256 = () => {
    if (!finished) throw new Error('The file has not been read to its end');
    return (sha256 ??= hash.digest());
  };

  const checkHead = () => {
    head = Buffer.concat(headParts, headSize);
    // The parts are views of whole chunks (a socket's reads): not kept past this copy, or every
    // capture waiting for its group's transaction would hold its first chunk.
    headParts.length = 0;
    options.checkHead(head);
  };

  async function* stream(): AsyncGenerator<Uint8Array> {
    for await (const chunk of content) {
      size += chunk.byteLength;
      if (size > options.maxBytes) throw new PayloadTooLargeError(options.tooLargeMessage);
      hash.update(chunk);
      for (const [, other] of others) other.update(chunk);
      if (head === undefined) {
        const wanted = HEAD_BYTES - headSize;
        headParts.push(chunk.subarray(0, wanted));
        headSize += Math.min(wanted, chunk.byteLength);
        if (headSize >= HEAD_BYTES) checkHead();
      }
      yield chunk;
    }
    if (head === undefined) checkHead();
    finished = true;
  }

  return {
    stream: vouchSha256(stream(), wholeSha256),
    wholeSha256,
    result() {
      if (taken) throw new Error('The inspection\'s result was taken already');
      if (head === undefined || !finished) throw new Error('The file has not been read to its end');
      const sha256 = wholeSha256().toString('hex');
      const digests: Record<string, string> = { sha256 };
      for (const [algorithm, other] of others) digests[algorithm] = other.digest('hex');
      const result = { sha256, size, head, digests };
      taken = true;
      head = EMPTY;
      return result;
    },
  };
}
