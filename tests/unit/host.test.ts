import { describe, expect, it } from 'vitest';
import { reachableHost, readConfig } from '../../src/lib/server/config.ts';
import { checkHost, clientAddressOf, plainHost } from '../../src/lib/server/http/host.ts';

describe('the Host header (issue #16)', () => {
  it('accepts plain names, addresses and ports, lower-cased', () => {
    expect(plainHost('Archivo.Example.org')).toBe('archivo.example.org');
    expect(plainHost('localhost:4321')).toBe('localhost:4321');
    expect(plainHost('127.0.0.1:80')).toBe('127.0.0.1:80');
    expect(plainHost('[::1]:4321')).toBe('[::1]:4321');
  });

  it('refuses anything a URL parser would read as more than a host', () => {
    for (const hostile of ['x@y', 'a@b', 'evil.example/moderacion?', 'evil.example#x', 'evil.example?x', 'evil example', 'evil.example\\x', 'árchivo.example', 'localhost:abc', '[::1', '-evil.example', 'a..b', '', 'a'.repeat(300), undefined, null]) {
      expect(plainHost(hostile), String(hostile)).toBeNull();
    }
  });

  it('serves only the hosts the configuration lists', () => {
    const rules = { allowedHosts: ['archivo.example.org'] };
    expect(checkHost('ARCHIVO.example.org', rules)).toEqual({ ok: true, host: 'archivo.example.org' });
    expect(checkHost('phish.example', rules)).toMatchObject({ ok: false, message: 'Este archivo no se sirve en phish.example.' });
    expect(checkHost('x@y', rules)).toMatchObject({ ok: false });
  });

  it('answers the health check under any plain host, as a balancer asks by address, and nothing else beside it', () => {
    const rules = { allowedHosts: ['archivo.example.org'] };
    expect(checkHost('10.0.3.7:4321', rules, '/v2/health')).toEqual({ ok: true, host: '10.0.3.7:4321' });
    expect(checkHost('10.0.3.7:4321', rules, '/v2/health?x=1')).toMatchObject({ ok: true });
    for (const path of ['/v2/healthz', '/v2/health/', '/v2/health/../../dashboard', '/dashboard']) {
      expect(checkHost('10.0.3.7:4321', rules, path), path).toMatchObject({ ok: false });
    }
    expect(checkHost('x@y', rules, '/v2/health')).toMatchObject({ ok: false });
  });

  it('reaches a server on every interface by the loopback address, and one on a given address by it', () => {
    expect(['', '0.0.0.0', '::', '[::]', 'localhost', '127.0.0.1', '::1', '192.168.1.5'].map(reachableHost)).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '[::1]',
      '[::1]',
      'localhost',
      '127.0.0.1',
      '[::1]',
      '192.168.1.5',
    ]);
  });

  it("serves only the gateway on the content origin's host, which is no sign-in domain", () => {
    const config = readConfig({ ARCHIVE_PUBLIC_URL: 'https://archivo.example.org', ARCHIVE_CONTENT_ORIGIN: 'https://contenido.example.org' });
    expect(config.allowedHosts).toEqual(['archivo.example.org']);
    expect(checkHost('contenido.example.org', config, '/ipfs/bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4')).toEqual({ ok: true, host: 'contenido.example.org' });
    for (const path of ['/', '/dashboard', '/auth/login', '/graphql', '/ipfsx', '/ipfs/../docs', '/ipfs/%2e%2e/docs', '/ipfs/%2E./_astro/x.js']) {
      expect(checkHost('contenido.example.org', config, path), path).toMatchObject({ ok: false });
    }
    expect(checkHost('archivo.example.org', config, '/ipfs/x')).toMatchObject({ ok: true });
  });
});

