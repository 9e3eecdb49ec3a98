/**
 * Compression of the server's responses (src/lib/server/http/compression.ts): the decision, and the
 * wrapped Node response on a real server on 127.0.0.1, written to the way the adapter writes
 * rendered pages (writeHead, then chunks) and static files (setHeader, then a piped stream).
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { compressWhenAccepted, compressionFor, isCompressibleType, negotiateEncoding } from '../../src/lib/server/http/compression.ts';

describe('the decision', () => {
  test('negotiates brotli over gzip, honours q-values and the wildcard', () => {
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding('gzip, deflate')).toBe('gzip');
    expect(negotiateEncoding('br;q=0.5, gzip;q=1.0')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(negotiateEncoding('identity')).toBeNull();
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('*;q=0.1, br;q=0')).toBe('gzip');
    expect(negotiateEncoding(undefined)).toBeNull();
  });

  test('compresses text types only', () => {
    for (const type of ['text/html; charset=utf-8', 'text/css', 'text/javascript', 'application/json', 'application/ld+json', 'text/turtle', 'text/csv; charset=utf-8', 'application/atom+xml', 'application/xml', 'application/n-triples', 'image/svg+xml']) {
      expect(isCompressibleType(type), type).toBe(true);
    }
    for (const type of ['image/png', 'image/webp', 'application/zip', 'application/pdf', 'application/octet-stream', 'application/vnd.ipld.car', 'text/event-stream', undefined]) {
      expect(isCompressibleType(type), String(type)).toBe(false);
    }
  });

  const facts = (change: Partial<Parameters<typeof compressionFor>[0]> = {}) => ({
    url: '/dashboard',
    requestHeaders: { 'accept-encoding': 'gzip, br' },
    status: 200,
    responseHeaders: { 'content-type': 'text/html' },
    ...change,
  });

  test('never for ranges, /ipfs/, bodiless statuses, encoded, no-transform or small bodies', () => {
    expect(compressionFor(facts())).toEqual({ vary: true, encoding: 'br' });
    expect(compressionFor(facts({ requestHeaders: {} }))).toEqual({ vary: true, encoding: null });
    expect(compressionFor(facts({ status: 206 })).encoding).toBeNull();
    expect(compressionFor(facts({ status: 304 })).encoding).toBeNull();
    expect(compressionFor(facts({ requestHeaders: { 'accept-encoding': 'br', range: 'bytes=0-9' } })).encoding).toBeNull();
    expect(compressionFor(facts({ url: '/ipfs/bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4' })).encoding).toBeNull();
    expect(compressionFor(facts({ responseHeaders: { 'content-type': 'text/html', 'content-encoding': 'gzip' } })).encoding).toBeNull();
    expect(compressionFor(facts({ responseHeaders: { 'content-type': 'text/csv', 'cache-control': 'public, no-transform' } })).encoding).toBeNull();
    expect(compressionFor(facts({ responseHeaders: { 'content-type': 'application/json', 'content-length': '300' } })).encoding).toBeNull();
    expect(compressionFor(facts({ responseHeaders: { 'content-type': 'application/json', 'content-length': '3000' } })).encoding).toBe('br');
    expect(compressionFor(facts({ status: 404 })).encoding).toBe('br');
  });
});

describe('a server that compresses', () => {
  const page = `<!doctype html><html lang="es"><body>${'<p>Registro público del archivo, con su CID y su historia.</p>'.repeat(400)}</body></html>`;
  const csvRow = (index: number) => `${index};Santo Domingo;Licencia de construcción ${index * 7919};${(index * 104729) % 99991}\n`;
  let release = () => {};
  let server: http.Server;
  let base = '';

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      compressWhenAccepted(request, response);
      const path = request.url ?? '/';
      if (path === '/page') {
        // As the adapter writes a rendered page.
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"page-1"' });
        for (let start = 0; start < page.length; start += 4000) response.write(Buffer.from(page.slice(start, start + 4000)));
        response.end();
      } else if (path === '/static.css') {
        // As a static file is sent: headers set one by one, then the file piped.
        response.setHeader('Content-Type', 'text/css');
        response.setHeader('Content-Length', String(Buffer.byteLength(page)));
        response.setHeader('ETag', 'W/"static"');
        Readable.from([Buffer.from(page)]).pipe(response);
      } else if (path === '/image.png') {
        response.writeHead(200, { 'content-type': 'image/png' });
        response.end(Buffer.from(page));
      } else if (path.startsWith('/ipfs/')) {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(page);
      } else if (path === '/range') {
        response.writeHead(206, { 'content-type': 'text/plain', 'content-range': `bytes 0-1999/${page.length}` });
        response.end(page.slice(0, 2000));
      } else if (path === '/small') {
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      } else if (path === '/export.csv') {
        // A large export that is still being written: its start must reach the client already.
        response.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
        const first: string[] = [];
        for (let index = 0; index < 40_000; index++) first.push(csvRow(index));
        response.write(first.join(''));
        new Promise<void>((resolve) => (release = resolve)).then(() => response.end(csvRow(40_000)), () => {});
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function get(path: string, headers: http.OutgoingHttpHeaders, method = 'GET') {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const request = http.request(`${base}${path}`, { method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      request.on('error', reject);
      request.end();
    });
  }

  test('a rendered page goes out as brotli or gzip as negotiated, with Vary and a weak ETag', async () => {
    const br = await get('/page', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers.etag).toBe('W/"page-1"');
    expect(br.headers['content-length']).toBeUndefined();
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(page);
    expect(br.body.length).toBeLessThan(Buffer.byteLength(page) / 10);

    const gzip = await get('/page', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.body).toString()).toBe(page);

    const plain = await get('/page', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers.etag).toBe('"page-1"');
    expect(plain.body.toString()).toBe(page);
  });

  test('a piped static file is compressed, its length dropped; HEAD gets the same headers and no body', async () => {
    const css = await get('/static.css', { 'accept-encoding': 'br' });
    expect(css.headers['content-encoding']).toBe('br');
    expect(css.headers['content-length']).toBeUndefined();
    expect(css.headers.etag).toBe('W/"static"');
    expect(zlib.brotliDecompressSync(css.body).toString()).toBe(page);

    const head = await get('/static.css', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body.length).toBe(0);
  });

  test('images, /ipfs/, 206 answers and tiny bodies go out as they are', async () => {
    for (const path of ['/image.png', '/ipfs/bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4', '/range']) {
      const answer = await get(path, { 'accept-encoding': 'gzip, br' });
      expect(answer.headers['content-encoding'], path).toBeUndefined();
    }
    expect((await get('/range', { 'accept-encoding': 'br' })).body.toString()).toBe(page.slice(0, 2000));
    const small = await get('/small', { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['content-length']).toBe('11');
    expect(small.body.toString()).toBe('{"ok":true}');
  });

  test('a large export streams: compressed bytes arrive before its end is written', async () => {
    const received = await new Promise<{ early: number; body: Buffer }>((resolve, reject) => {
      const request = http.request(`${base}/export.csv`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        expect(response.headers['content-encoding']).toBe('gzip');
        const chunks: Buffer[] = [];
        let early = 0;
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (early === 0) {
            early = chunk.length;
            // Only now may the server finish: what came so far was sent while the export was open.
            release();
          }
        });
        response.on('end', () => resolve({ early, body: Buffer.concat(chunks) }));
      });
      request.on('error', reject);
      request.end();
    });
    expect(received.early).toBeGreaterThan(0);
    const text = zlib.gunzipSync(received.body).toString();
    expect(text.startsWith(csvRow(0))).toBe(true);
    expect(text.endsWith(csvRow(40_000))).toBe(true);
  });
});
