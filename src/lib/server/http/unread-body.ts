/**
 * What a client is still sending when the archive has already answered: a refused upload, a body
 * over the limit that the middleware turns away from its Content-Length alone (a 413 before any
 * byte of it is read).
 *
 * Closing a connection whose peer is still sending makes the kernel answer the next bytes with a
 * reset, and a reset may wipe the answer from the client's buffers before it has read it (RFC 9112
 * §9.6): the client saw `EPIPE` or `ECONNRESET` instead of the Spanish 413 that explains the
 * refusal. Two levels keep the answer readable:
 * - `discardRest`: a route that stopped reading a body midway (an upload refused) reads and drops
 *   the rest, so a kept-alive connection goes on to the client's next request;
 * - `lingerBeforeClosing`: when the server closes the connection after an answer (the client asked
 *   for `Connection: close`, or the answer did) while the request's body is still arriving, it
 *   closes in stages, as the RFC describes: its side first, then it reads and drops what still
 *   comes until the client closes too.
 * Both are bounded, in bytes and (the lingering) in time: past them the connection is cut after
 * all, as it was before.
 */
import type http from 'node:http';
import type net from 'node:net';
import type { Readable } from 'node:stream';

/** The most of an unwanted body read and dropped before the connection is cut instead. */
export const DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * How long a closing connection waits for its client to finish sending and close its side: in all,
 * and since the last bytes came (a client that sent everything and keeps its side open).
 */
export const LINGER_LIMITS = { ms: 5_000, idleMs: 1_000, bytes: DRAIN_BYTES };

/** Reads and drops what remains of `body`, up to `DRAIN_BYTES`; past that, destroys it. */
export function discardRest(body: Readable): void {
  if (body.readableEnded || body.destroyed) return;
  let drained = 0;
  body.on('data', (chunk: Uint8Array) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_BYTES) body.destroy();
  });
  body.resume();
}

/** Ends the lingering of a server's connections: those lingering now are cut, later ones close at once. */
export type StopLingering = () => void;

/**
 * Makes `server` close a connection in stages when it ends one whose last request's body had not
 * all arrived when the answer was done: its own side first (the answer goes out with a FIN), then
 * what the client still sends is read and dropped until the client closes, `limits.bytes` have
 * come, nothing came for `limits.idleMs`, or `limits.ms` have passed. Connections whose requests
 * arrived whole close at once, as before. Returns what ends the lingering when the server shuts
 * down: those clients have their answer, and a shutdown need not wait for them.
 *
 * Node's server closes a finished `Connection: close` exchange with `socket.destroySoon()` (and
 * nowhere else), so that is where the connection's end is staged.
 */
export function lingerBeforeClosing(server: http.Server, limits: { ms: number; idleMs: number; bytes: number } = LINGER_LIMITS): StopLingering {
  const lastRequest = new WeakMap<net.Socket, http.IncomingMessage>();
  const lingering = new Set<net.Socket>();
  let stopped = false;
  server.on('request', (request: http.IncomingMessage) => {
    lastRequest.set(request.socket, request);
    // Read whole, it no longer decides anything: let it go with its exchange.
    request.once('end', () => lastRequest.get(request.socket) === request && lastRequest.delete(request.socket));
  });
  server.on('connection', (socket: net.Socket) => {
    const closeAtOnce = socket.destroySoon.bind(socket);
    socket.destroySoon = () => {
      const request = lastRequest.get(socket);
      if (stopped || !request || request.complete || socket.destroyed || socket.readableEnded) return closeAtOnce();
      if (lingering.has(socket)) return;
      lingering.add(socket);
      // The exchange is over: what still comes is no longer HTTP for this server, only bytes to
      // drop, so the parser stops hearing it (a body nobody reads cannot stall the socket, and
      // a request sent after this one is not served on a closing connection).
      socket.removeAllListeners('data');
      const cut = () => socket.destroy();
      const giveUp = setTimeout(cut, limits.ms);
      const quiet = setTimeout(cut, limits.idleMs);
      giveUp.unref();
      quiet.unref();
      let read = 0;
      socket.on('data', (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read > limits.bytes) cut();
        else quiet.refresh();
      });
      socket.once('close', () => {
        lingering.delete(socket);
        clearTimeout(giveUp);
        clearTimeout(quiet);
      });
      // The client closed its side too: nothing more can come. (Node's own listener hears the end
      // first and, its parser left mid-body, reports a 'clientError'; the server's listener in
      // scripts/start.ts finds this socket no longer writable, answers nothing and destroys it, so
      // it is only another way to the same end.)
      socket.once('end', cut);
      socket.end();
      socket.resume();
    };
  });
  return () => {
    stopped = true;
    for (const socket of lingering) socket.destroy();
  };
}
