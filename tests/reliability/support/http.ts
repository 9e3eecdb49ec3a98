/**
 * HTTP as the suite needs it, on node:http rather than fetch: bodies sent piece by piece (and cut
 * short on purpose), a chosen local address per request (127.0.0.0/8 is all loopback, so each
 * simulated visitor can have an address of its own, as the archive's per-IP limits expect), and
 * raw bytes on a socket for what no well-behaved client would send.
 */
import http from 'node:http';
import net from 'node:net';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Milliseconds from sending the request to the end of the answer. */
  ms: number;
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A body sent at once; `Content-Length` is set unless `headers` says otherwise. */
  body?: Buffer | string;
  /** Local address to connect from (any 127.x.y.z on Linux). */
  localAddress?: string;
  agent?: http.Agent | false;
  timeoutMs?: number;
}

/** Keep-alive connections, closed by the client before the server's 5 s idle timeout can race it. */
export function keepAliveAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, timeout: 4000 });
}

/** One request; rejects only on a network failure or timeout, never on an HTTP status. */
export function request(origin: string, path: string, options: HttpOptions = {}): Promise<HttpResult> {
  const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
  const headers: Record<string, string> = { ...options.headers };
  if (body && !Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name))) {
    headers['Content-Length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = http.request(new URL(path, origin), {
      method: options.method ?? 'GET',
      headers,
      localAddress: options.localAddress,
      agent: options.agent ?? false,
      // A path that must reach the server as written (e.g. with `..` or `%2e%2e`).
      path,
    });
    outgoing.setTimeout(options.timeoutMs ?? 120_000, () => outgoing.destroy(new Error(`timeout after ${options.timeoutMs ?? 120_000} ms`)));
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), ms: performance.now() - started }),
      );
    });
    outgoing.end(body);
  });
}

export interface StreamedRequest {
  /** Settles when the answer is complete, or rejects when the connection fails. */
  response: Promise<HttpResult>;
  /** Resolves once the bytes up to the pause (all of them when there is none) are handed to the socket. */
  paused: Promise<void>;
  /** Sends the rest after a pause. */
  resume(): void;
  /** Ends the connection where it stands, the rest unsent. */
  abort(): void;
}

/**
 * A request whose body goes out in `pieces`, stopping after `pauseAfter` of them until `resume()`
 * (or for good, when the connection is aborted or the server dies). `Content-Length` is the full length.
 */
export function streamRequest(
  origin: string,
  path: string,
  options: { method?: string; headers: Record<string, string>; pieces: Buffer[]; pauseAfter?: number; localAddress?: string },
): StreamedRequest {
  const total = options.pieces.reduce((sum, piece) => sum + piece.length, 0);
  const outgoing = http.request(new URL(path, origin), {
    method: options.method ?? 'POST',
    headers: { 'Content-Length': String(total), ...options.headers },
    localAddress: options.localAddress,
    agent: false,
  });
  const started = performance.now();
  const response = new Promise<HttpResult>((resolve, reject) => {
    outgoing.on('error', reject);
    outgoing.on('response', (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
    });
  });
  // Nobody may be listening yet when the connection fails (the server is killed on purpose).
  response.catch(() => {});
  const pauseAfter = options.pauseAfter ?? options.pieces.length;
  let resumeSending: () => void = () => {};
  const resumed = new Promise<void>((resolve) => (resumeSending = resolve));

  const write = (piece: Buffer) => new Promise<void>((resolve) => (outgoing.write(piece) ? resolve() : outgoing.once('drain', () => resolve())));
  const paused = (async () => {
    for (const piece of options.pieces.slice(0, pauseAfter)) {
      if (outgoing.destroyed) return;
      await write(piece);
    }
  })();
  void (async () => {
    await paused;
    if (pauseAfter < options.pieces.length) await resumed;
    for (const piece of options.pieces.slice(pauseAfter)) {
      if (outgoing.destroyed) return;
      await write(piece);
    }
    if (!outgoing.destroyed) outgoing.end();
  })();
  return { response, paused, resume: () => resumeSending(), abort: () => outgoing.destroy(new Error('aborted by the test')) };
}

export interface RawResult {
  /** The status of the first answer, or null when the server closed without one. */
  status: number | null;
  text: string;
}

/**
 * Raw bytes on a fresh connection, for requests node:http refuses to write. With `halfClose`,
 * the client stops sending after `bytes` (a body cut short); the answer is whatever arrives
 * before the server closes or `timeoutMs` passes.
 */
export function rawRequest(
  origin: string,
  bytes: Buffer,
  { localAddress, timeoutMs = 10_000, halfClose = false }: { localAddress?: string; timeoutMs?: number; halfClose?: boolean } = {},
): Promise<RawResult> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port), localAddress });
    const finish = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      socket.destroy();
      resolve({ status: match ? Number(match[1]) : null, text });
    };
    socket.setTimeout(timeoutMs, finish);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer is all we want; keep-alive would otherwise hold the socket open.
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      if (head >= 0) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head));
        if (length && text.length - head - 4 >= Number(length[1])) finish();
        if (/\r\ntransfer-encoding: *chunked/i.test(text.slice(0, head)) && text.endsWith('0\r\n\r\n')) finish();
      }
    });
    socket.on('error', finish);
    socket.on('end', finish);
    socket.on('close', finish);
    socket.write(bytes, () => {
      if (halfClose) socket.end();
    });
  });
}
