/**
 * The capture fetch against a real HTTP server on 127.0.0.1 that misbehaves on request: every
 * hostile case the issue names fails its own fetch with its own reason, and the private-address
 * check holds on the first hop and on every redirect. Names like `public.test` resolve through
 * the fetch's `resolver` option; the address check is told to treat that one name as public, so a
 * redirect from it to 127.0.0.1 (the same server) is refused by the check alone.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CaptureError,
  captureFetch,
  isPublicAddress,
  type CaptureFetchOptions,
  type CaptureResponse,
  type HostResolver,
} from '../../src/lib/server/capture/index.ts';

/** Deterministic bytes of every value, so a byte lost, added or reordered shows. */
const FILE = Buffer.from(Array.from({ length: 300_000 }, (_, index) => (index * 7 + (index >> 8)) & 0xff));
const ETAG = '"v1"';
const LAST_MODIFIED = 'Tue, 03 Nov 2026 10:00:00 GMT';
/** 50 MB of zeros, compressed to about 50 KB: what would flood a client that inflates. */
const GZIP_BOMB = gzipSync(Buffer.alloc(50_000_000));

let server: Server;
let port: number;
let connections = 0;
/** Requests each socket has served, for `/reset-on-reuse`. */
const servedOn = new WeakMap<object, number>();
/** Requests `/reset-on-reuse` answered by cutting a reused connection. */
let resets = 0;
/** Paths the server was asked for, in order. */
let seen: Array<{ path: string; headers: IncomingMessage['headers'] }> = [];

/** Streams `total` bytes of filler, honouring backpressure, stopping when the client goes away. */
function stream(response: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  const pump = () => {
    while (sent < total && !response.destroyed) {
      sent += chunk.length;
      if (!response.write(chunk)) return void response.once('drain', pump);
    }
    response.end();
  };
  pump();
}

/** Writes one byte every `everyMs` for at most `count` bytes, stopping when the client goes away. */
function drip(response: ServerResponse, everyMs: number, count: number): void {
  response.writeHead(200, { 'Content-Type': 'text/csv' });
  response.flushHeaders();
  let sent = 0;
  const timer = setInterval(() => {
    if (response.destroyed || sent >= count) {
      clearInterval(timer);
      response.end();
      return;
    }
    response.write('x');
    sent++;
  }, everyMs);
  response.on('close', () => clearInterval(timer));
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://local');
  seen.push({ path: url.pathname, headers: request.headers });
  const served = servedOn.get(request.socket) ?? 0;
  servedOn.set(request.socket, served + 1);
  switch (url.pathname) {
    case '/reset-on-reuse':
      // As a server whose keep-alive ran out just as the request came: a reused connection is cut.
      if (served > 0) {
        resets++;
        request.socket.resetAndDestroy();
        return;
      }
      response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': FILE.length });
      response.end(FILE);
      return;
    case '/ok':
      if (request.headers['if-none-match'] === ETAG) {
        response.writeHead(304, { ETag: ETAG });
        response.end();
        return;
      }
      response.writeHead(200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Length': FILE.length,
        ETag: ETAG,
        'Last-Modified': LAST_MODIFIED,
      });
      response.end(FILE);
      return;
    case '/redirect':
      response.writeHead(302, { Location: url.searchParams.get('to') ?? '/ok' });
      response.end();
      return;
    case '/loop/a':
      response.writeHead(301, { Location: '/loop/b' });
      response.end();
      return;
    case '/loop/b':
      response.writeHead(307, { Location: 'http://' + request.headers.host + '/loop/a' });
      response.end();
      return;
    case '/chain': {
      const step = Number(url.searchParams.get('n') ?? 0);
      response.writeHead(302, { Location: `/chain?n=${step + 1}` });
      response.end();
      return;
    }
    case '/drip':
      drip(response, Number(url.searchParams.get('every') ?? 300), 100);
      return;
    case '/no-headers':
      return; // never answers; the server's close destroys the socket
    case '/endless':
      response.writeHead(200, { 'Content-Type': 'text/csv' }); // chunked, no length
      stream(response, 64_000_000);
      return;
    case '/declares-large':
      response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': 10_000_000 });
      response.write('0123456789');
      setTimeout(() => request.socket.destroy(), 20);
      return;
    case '/lying-length':
      // Declares 10 bytes and sends 10 MB behind them on the raw socket.
      request.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nContent-Length: 10\r\n\r\n');
      request.socket.end(Buffer.alloc(10_000_000, 0x62));
      return;
    case '/gzip-bomb':
      response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip', 'Content-Length': GZIP_BOMB.length });
      response.end(GZIP_BOMB);
      return;
    default:
      response.writeHead(404);
      response.end();
  }
}

beforeAll(async () => {
  server = createServer(handle);
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  seen = [];
});

