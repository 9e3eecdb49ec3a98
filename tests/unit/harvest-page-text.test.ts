/**
 * A catalogue page's bytes as the readers get them (`pageText`): compressed though asked not to,
 * saved as UTF-16 by a Windows tool, or in the charset its Content-Type names; and a catalogue's
 * words made storable (`storableText`) before a run's reason is saved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { catalogPageFetcher, MAX_CATALOG_PAGE_BYTES, pageText } from '../../src/lib/server/harvest/fetch-page.ts';
import { storableText } from '../../src/lib/server/harvest/run.ts';

const JSON_TEXT = '{"success": true, "result": {"count": 1, "results": [{"id": "año-2024", "title": "Nómina"}]}}';

describe('pageText', () => {
  it('reads UTF-8, with or without its byte-order mark', async () => {
    expect(await pageText(Buffer.from(JSON_TEXT), 'application/json', null)).toBe(JSON_TEXT);
    expect(await pageText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON_TEXT)]), 'application/json', null)).toBe(JSON_TEXT);
  });

  it('reads UTF-16 by its byte-order mark, whatever the Content-Type says', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON_TEXT, 'utf16le')]);
    expect(await pageText(le, 'application/json; charset=utf-8', null)).toBe(JSON_TEXT);
    const be = Buffer.from(le);
    be.swap16();
    expect(await pageText(be, 'application/json', null)).toBe(JSON_TEXT);
  });

  it('reads UTF-8 whatever charset the server adds, and bytes that are not UTF-8 in the charset it names', async () => {
    // Apache's AddDefaultCharset on a UTF-8 data.json: still UTF-8, not «NÃ³mina».
    expect(await pageText(Buffer.from(JSON_TEXT), 'application/json; charset=ISO-8859-1', null)).toBe(JSON_TEXT);
    const latin = Buffer.from('{"title": "Nómina de año"}', 'latin1');
    expect(await pageText(latin, 'application/json; charset="windows-1252"', null)).toBe('{"title": "Nómina de año"}');
    expect(await pageText(Buffer.from(JSON_TEXT), 'application/json; charset=no-existe', null)).toBe(JSON_TEXT);
  });

  it("reads RDF/XML that is not UTF-8 in the encoding its XML declaration names, when the server names none", async () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<rdf:RDF><dct:title>Nómina de año</dct:title></rdf:RDF>';
    expect(await pageText(Buffer.from(xml, 'latin1'), 'application/rdf+xml', null)).toBe(xml);
    expect(await pageText(Buffer.from(xml, 'latin1'), null, null)).toBe(xml);
    // The server's charset comes first; and UTF-8 bytes stay UTF-8 whatever the declaration says.
    expect(await pageText(Buffer.from(xml.replace('ISO-8859-1', 'UTF-16'), 'latin1'), 'application/rdf+xml; charset=windows-1252', null)).toBe(xml.replace('ISO-8859-1', 'UTF-16'));
    expect(await pageText(Buffer.from(xml), 'application/rdf+xml', null)).toBe(xml);
  });

  it('inflates a page sent compressed anyway (gzip, deflate raw or not, br), and reads as sent what the header belies', async () => {
    expect(await pageText(await promisify(zlib.gzip)(JSON_TEXT), 'application/json', 'gzip')).toBe(JSON_TEXT);
    expect(await pageText(await promisify(zlib.deflate)(JSON_TEXT), 'application/json', 'deflate')).toBe(JSON_TEXT);
    expect(await pageText(await promisify(zlib.deflateRaw)(JSON_TEXT), 'application/json', 'deflate')).toBe(JSON_TEXT);
    expect(await pageText(await promisify(zlib.brotliCompress)(JSON_TEXT), 'application/json', 'br')).toBe(JSON_TEXT);
    // Misconfigured servers: an encoding that is none, or gzip on plain bytes.
    for (const encoding of ['utf-8', 'none', 'zstd', 'gzip', 'deflate', 'br']) {
      expect(await pageText(Buffer.from(JSON_TEXT), 'application/json', encoding), encoding).toBe(JSON_TEXT);
    }
  });

  it('stops a gzip bomb at the page limit', async () => {
    const bomb = await promisify(zlib.gzip)(Buffer.alloc(MAX_CATALOG_PAGE_BYTES + 1, 0x20));
    expect(bomb.length).toBeLessThan(1_000_000);
    await expect(pageText(bomb, 'application/json', 'gzip')).rejects.toThrow(`Una página del catálogo, descomprimida, pasa de ${MAX_CATALOG_PAGE_BYTES / 1_000_000} MB.`);
  });
});

describe('the catalogue page fetcher', () => {
  it('gives the readers the text of a page a portal sent gzipped, and of one saved as UTF-16', async () => {
    const gzipped = await promisify(zlib.gzip)(JSON_TEXT);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON_TEXT, 'utf16le')]);
    const server = http.createServer((request, response) => {
      if (request.url === '/robots.txt') return void response.writeHead(404).end();
      // Compressed though the fetcher asked for identity, as some portals' proxies do.
      if (request.url === '/gzip') return void response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipped);
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(utf16);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const fetchPage = catalogPageFetcher({ allowPrivate: true });
      expect(JSON.parse((await fetchPage(`${origin}/gzip`)).body)).toEqual(JSON.parse(JSON_TEXT));
      expect(JSON.parse((await fetchPage(`${origin}/data.json`)).body)).toEqual(JSON.parse(JSON_TEXT));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('storableText', () => {
  it('drops the NUL and other control characters PostgreSQL text refuses or nobody reads, and keeps lines', () => {
    expect(storableText('\u0000{\u0000"a\u0007": 1}\nsegunda\tlínea')).toBe('{"a": 1}\nsegunda\tlínea');
  });

  it('leaves no lone surrogate, which jsonb refuses: neither one given nor half an emoji cut', () => {
    expect(storableText('a\ud800b')).toBe('a\ufffdb');
    const cut = storableText(`${'a'.repeat(98)}😀😀`, 100);
    expect(cut).toBe(`${'a'.repeat(98)}😀…`);
    expect(cut.isWellFormed()).toBe(true);
  });

  it('cuts a long reason', () => {
    const cut = storableText('x'.repeat(5000), 100);
    expect(cut).toHaveLength(100);
    expect(cut.endsWith('…')).toBe(true);
  });
});
