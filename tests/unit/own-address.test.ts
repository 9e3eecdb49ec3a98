/**
 * The archive's own addresses (src/lib/server/capture/own-address.ts), which it never harvests:
 * matched by name whatever the spelling a URL allows, and by port where the configuration names one.
 */
import { describe, expect, it } from 'vitest';
import { isOwnAddress } from '../../src/lib/server/capture/own-address.ts';

const own = (url: string, hosts: string[]) => isOwnAddress(new URL(url), hosts);

describe('the archive’s own addresses', () => {
  it('are its configured hosts, in any case, with a trailing dot, a name and password, or the default port written out', () => {
    const hosts = ['archivo.example.org', 'www.archivo.example.org'];
    for (const url of [
      'https://archivo.example.org/catalog.jsonld',
      'https://ARCHIVO.Example.org/catalog.ttl?page=2',
      'https://archivo.example.org./catalog.jsonld',
      'https://archivo.example.org:443/catalog.jsonld',
      'http://archivo.example.org:80/catalog.jsonld',
      'http://usuario:clave@archivo.example.org/',
      'https://www.archivo.example.org/',
    ]) {
      expect(own(url, hosts), url).toBe(true);
    }
  });

  it('are not another host, a subdomain, or another port than the web’s default when none is configured', () => {
    const hosts = ['archivo.example.org'];
    for (const url of ['https://datos.gob.do/', 'https://otro.archivo.example.org/', 'https://archivo.example.org.evil.test/', 'http://archivo.example.org:8080/']) {
      expect(own(url, hosts), url).toBe(false);
    }
    expect(own('https://archivo.example.org/', [])).toBe(false);
  });

  it('take the port of a host configured with one: a portal on another port of the same machine is not the archive', () => {
    const hosts = ['localhost:4321', '127.0.0.1:4321', '[::1]:4321'];
    expect(own('http://127.0.0.1:4321/catalog.jsonld', hosts)).toBe(true);
    expect(own('http://localhost.:4321/', hosts)).toBe(true);
    expect(own('http://[0:0:0:0:0:0:0:1]:4321/', hosts)).toBe(true);
    expect(own('http://127.0.0.1:46437/api/3/action/package_search', hosts)).toBe(false);
    expect(own('http://localhost/', hosts)).toBe(false);
    expect(own('https://archivo.example.org/', ['archivo.example.org:443'])).toBe(true);
    expect(own('http://archivo.example.org/', ['archivo.example.org:443'])).toBe(false);
  });
});