const local = (path: string) => `http://127.0.0.1:${port}${path}`;
/** Limits short enough that a test never waits long, and loose enough for a busy machine. */
const QUICK: CaptureFetchOptions = { connectTimeoutMs: 2_000, headersTimeoutMs: 2_000, idleTimeoutMs: 1_000, totalTimeoutMs: 10_000 };
const LOCAL: CaptureFetchOptions = { ...QUICK, allowPrivate: true };
/** For the servers that go silent: the limits they must trip, well inside their own delays (300 ms). */
const IMPATIENT: CaptureFetchOptions = { ...LOCAL, headersTimeoutMs: 300, idleTimeoutMs: 150 };

async function readAll(response: CaptureResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The CaptureError `work` fails with (fetch or body), or a test failure if it succeeds. */
async function failure(work: Promise<unknown>): Promise<CaptureError> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(CaptureError);
    return error as CaptureError;
  }
  throw new Error('expected a CaptureError, and the fetch succeeded');
}

const fetchAll = async (url: string, options: CaptureFetchOptions) => readAll(await captureFetch(url, options));

describe('a good server', () => {
  it('answers the response facts and exactly the bytes, streamed', async () => {
    const response = await captureFetch(local('/ok'), LOCAL);
    expect(response).toMatchObject({
      requestedUrl: local('/ok'),
      finalUrl: local('/ok'),
      redirects: [],
      address: '127.0.0.1',
      status: 200,
      contentType: 'text/csv; charset=utf-8',
      contentLength: FILE.length,
      contentEncoding: null,
      etag: ETAG,
      lastModified: LAST_MODIFIED,
    });
    expect(response.startedAt).toBeInstanceOf(Date);
    expect(response.headersAfterMs).toBeGreaterThanOrEqual(0);
    const body = await readAll(response);
    expect(body.equals(FILE)).toBe(true);
    expect(response.body.bytesReceived).toBe(FILE.length);
    const [request] = seen;
    expect(request?.headers['user-agent']).toMatch(/^ArchivoAbierto\//);
    expect(request?.headers['accept-encoding']).toBe('identity');
  });

  it('follows a redirect and reports the chain and the final URL', async () => {
    const response = await captureFetch(local('/redirect?to=/ok'), LOCAL);
    expect(response.finalUrl).toBe(local('/ok'));
    expect(response.redirects).toEqual([{ url: local('/redirect?to=/ok'), status: 302, location: local('/ok') }]);
    expect((await readAll(response)).equals(FILE)).toBe(true);
  });

  it('asks conditionally and answers a 304 with an empty body', async () => {
    const since = new Date(LAST_MODIFIED);
    const response = await captureFetch(local('/ok'), { ...LOCAL, ifNoneMatch: ETAG, ifModifiedSince: since });
    expect(response.status).toBe(304);
    expect(response.etag).toBe(ETAG);
    expect((await readAll(response)).length).toBe(0);
    expect(seen[0]?.headers['if-none-match']).toBe(ETAG);
    expect(seen[0]?.headers['if-modified-since']).toBe(LAST_MODIFIED);
  });

  it('does not count a slow reader as a silent server', async () => {
    const response = await captureFetch(local('/ok'), { ...LOCAL, idleTimeoutMs: 250 });
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) {
      if (chunks.length === 0) await new Promise((resolve) => setTimeout(resolve, 750));
      chunks.push(chunk as Buffer);
    }
    expect(Buffer.concat(chunks).equals(FILE)).toBe(true);
  });

  it('reuses a kept-alive connection for the next capture from the same address', async () => {
    await fetchAll(local('/ok'), LOCAL);
    const before = connections;
    await fetchAll(local('/ok'), LOCAL);
    expect(connections).toBe(before);
  });

  it('sends a request again on a new connection when the kept-alive one turns out closed', async () => {
    await fetchAll(local('/ok'), LOCAL);
    const [before, resetsBefore] = [connections, resets];
    // The socket kept from /ok is cut as the request goes out on it: one new connection serves it.
    expect((await fetchAll(local('/reset-on-reuse'), LOCAL)).equals(FILE)).toBe(true);
    expect(resets - resetsBefore).toBe(1);
    expect(connections - before).toBe(1);
  });

  it('reuses a kept-alive socket only for the address the new check approved', async () => {
    let address = '127.0.0.1';
    const resolver: HostResolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const url = `http://moving.test:${port}/ok`;
    expect((await fetchAll(url, { ...LOCAL, resolver })).equals(FILE)).toBe(true);
    // The name now points where nothing listens: the socket kept open to 127.0.0.1 must not serve it.
    address = '::1';
    expect((await failure(captureFetch(url, { ...LOCAL, resolver }))).reason).toBe('connect_failed');
  });

  it('says in Spanish why a connection failed, with the code Node gave', async () => {
    // A port nothing listens on: taken, then given back.
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const refused = await failure(captureFetch(`http://127.0.0.1:${closed}/archivo.csv`, LOCAL));
    expect(refused.reason).toBe('connect_failed');
    expect(refused.message).toBe(`no se pudo conectar con el servidor: 127.0.0.1:${closed}: rechazó la conexión (ECONNREFUSED)`);
  });

  it('connects to the address it checked, without resolving the name again', async () => {
    let lookups = 0;
    // `pinned.test` means nothing to the system resolver: only the checked address can be reached.
    const resolver: HostResolver = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const body = await fetchAll(`http://pinned.test:${port}/ok`, { ...LOCAL, resolver });
    expect(body.equals(FILE)).toBe(true);
    expect(lookups).toBe(1);
    expect(seen[0]?.headers.host).toBe(`pinned.test:${port}`);
  });
});

