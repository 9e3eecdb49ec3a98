/**
 * The robots.txt policy against a real HTTP server on 127.0.0.1: each host name (resolved to the
 * server through the fetch's `resolver`) answers its robots.txt differently, as RFC 9309 sorts
 * them: rules, 404 (allow all), 5xx (disallow all for now), a redirect, a server that never answers.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotsPolicy, type CaptureFetchOptions } from '../../src/lib/server/capture/index.ts';

let server: Server;
let port: number;
/** How many times each host's robots.txt was asked for. */
const asked = new Map<string, number>();
/** What `flaky.test` answers next. */
let flakyStatus = 503;
/** Bytes `endless.test` wrote before the client stopped reading. */
let endlessSent = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    asked.set(host, (asked.get(host) ?? 0) + 1);
    if (request.url !== '/robots.txt') {
      response.writeHead(404).end();
      return;
    }
    switch (host) {
      case 'rules.test':
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end('\uFEFFUser-agent: *\nDisallow: /\n\nUser-agent: ArchivoAbierto\nDisallow: /privado/\n');
        return;
      case 'missing.test':
        response.writeHead(404).end();
        return;
      case 'broken.test':
        response.writeHead(503).end();
        return;
      case 'flaky.test':
        response.writeHead(flakyStatus).end(flakyStatus === 200 ? 'User-agent: *\nDisallow: /x\n' : '');
        return;
      case 'moved.test':
        response.writeHead(301, { Location: `http://rules.test:${port}/robots.txt` }).end();
        return;
      case 'to-cdn.test':
        // To a host whose name does not resolve (the test's resolver knows no «.invalid»).
        response.writeHead(301, { Location: `http://cdn.invalid:${port}/robots.txt` }).end();
        return;
      case 'silent.test':
        return; // never answers
      case 'huge.test': {
        // A rule, then more than the 500 KiB a crawler must read, then a rule past the limit.
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end(`User-agent: *\nDisallow: /antes\n${'#'.repeat(600 * 1024)}\nDisallow: /despues\n`);
        return;
      }
      case 'endless.test': {
        // A rule, then filler for as long as the client reads (at most 64 MB).
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.write('User-agent: *\nDisallow: /antes\n');
        const filler = Buffer.alloc(64 * 1024, 0x23);
        const pump = () => {
          while (endlessSent < 64_000_000 && !response.destroyed) {
            endlessSent += filler.length;
            if (!response.write(filler)) return void response.once('drain', pump);
          }
          response.end();
        };
        pump();
        return;
      }
      default:
        response.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

const fetch: CaptureFetchOptions = {
  allowPrivate: true,
  resolver: async (hostname) => {
    if (hostname.endsWith('.invalid')) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    return [{ address: '127.0.0.1', family: 4 }];
  },
  headersTimeoutMs: 500,
  idleTimeoutMs: 1_000,
};
const at = (host: string, path: string) => `http://${host}:${port}${path}`;

describe('RobotsPolicy', () => {
  it('applies the rules of a robots.txt to the archive, and fetches it once per origin', async () => {
    const robots = new RobotsPolicy({ fetch });
    expect(await robots.allowed(at('rules.test', '/datos.csv'))).toBe(true);
    expect(await robots.check(at('rules.test', '/privado/x.csv'))).toEqual({ allowed: false, reason: 'robots.txt lo prohíbe', crawlDelayMs: null, unreachable: false, siteFailure: null });
    await Promise.all([robots.allowed(at('rules.test', '/a')), robots.allowed(at('rules.test', '/b'))]);
    expect(asked.get('rules.test')).toBe(1);
  });

  it('allows everything when robots.txt is missing (404)', async () => {
    const robots = new RobotsPolicy({ fetch });
    expect(await robots.check(at('missing.test', '/x'))).toEqual({ allowed: true, reason: 'robots.txt no disponible (HTTP 404)', crawlDelayMs: null, unreachable: false, siteFailure: null });
  });

  it('disallows everything while robots.txt fails (5xx) or never answers', async () => {
    const robots = new RobotsPolicy({ fetch });
    expect(await robots.check(at('broken.test', '/x'))).toEqual({ allowed: false, reason: 'robots.txt inalcanzable (HTTP 503)', crawlDelayMs: null, unreachable: true, siteFailure: null });
    const silent = await robots.check(at('silent.test', '/x'));
    expect(silent.allowed).toBe(false);
    expect(silent.reason).toContain('tiempo agotado esperando cabeceras');
    // The site answered, late: robots.txt is what could not be read, not the site.
    expect(silent).toMatchObject({ unreachable: true, siteFailure: null });
  });

  it('blames robots.txt, not the site, for a failure at another host robots.txt redirected to', async () => {
    const robots = new RobotsPolicy({ fetch });
    const verdict = await robots.check(at('to-cdn.test', '/x'));
    expect(verdict).toMatchObject({ allowed: false, unreachable: true, siteFailure: null });
    expect(verdict.reason).toBe('robots.txt inalcanzable (no se pudo resolver el nombre del servidor: cdn.invalid)');
  });

  it('follows a redirect to the robots.txt it names', async () => {
    const robots = new RobotsPolicy({ fetch });
    expect(await robots.allowed(at('moved.test', '/privado/x'))).toBe(false);
    expect(await robots.allowed(at('moved.test', '/publico/x'))).toBe(true);
  });

  it('reads the first 500 KiB and ignores the rest', async () => {
    const robots = new RobotsPolicy({ fetch });
    expect(await robots.allowed(at('huge.test', '/antes'))).toBe(false);
    expect(await robots.allowed(at('huge.test', '/despues'))).toBe(true);
  });

  it('stops reading an endless robots.txt after 500 KiB', async () => {
    const robots = new RobotsPolicy({ fetch });
    expect(await robots.allowed(at('endless.test', '/antes'))).toBe(false);
    expect(endlessSent).toBeLessThan(16_000_000);
  });

  it('keeps a failure for a short while and an answer for longer, then asks again', async () => {
    let now = 0;
    const robots = new RobotsPolicy({ fetch, ttlMs: 10_000, failureTtlMs: 1_000, now: () => now });
    flakyStatus = 503;
    expect(await robots.allowed(at('flaky.test', '/ok'))).toBe(false);
    flakyStatus = 200;
    now = 500;
    expect(await robots.allowed(at('flaky.test', '/ok'))).toBe(false); // still the cached failure
    now = 1_500;
    expect(await robots.allowed(at('flaky.test', '/ok'))).toBe(true);
    expect(await robots.allowed(at('flaky.test', '/x'))).toBe(false);
    flakyStatus = 503;
    now = 9_000;
    expect(await robots.allowed(at('flaky.test', '/ok'))).toBe(true); // the answer is kept 10 s
    expect(asked.get('flaky.test')).toBe(2);
    now = 12_000;
    expect(await robots.allowed(at('flaky.test', '/ok'))).toBe(false);
    expect(asked.get('flaky.test')).toBe(3);
  });

  it('refuses a private host by default: robots.txt unreachable, capture disallowed', async () => {
    const robots = new RobotsPolicy();
    const verdict = await robots.check(`http://127.0.0.1:${port}/x`);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain('dirección privada o reservada');
    // The site itself is refused: callers tell that, not robots.txt.
    expect(verdict.siteFailure?.reason).toBe('private_address');
    expect(verdict.siteFailure?.message).toBe('dirección privada o reservada: 127.0.0.1 (bucle local)');
  });

  it('refuses a cloud metadata address even where private addresses are allowed', async () => {
    const robots = new RobotsPolicy({ fetch: { allowPrivate: true } });
    const verdict = await robots.check('http://169.254.169.254/latest/meta-data/');
    expect(verdict).toMatchObject({ allowed: false, unreachable: true });
    expect(verdict.siteFailure?.message).toBe('dirección privada o reservada: 169.254.169.254 (servicio de metadatos de la nube)');
  });
});
