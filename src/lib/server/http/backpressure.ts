/**
 * Backpressure from a client's socket to whatever produces the body of a rendered page or an
 * endpoint's answer (the gateway's blocks, an export's rows, the DCAT catalogue's pages).
 *
 * The adapter copies a response's body to the Node response with `write()` in a loop that never
 * waits for `drain` (astro's `writeResponse`): a client that read slowly, or opened the answer and
 * stopped reading, had the server produce the whole body into the socket's buffer. Fifteen stalled
 * downloads of a 190 MB file held 2.9 GB; three hundred of the 1.4 MB Turtle catalogue, 1.7 GB,
 * and their database queries ran to the end for nobody. The body is therefore handed to the
 * adapter paced (`pacedBody`, in the middleware): a chunk is read from the route's stream only once
 * the Node response took the last one, its `write` having returned true or `drain` having come.
 * Each stalled client then costs the socket's buffer and one chunk, and no longer than
 * `STALLED_MS`: a response whose client takes nothing for that long is closed. (A server-wide idle
 * timeout would also cut answers that are slow to begin, a large export being written.)
 *
 * `scripts/start.ts` tracks each response's writes (`trackWrites`), after the compression wrapper,
 * whose `write` answers for its zlib stream too; the middleware finds the outlet of the request it
 * serves through `node-request.ts`. Elsewhere (astro dev, tests) there is none and bodies go as
 * they are.
 */
import type { ServerResponse } from 'node:http';

/** Whether the Node response can take more of a body now, or once it has drained. */
export interface Outlet {
  /** Resolves at once when the last write was taken; else on `drain`, or when the client has gone. */
  ready(): Promise<void>;
}

/** How long a response may wait for its client to take anything more before it is closed. */
export const STALLED_MS = 120_000;

/**
 * Remembers whether `response`'s last `write` asked its writer to wait, and closes the response
 * when its client then takes nothing for `stalledMs`. Call before anything is written.
 */
export function trackWrites(response: ServerResponse, stalledMs = STALLED_MS): Outlet {
  let full = false;
  let stalled: NodeJS.Timeout | undefined;
  const write = response.write as (this: ServerResponse, ...args: unknown[]) => boolean;
  response.write = function (this: ServerResponse, ...args: unknown[]) {
    const taken = write.apply(this, args);
    if (!taken && !full) {
      full = true;
      stalled = setTimeout(() => response.destroy(), stalledMs);
      stalled.unref();
    }
    return taken;
  } as ServerResponse['write'];
  const unstalled = () => {
    full = false;
    clearTimeout(stalled);
  };
  response.on('drain', unstalled);
  response.on('close', unstalled);
  return {
    ready() {
      if (!full || response.destroyed || response.writableEnded) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    },
  };
}

/** `body`, read a chunk at a time and only when `outlet` can take it; cancelling it cancels `body`. */
export function pacedBody(body: ReadableStream<Uint8Array>, outlet: Outlet): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await outlet.ready();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Nothing read ahead: a chunk is pulled only when the adapter asks for one.
    { highWaterMark: 0 },
  );
}
