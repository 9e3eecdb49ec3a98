/**
 * The page a browser gets for a request refused before any route (`http/refusal-page.ts`): only
 * for a GET or HEAD that prefers HTML, with what it repeats escaped and its links on the
 * configured address.
 */
import { describe, expect, it } from 'vitest';
import { REFUSAL_PAGE_HEADERS, refusalAsPage, refusalPage, wantsPage } from '../../src/lib/server/http/refusal-page.ts';

const CHROMIUM = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('wantsPage', () => {
  it('is a browser navigating: a GET or HEAD that prefers HTML to JSON', () => {
    expect(wantsPage('GET', CHROMIUM)).toBe(true);
    expect(wantsPage('HEAD', 'text/html')).toBe(true);
    expect(wantsPage('POST', CHROMIUM)).toBe(false);
    for (const accept of ['*/*', 'application/json', 'application/json, text/html;q=0.5', 'text/html;q=0', '', null, undefined]) {
      expect(wantsPage('GET', accept), String(accept)).toBe(false);
    }
  });
});

describe('refusalPage', () => {
  it('escapes what it repeats and links home on the configured address', () => {
    const page = refusalPage(400, 'Cabecera «<script>alert("x")</script>» & \'más\'', 'https://archivo.example.org/base/');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;» &amp; &apos;más&apos;');
    expect(page).toContain('<h1>La dirección no es válida</h1>');
    expect(page).toContain('<a href="https://archivo.example.org/">Ir al inicio</a>');
    expect(page).toContain('<a href="https://archivo.example.org/buscar">Buscar en el archivo</a>');
    expect(refusalPage(500, 'Error interno.', 'http://localhost:4321')).toContain('<h1>Error del archivo</h1>');
  });

  it("links a withdrawal's record page, on the configured address, and nothing a foreign path names", async () => {
    const refusal = (body: object) => new Response(JSON.stringify(body), { status: 410, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
    const browser = new Request('http://archivo.test/ipfs/x', { headers: { Accept: 'text/html' } });
    const message = 'Archivo retirado por la moderación del archivo. El motivo está en la página del registro: /single/src/bafy?assetId=7';
    const page = await refusalAsPage(refusal({ code: 410, message, recordPage: '/single/src/bafy?assetId=7' }), browser, 'https://archivo.example.org', 'Archivo retirado');
    expect(page.status).toBe(410);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('<h1>Archivo retirado</h1>');
    expect(html).toContain('<a href="https://archivo.example.org/single/src/bafy?assetId=7">Ver el motivo en la página del registro</a>');
    for (const foreign of ['//evil.example/x', 'https://evil.example/x', 'javascript:alert(1)']) {
      const other = await (await refusalAsPage(refusal({ code: 410, message, recordPage: foreign }), browser, 'https://archivo.example.org', 'Archivo retirado')).text();
      expect(other, foreign).not.toContain('Ver el motivo');
    }
    // A program asking for JSON gets the answer as it was.
    const api = await refusalAsPage(refusal({ code: 410, message }), new Request('http://archivo.test/ipfs/x', { headers: { Accept: 'application/json' } }), 'https://archivo.example.org', 'x');
    expect(await api.json()).toEqual({ code: 410, message });
  });

  it('runs nothing and loads nothing: its policy allows its own inline style alone', () => {
    expect(REFUSAL_PAGE_HEADERS['Content-Security-Policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(refusalPage(400, 'x', 'http://localhost:4321')).not.toMatch(/<script|<link|<img|\son\w+=/i);
  });
});