describe('the public address comes from configuration', () => {
  it('defaults to the address the server was started on, and its loopback names', () => {
    const config = readConfig({ PORT: '4399', HOST: 'localhost' });
    expect(config.publicUrl).toBe('http://localhost:4399');
    expect(config.allowedHosts).toEqual(['localhost:4399', '127.0.0.1:4399', '[::1]:4399']);
    expect(readConfig({ PORT: '8080', HOST: '0.0.0.0' }).publicUrl).toBe('http://localhost:8080');
    expect(readConfig({}).publicUrl).toBe('http://localhost:4321');
  });

  it('with ARCHIVE_PUBLIC_URL, serves its host and the hosts listed in ARCHIVE_ALLOWED_HOSTS only', () => {
    const config = readConfig({ ARCHIVE_PUBLIC_URL: 'https://archivo.example.org/', ARCHIVE_ALLOWED_HOSTS: 'www.archivo.example.org, interno:4321', PORT: '4321' });
    expect(config.publicUrl).toBe('https://archivo.example.org');
    expect(config.allowedHosts).toEqual(['archivo.example.org', 'www.archivo.example.org', 'interno:4321']);
  });

  it('refuses to start on a public or content URL that is not a plain http(s) origin', () => {
    expect(() => readConfig({ ARCHIVE_PUBLIC_URL: 'ftp://archivo.example.org' })).toThrow(/ARCHIVE_PUBLIC_URL/);
    expect(() => readConfig({ ARCHIVE_PUBLIC_URL: 'https://u:p@archivo.example.org' })).toThrow(/ARCHIVE_PUBLIC_URL/);
    expect(() => readConfig({ ARCHIVE_CONTENT_ORIGIN: 'no es una url' })).toThrow(/ARCHIVE_CONTENT_ORIGIN/);
    // A path would be dropped from every link: refused, not ignored; a bare trailing slash is the root.
    expect(() => readConfig({ ARCHIVE_CONTENT_ORIGIN: 'https://contenido.example.org/x' })).toThrow(/ARCHIVE_CONTENT_ORIGIN debe ser solo el origen/);
    expect(readConfig({ ARCHIVE_CONTENT_ORIGIN: 'https://contenido.example.org/' }).contentOrigin).toBe('https://contenido.example.org');
    expect(readConfig({ ARCHIVE_PUBLIC_URL: 'https://archivo.example.org:8443/' }).publicUrl).toBe('https://archivo.example.org:8443');
    // The content origin may not be one of the archive's own names (nor so a sign-in domain).
    expect(() => readConfig({ ARCHIVE_PUBLIC_URL: 'https://archivo.example.org', ARCHIVE_ALLOWED_HOSTS: 'contenido.example.org', ARCHIVE_CONTENT_ORIGIN: 'https://contenido.example.org' })).toThrow(/ARCHIVE_CONTENT_ORIGIN/);
  });

  it('takes trusted proxies as IP addresses, one spelling each', () => {
    expect(readConfig({ ARCHIVE_TRUSTED_PROXIES: '10.0.0.2, ::ffff:10.0.0.3, 0:0:0:0:0:0:0:1' }).trustedProxies).toEqual(['10.0.0.2', '10.0.0.3', '::1']);
    expect(() => readConfig({ ARCHIVE_TRUSTED_PROXIES: '10.0.0.0/8' })).toThrow(/ARCHIVE_TRUSTED_PROXIES/);
  });
});

describe('the client address behind trusted proxies (issue #16)', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddressOf('203.0.113.9', '198.51.100.1', [])).toBe('203.0.113.9');
    expect(clientAddressOf('::ffff:203.0.113.9', null, [])).toBe('203.0.113.9');
  });

  it("is the first address from the right that no trusted proxy added", () => {
    const proxies = ['10.0.0.2', '10.0.0.3'];
    expect(clientAddressOf('10.0.0.2', '198.51.100.7', proxies)).toBe('198.51.100.7');
    // The client wrote the left part itself: it cannot choose its own bucket.
    expect(clientAddressOf('10.0.0.2', '1.2.3.4, 198.51.100.7, 10.0.0.3', proxies)).toBe('198.51.100.7');
    expect(clientAddressOf('::ffff:10.0.0.2', '198.51.100.7', proxies)).toBe('198.51.100.7');
    // An untrusted peer's header is ignored.
    expect(clientAddressOf('203.0.113.9', '198.51.100.7', proxies)).toBe('203.0.113.9');
  });

  it('counts an IPv6 client as its /64, which one subscriber holds whole', () => {
    expect(clientAddressOf('2001:db8:1:2:aaaa::1', null, [])).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf('2001:db8:1:2:ffff:ffff:ffff:fffe', null, [])).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf('2001:db8::7', null, [])).toBe('2001:db8:0:0::/64');
    expect(clientAddressOf('::1', null, [])).toBe('0:0:0:0::/64');
    expect(clientAddressOf('10.0.0.2', '2001:db8:1:2::9', ['10.0.0.2'])).toBe('2001:db8:1:2::/64');
  });
});