describe('private addresses', () => {
  it.each([
    ['loopback', () => local('/ok')],
    ['IPv6 loopback', () => `http://[::1]:${port}/ok`],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port}/ok`],
    ['a private network', () => 'http://10.0.0.1/ok'],
    ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a name for loopback', () => `http://localhost:${port}/ok`],
  ])('refuses %s by default, before any connection', async (_case, url) => {
    const before = connections;
    const error = await failure(captureFetch(url(), QUICK));
    expect(error.reason).toBe('private_address');
    expect(error.message).toMatch(/^dirección privada o reservada: /);
    expect(connections).toBe(before);
    expect(seen).toEqual([]);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const resolver: HostResolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const error = await failure(captureFetch('http://mixed.test/ok', { ...QUICK, resolver }));
    expect(error.reason).toBe('private_address');
    expect(error.message).toContain('mixed.test → 10.0.0.7 (red privada)');
  });

  it('refuses only http and https', async () => {
    expect((await failure(captureFetch('file:///etc/passwd', LOCAL))).reason).toBe('unsupported_scheme');
    expect((await failure(captureFetch('ftp://127.0.0.1/x', LOCAL))).reason).toBe('unsupported_scheme');
    expect((await failure(captureFetch('not a url', LOCAL))).reason).toBe('invalid_url');
  });

  describe('on a redirect hop', () => {
    // `public.test` is this server, treated as public; any other name or address is judged for real.
    const names: Record<string, string> = { 'public.test': '127.0.0.1', 'internal.test': '10.0.0.1' };
    const resolver: HostResolver = async (hostname) => [{ address: names[hostname] ?? '192.0.2.1', family: 4 }];
    const options: CaptureFetchOptions = {
      ...QUICK,
      resolver,
      isAllowedAddress: (address, hostname) => hostname === 'public.test' || isPublicAddress(address),
    };
    const from = (to: string) => `http://public.test:${port}/redirect?to=${encodeURIComponent(to)}`;

    it('follows a redirect between allowed hosts (the seam works)', async () => {
      const body = await fetchAll(from(`http://public.test:${port}/ok`), options);
      expect(body.equals(FILE)).toBe(true);
    });

    it.each([
      ['a loopback address', () => local('/ok')],
      ['a name resolving to a private address', () => 'http://internal.test/ok'],
      ['IPv6 loopback', () => `http://[::1]:${port}/ok`],
      ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
    ])('refuses %s', async (_case, to) => {
      const error = await failure(captureFetch(from(to()), options));
      expect(error.reason).toBe('private_address');
      expect(error.url).toBe(new URL(to()).href);
      expect(seen.map(({ path }) => path)).toEqual(['/redirect']);
    });

    it("refuses the archive's own address, asked or reached by a redirect, before connecting to it", async () => {
      const own = { ...options, ownHosts: [`public.test:${port}`] };
      const asked = await failure(captureFetch(`http://PUBLIC.test.:${port}/ok`, own));
      expect([asked.reason, asked.message]).toEqual(['own_address', `la dirección es la del propio archivo, que no se cosecha a sí mismo: public.test.:${port}`]);
      expect(seen).toEqual([]);
      // Another site of the same server (its own port) redirects to the archive.
      const elsewhere = { ...options, ownHosts: ['public.test'] };
      const redirected = await failure(captureFetch(from(`http://public.test/catalog.jsonld`), elsewhere));
      expect([redirected.reason, redirected.url]).toEqual(['own_address', 'http://public.test/catalog.jsonld']);
      expect(seen.map(({ path }) => path)).toEqual(['/redirect']);
    });
  });
});

