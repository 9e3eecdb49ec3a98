/**
 * `readWhole` (src/lib/server/storage/byte-source.ts), the one capped whole-body read that the S3
 * blockstore and the gateways' read-through share: up to `max` bytes pass, one byte more stops the
 * sender and throws the caller's error, and the stream is unlocked either way.
 */
import { describe, expect, test } from 'vitest';
import { readWhole } from '../../../src/lib/server/storage/byte-source.ts';

/** A stream of `chunks` that records whether it was cancelled and how many chunks were pulled. */
function source(chunks: Uint8Array[]) {
  const seen = { cancelled: false, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[seen.pulled];
        if (!chunk) return controller.close();
        seen.pulled += 1;
        controller.enqueue(chunk);
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

const tooLarge = () => new RangeError('demasiado grande');

describe('readWhole', () => {
  test('exactly `max` bytes pass, in order, and the stream is unlocked and not cancelled', async () => {
    const { stream, seen } = source([Uint8Array.of(1, 2), Uint8Array.of(3), Uint8Array.of(4, 5)]);
    const bytes = await readWhole(stream, 5, tooLarge);
    expect([...bytes]).toEqual([1, 2, 3, 4, 5]);
    expect(stream.locked).toBe(false);
    expect(seen.cancelled).toBe(false);
  });

  test('one byte past `max` throws the caller’s error, cancels the source and unlocks the stream', async () => {
    // An endless sender: only the cancel stops it.
    const seen = { cancelled: false, pulled: 0 };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          seen.pulled += 1;
          controller.enqueue(new Uint8Array(3));
        },
        cancel() {
          seen.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    await expect(readWhole(stream, 5, tooLarge)).rejects.toThrow(RangeError);
    expect(seen.cancelled).toBe(true);
    // 3 + 3 is past 5: nothing was pulled after the chunk that crossed the cap.
    expect(seen.pulled).toBe(2);
    expect(stream.locked).toBe(false);

    const exact = source([new Uint8Array(5), Uint8Array.of(9)]);
    await expect(readWhole(exact.stream, 5, tooLarge)).rejects.toThrow('demasiado grande');
    expect(exact.seen.cancelled).toBe(true);
  });

  test('a body of one chunk is returned as it came, uncopied; an empty body is empty', async () => {
    const only = new Uint8Array([7, 8, 9]);
    expect(await readWhole(source([only]).stream, 3, tooLarge)).toBe(only);
    expect((await readWhole(source([]).stream, 3, tooLarge)).byteLength).toBe(0);
  });

  test('a stream that fails passes its error on, unlocked', async () => {
    const failure = new Error('conexión cortada');
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(failure);
        sent = true;
        controller.enqueue(Uint8Array.of(1));
      },
    });
    await expect(readWhole(stream, 10, tooLarge)).rejects.toBe(failure);
    expect(stream.locked).toBe(false);
  });
});
