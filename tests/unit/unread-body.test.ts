/**
 * A connection the server closes while the client is still sending its body (a 413 answered from
 * the Content-Length alone, with `Connection: close`) is closed in stages (`http/unread-body.ts`):
 * the client reads the answer and may finish sending without being reset, within bounds in bytes
 * and time. The client here is a raw socket that keeps its side open after the server's FIN, so
 * each case is decided by what the server does, not by timing.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lingerBeforeClosing } from '../../src/lib/server/http/unread-body.ts';

const BODY_BYTES = 4 * 1024 * 1024;
const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Refusing {
  port: number;
  /** Resolves when the server's side of its first connection is gone, with the bytes it had read. */
  serverClosed: Promise<number>;
  stopLingering: () => void;
}

/** A server that refuses every request at once, reading none of its body. */
async function refusingServer(limits?: { ms: number; idleMs: number; bytes: number }): Promise<Refusing> {
  const server = http.createServer((_request, response) => {
    response.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
    response.end('{"message":"El cuerpo de la petición es demasiado grande."}');
  });
  const stopLingering = limits ? lingerBeforeClosing(server, limits) : () => {};
  servers.push(server);
  const serverClosed = new Promise<number>((resolve) => server.once('connection', (socket: net.Socket) => socket.once('close', () => resolve(socket.bytesRead))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, serverClosed, stopLingering };
}

interface Exchange {
  socket: net.Socket;
  /** Everything the server sent, once it closed its side. */
  answer: Promise<string>;
  /** Settles when the connection is gone: with the socket's error, if it had one. */
  closed: Promise<Error | undefined>;
}

/** Sends a POST's head and the first 64 KiB of a `BODY_BYTES` body; the rest is the caller's. */
function startPost({ port }: Refusing, contentLength = BODY_BYTES): Exchange {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let error: Error | undefined;
  socket.on('error', (cause) => (error = cause));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<string>((resolve) => socket.once('end', () => resolve(Buffer.concat(chunks).toString('utf8'))));
  const closed = new Promise<Error | undefined>((resolve) => socket.once('close', () => resolve(error)));
  socket.write(`POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`);
  socket.write(Buffer.alloc(64 * 1024, 'x'));
  return { socket, answer, closed };
}

/** Writes `bytes` more of the body, waiting for the socket to take each piece. */
async function sendMore(socket: net.Socket, bytes: number): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, 'x');
  for (let sent = 0; sent < bytes && !socket.destroyed; sent += piece.length) {
    if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
  }
}

describe('closing a connection whose body is still arriving', () => {
  it('without lingering, the rest of the body meets a reset (what the client saw instead of the 413)', async () => {
    const exchange = startPost(await refusingServer());
    expect(await exchange.answer).toContain('413');
    await sendMore(exchange.socket, BODY_BYTES - 64 * 1024);
    exchange.socket.end();
    expect((await exchange.closed) as NodeJS.ErrnoException | undefined).toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
  });

  it('lingering, the client reads the 413, sends the rest of its body and closes cleanly', async () => {
    const exchange = startPost(await refusingServer({ ms: 30_000, idleMs: 30_000, bytes: 64 * 1024 * 1024 }));
    const answer = await exchange.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('El cuerpo de la petición es demasiado grande.');
    await sendMore(exchange.socket, BODY_BYTES - 64 * 1024);
    exchange.socket.end();
    expect(await exchange.closed).toBeUndefined();
  });

  it('stops reading after its byte limit: the connection is cut', async () => {
    // A minute of lingering allowed: only the byte limit can end this connection within the test's time.
    const server = await refusingServer({ ms: 60_000, idleMs: 60_000, bytes: 256 * 1024 });
    const exchange = startPost(server, 64 * 1024 * 1024);
    await exchange.answer;
    const [, read] = await Promise.all([sendMore(exchange.socket, 8 * 1024 * 1024), server.serverClosed]);
    // It did linger (read past the head and first piece), and stopped soon after the limit.
    expect(read).toBeGreaterThan(64 * 1024 + 256 * 1024);
    expect(read).toBeLessThan(8 * 1024 * 1024);
    expect(await exchange.closed).toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
  });

  it('stops waiting after its time limit, for a client that keeps sending a little', async () => {
    const server = await refusingServer({ ms: 500, idleMs: 60_000, bytes: 64 * 1024 * 1024 });
    const exchange = startPost(server);
    await exchange.answer;
    // A byte every 50 ms: never quiet, never near the byte limit; the total time ends it.
    const started = performance.now();
    const drip = setInterval(() => exchange.socket.write('x'), 50);
    await server.serverClosed;
    clearInterval(drip);
    expect(performance.now() - started).toBeGreaterThan(400);
    exchange.socket.destroy();
  });

  it('lets go of a client that has gone quiet without closing', async () => {
    // A minute in all: only the quiet limit can end this connection within the test's time.
    const server = await refusingServer({ ms: 60_000, idleMs: 300, bytes: 64 * 1024 * 1024 });
    const exchange = startPost(server);
    await exchange.answer;
    const started = performance.now();
    await server.serverClosed;
    expect(performance.now() - started).toBeGreaterThan(250);
    expect(exchange.socket.destroyed).toBe(false);
    exchange.socket.destroy();
  });

  it('ends at once when the server shuts down: those clients have their answer', async () => {
    const server = await refusingServer({ ms: 60_000, idleMs: 60_000, bytes: 64 * 1024 * 1024 });
    const exchange = startPost(server);
    await exchange.answer;
    // Still lingering a moment later (a minute allowed); then the shutdown cuts it.
    let closed = false;
    void server.serverClosed.then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    server.stopLingering();
    await server.serverClosed;
    exchange.socket.destroy();
  });

  it('a request that arrived whole before its answer was done is closed at once', async () => {
    // The handler answers only once the whole body is in; a minute of lingering would outlast the test.
    const server = http.createServer((request, response) => {
      request.resume();
      request.once('end', () => {
        response.writeHead(400, { Connection: 'close' });
        response.end('{}');
      });
    });
    lingerBeforeClosing(server, { ms: 60_000, idleMs: 60_000, bytes: 64 * 1024 * 1024 });
    servers.push(server);
    const serverClosed = new Promise<void>((resolve) => server.once('connection', (socket: net.Socket) => socket.once('close', () => resolve())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = net.connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => {});
    socket.write('POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    await serverClosed;
    socket.destroy();
  });
});
