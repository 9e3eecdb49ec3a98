/**
 * Which addresses a capture may reach: the classification the private-address check rests on,
 * across IPv4, IPv6 and the IPv6 forms that carry an IPv4 address inside.
 */
import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress, refusedHost } from '../../src/lib/server/capture/index.ts';

describe('classifyAddress', () => {
  it.each([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.254', 'shared'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    ['[::1]', 'loopback'],
    // IPv4 inside IPv6
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:c0a8:0101::1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '169.255.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e'])(
    '%s is public',
    (address) => {
      expect(classifyAddress(address)).toBe('public');
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('answers null for a name, and a name is never public', () => {
    expect(classifyAddress('example.org')).toBeNull();
    expect(classifyAddress('127.0.0.1.nip.io')).toBeNull();
    expect(isPublicAddress('example.org')).toBe(false);
  });
});

describe('refusedHost', () => {
  const refused = (url: string, allowPrivate = false) => refusedHost(new URL(url), allowPrivate);

  it.each([
    ['http://127.0.0.1:8080/', '127.0.0.1 (bucle local)'],
    ['http://localhost/api/3/action/package_search', 'localhost (bucle local)'],
    ['http://portal.localhost./', 'portal.localhost. (bucle local)'],
    ['https://10.0.0.5/catalogo.jsonld', '10.0.0.5 (red privada)'],
    ['http://[::1]/', '::1 (bucle local)'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (servicio de metadatos de la nube)'],
  ])('refuses %s by its host alone', (url, why) => {
    expect(refused(url)).toBe(why);
  });

  it('leaves names to the lookup, and lets public addresses through', () => {
    expect(refused('https://datos.gob.do/api/3/action/package_search')).toBeNull();
    expect(refused('http://127.0.0.1.nip.io/')).toBeNull();
    expect(refused('http://93.184.216.34/')).toBeNull();
  });

  it('lets the archive’s own network through when private addresses are allowed, but never a metadata service', () => {
    expect(refused('http://127.0.0.1:8080/', true)).toBeNull();
    expect(refused('http://localhost/', true)).toBeNull();
    expect(refused('http://10.0.0.5/', true)).toBeNull();
    expect(refused('http://169.254.169.254/', true)).toBe('169.254.169.254 (servicio de metadatos de la nube)');
    expect(refused('http://[fd00:ec2::254]/', true)).toBe('fd00:ec2::254 (servicio de metadatos de la nube)');
    expect(refused('http://169.254.170.2/v2/credentials', true)).toBe('169.254.170.2 (servicio de metadatos de la nube)');
    expect(refused('http://169.254.170.23/', true)).toBe('169.254.170.23 (servicio de metadatos de la nube)');
    // Link-local, where clouds put more such services: no catalogue lives there.
    expect(refused('http://169.254.1.1/', true)).toBe('169.254.1.1 (enlace local)');
    expect(refused('http://[fe80::1]/', true)).toBe('fe80::1 (enlace local)');
  });

  it('refuses the forms the URL parser normalises to a refused address', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1./', 'http://LOCALHOST./', 'http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:0:0:1]/', 'http://0/']) {
      expect(refused(url), url).not.toBeNull();
    }
  });
});