describe('a hostile server fails only its own fetch', () => {
  it('slow drip: the idle timeout', async () => {
    const response = await captureFetch(local('/drip?every=300'), IMPATIENT);
    const error = await failure(readAll(response));
    expect(error.reason).toBe('body_idle_timeout');
    expect(error.message).toMatch(/^el servidor dejó de enviar datos/);
    // Headers and then silence count too: the first byte was due 300 ms in, the limit is 150 ms.
    expect(response.body.bytesReceived).toBe(0);
  });

  it('a drip fast enough for the idle timeout: the total timeout', async () => {
    const response = await captureFetch(local('/drip?every=30'), { ...LOCAL, idleTimeoutMs: 1_000, totalTimeoutMs: 400 });
    expect((await failure(readAll(response))).reason).toBe('total_timeout');
  });

  it('headers never sent: the headers timeout', async () => {
    const started = Date.now();
    const error = await failure(captureFetch(local('/no-headers'), IMPATIENT));
    expect(error.reason).toBe('headers_timeout');
    expect(error.message).toBe('tiempo agotado esperando cabeceras: 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a name that never resolves: the connect timeout', async () => {
    const resolver: HostResolver = () => new Promise(() => {});
    const error = await failure(captureFetch('http://silent.test/ok', { ...LOCAL, resolver, connectTimeoutMs: 200 }));
    expect(error.reason).toBe('connect_timeout');
  });

  it('endless body: the size limit, counted as it streams', async () => {
    const response = await captureFetch(local('/endless'), { ...LOCAL, maxBytes: 1_000_000 });
    expect(response.contentLength).toBeNull();
    const error = await failure(readAll(response));
    expect(error.reason).toBe('too_large');
    expect(response.body.bytesReceived).toBeLessThan(1_000_000 + 128 * 1024);
  });

  it('a declared length over the limit: refused before the body', async () => {
    const error = await failure(captureFetch(local('/declares-large'), { ...LOCAL, maxBytes: 1_000_000 }));
    expect(error.reason).toBe('too_large');
    expect(error.message).toContain('declara 10000000 bytes');
  });

  it('a connection cut before the declared length: incomplete, never a short file', async () => {
    const response = await captureFetch(local('/declares-large'), LOCAL);
    expect((await failure(readAll(response))).reason).toBe('body_incomplete');
  });

  it('a body that fails before anyone reads it: the reader still sees why, and the process lives on', async () => {
    const response = await captureFetch(local('/declares-large'), LOCAL);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(response.body.errored).toBeInstanceOf(CaptureError);
    expect((await failure(pipeline(response.body, new Writable({ write: (_chunk, _encoding, done) => done() })))).reason).toBe(
      'body_incomplete',
    );
  });

  it('a Content-Length that lies small: only the declared bytes are the body', async () => {
    const body = await fetchAll(local('/lying-length'), { ...LOCAL, maxBytes: 1_000_000 });
    expect(body.toString()).toBe('bbbbbbbbbb');
  });

  it('gzip sent anyway: the bytes kept as sent, never inflated', async () => {
    const response = await captureFetch(local('/gzip-bomb'), { ...LOCAL, maxBytes: 1_000_000 });
    expect(response.contentEncoding).toBe('gzip');
    expect((await readAll(response)).equals(GZIP_BOMB)).toBe(true);
  });

  it('redirect loop: refused as a loop', async () => {
    const error = await failure(captureFetch(local('/loop/a'), LOCAL));
    expect(error.reason).toBe('redirect_loop');
    expect(seen.map(({ path }) => path)).toEqual(['/loop/a', '/loop/b']);
  });

  it('endless redirects: the redirect limit', async () => {
    const error = await failure(captureFetch(local('/chain?n=0'), { ...LOCAL, maxRedirects: 3 }));
    expect(error.reason).toBe('too_many_redirects');
    expect(error.message).toBe('demasiadas redirecciones: más de 3');
    expect(seen).toHaveLength(4);
  });

  it('a cancelled capture stops at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(captureFetch(local('/no-headers'), { ...LOCAL, headersTimeoutMs: 5_000, signal: controller.signal }));
    expect(error.reason).toBe('aborted');
  });

  it('hostile servers running beside a good one leave it untouched', async () => {
    const hostile = [
      captureFetch(local('/endless'), { ...LOCAL, maxBytes: 500_000 }).then(readAll),
      captureFetch(local('/drip?every=300'), IMPATIENT).then(readAll),
      captureFetch(local('/no-headers'), IMPATIENT),
      captureFetch(local('/loop/a'), LOCAL),
    ];
    const settled = Promise.allSettled(hostile);
    const good = await fetchAll(local('/ok'), LOCAL);
    expect(good.equals(FILE)).toBe(true);
    const reasons = (await settled).map((result) =>
      result.status === 'rejected' ? (result.reason as CaptureError).reason : 'succeeded',
    );
    expect(reasons).toEqual(['too_large', 'body_idle_timeout', 'headers_timeout', 'redirect_loop']);
  });
});
