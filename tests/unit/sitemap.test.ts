import { describe, expect, it } from 'vitest';
import { escapeXml, sitemapFileCount, sitemapIndexXml, urlsetXml } from '../../src/lib/server/seo/sitemap.ts';

const ORIGIN = 'https://archivo.example';

describe('sitemap XML', () => {
  it('writes absolute URLs with their date of change', () => {
    const xml = urlsetXml([{ path: '/collection/dep/3', lastmod: new Date('2025-06-07T08:09:10Z') }], ORIGIN);
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
        '<url><loc>https://archivo.example/collection/dep/3</loc><lastmod>2025-06-07T08:09:10.000Z</lastmod></url>\n' +
        '</urlset>\n',
    );
  });

  it('leaves the date out when nothing has changed a page yet', () => {
    expect(urlsetXml([{ path: '/desaparecidos', lastmod: null }], ORIGIN)).toContain('<url><loc>https://archivo.example/desaparecidos</loc></url>');
  });

  it('escapes what XML reserves, as the protocol requires of URLs', () => {
    expect(escapeXml(`a&b<c>"d'`)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;');
    const xml = urlsetXml([{ path: '/collection/src/1?page=2&x=<y>', lastmod: new Date(0) }], ORIGIN);
    expect(xml).toContain('<loc>https://archivo.example/collection/src/1?page=2&amp;x=%3Cy%3E</loc>');
  });

  it('indexes the numbered files, from 1', () => {
    const xml = sitemapIndexXml(2, ORIGIN);
    expect(xml).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(xml.match(/<loc>[^<]+<\/loc>/g)).toEqual([
      '<loc>https://archivo.example/sitemap-1.xml</loc>',
      '<loc>https://archivo.example/sitemap-2.xml</loc>',
    ]);
  });

  it('needs one file per 50,000 URLs', () => {
    expect(sitemapFileCount(0)).toBe(0);
    expect(sitemapFileCount(50_000)).toBe(1);
    expect(sitemapFileCount(50_001)).toBe(2);
    expect(sitemapFileCount(100_250)).toBe(3);
  });
});
