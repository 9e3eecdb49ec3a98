/**
 * Bodies go out only as fast as the client reads them (`http/backpressure.ts`), through the
 * adapter's own `writeResponse` (which never waits for `drain`) and the compression wrapper, as
 * `scripts/start.ts` chains them: a client that stops reading holds the socket's buffers and a
 * chunk, not the whole body; one that reads gets every byte.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { writeResponse } from 'astro/app/node';
import { afterEach, describe, expect, it } from 'vitest';
import { pacedBody, trackWrites } from '../../src/lib/server/http/backpressure.ts';
import { compressWhenAccepted } from '../../src/lib/server/http/compression.ts';

const CHUNK = 64 * 1024;
const TOTAL = 48 * 1024 * 1024;

interface Source {
  body: ReadableStream<Uint8Array>;
  produced: () => number;
  cancelled: () => boolean;
}

/** `TOTAL` bytes of text that compresses poorly, a chunk at a time, counting what was asked of it. */
function source(): Source {
  let produced = 0;
  let cancelled = false;
  let counter = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (produced >= TOTAL) return controller.close();
        // Hex of a hash chain: each chunk differs, and neither gzip nor the loopback shrink it much.
        const text = Buffer.alloc(CHUNK);
        for (let offset = 0; offset < CHUNK; offset += 64) text.write(createHash('sha256').update(String(counter++)).digest('hex'), offset, 'latin1');
        produced += CHUNK;
        controller.enqueue(text);
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, produced: () => produced, cancelled: () => cancelled };
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering each request with a fresh `source()` as start.ts and the middleware would (`paced`), or unpaced. */
async function serve(paced: boolean, stalledMs?: number): Promise<{ port: number; sources: Source[] }> {
  const sources: Source[] = [];
  server = http.createServer((request, response) => {
    compressWhenAccepted(request, response);
    const outlet = trackWrites(response, stalledMs);
    const made = source();
    sources.push(made);
    const body = paced ? pacedBody(made.body, outlet) : made.body;
    void writeResponse(new Response(body, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } }), response);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as AddressInfo).port, sources };
}

/** Opens the answer to `GET /` and stops reading after its first bytes; resolves when the server has stopped producing. */
async function stallOn(port: number, sourceOf: () => Source | undefined, headers = ''): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.pause();
  // Until what it produced stops growing for half a second (at most ten seconds).
  let last = -1;
  for (let waited = 0; waited < 10_000; waited += 250) {
    await sleep(250);
    const now = sourceOf()?.produced() ?? 0;
    if (now === last && waited >= 500) break;
    last = now;
  }
  return socket;
}

describe('a body paced to its reader', () => {
  it('is produced no further than the socket can hold when the client stops reading, plain or compressed', async () => {
    const { port, sources } = await serve(true);
    for (const headers of ['', 'Accept-Encoding: gzip\r\n']) {
      const index = sources.length;
      const socket = await stallOn(port, () => sources[index], headers);
      const made = sources[index]!;
      // The loopback's buffers hold a few megabytes; the rest of the 48 MB is never made.
      expect(made.produced(), headers || 'identity').toBeLessThan(16 * 1024 * 1024);
      socket.destroy();
      // The client gone, the route's stream is cancelled: nothing more is read from it.
      await expect.poll(() => made.cancelled(), { timeout: 5_000 }).toBe(true);
    }
  });

  it('is closed when its client takes nothing more for a while, and the route stops producing', async () => {
    const { port, sources } = await serve(true, 500);
    const socket = await stallOn(port, () => sources[0]);
    // The client reads nothing more: half a second on, the server ends the response, and with it the
    // route's stream (the client's socket, paused, does not see it until it reads again).
    await expect.poll(() => sources[0]!.cancelled(), { timeout: 5_000 }).toBe(true);
    socket.destroy();
  });

  it('reaches a client that reads every byte, in order', async () => {
    const { port } = await serve(true);
    const expected = source();
    const want = createHash('sha256');
    for await (const chunk of expected.body as unknown as AsyncIterable<Uint8Array>) want.update(chunk);
    const got = createHash('sha256');
    let length = 0;
    await new Promise<void>((resolve, reject) => {
      http.get({ port, host: '127.0.0.1', path: '/', headers: { 'Accept-Encoding': 'gzip' } }, (response) => {
        expect(response.headers['content-encoding']).toBe('gzip');
        const body = response.pipe(zlib.createGunzip());
        body.on('data', (chunk: Buffer) => {
          length += chunk.length;
          got.update(chunk);
        });
        body.on('end', () => resolve());
        body.on('error', reject);
      });
    });
    expect(length).toBe(TOTAL);
    expect(got.digest('hex')).toBe(want.digest('hex'));
  });

  it('is what the adapter alone does not do: unpaced, a stalled client has the whole body made for it', async () => {
    const { port, sources } = await serve(false);
    const socket = await stallOn(port, () => sources[0]);
    expect(sources[0]!.produced()).toBe(TOTAL);
    socket.destroy();
  });
});
