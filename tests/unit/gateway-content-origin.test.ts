/**
 * What the gateway lets a browser do with a visitor's upload (issue #16, items 13 and 14): a
 * download keeps the extension of what the file is, whatever `?download=` says; with a content
 * origin configured, files render inline only there; a record stored as a PDF that does not start
 * as one is not served as a PDF.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_TYPES, ASSET_TYPE_VALUES } from '../../src/lib/domain/constants.ts';
import { alexandrias } from '../../src/lib/server/db/schema.ts';
import { readGatewayRequest, serveFile, type GatewayOptions } from '../../src/lib/server/gateway/index.ts';
import { createTestDatabase, createTestStore } from '../helpers/database.ts';

const ARCHIVE = 'http://archivo.test';
const CONTENT = 'https://contenido.archivo.test';
const SANDBOX = /^sandbox; default-src 'none'/;

/** A small valid PDF; `label` (a comment after its end) makes each one a file of its own. */
const pdf = (label: string) => new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\nxref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \ntrailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n107\n%%EOF\n' + `% ${label}\n`,
);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let blocks: Awaited<ReturnType<typeof createTestStore>>;
beforeAll(async () => {
  database = await createTestDatabase('pglite');
  blocks = await createTestStore();
}, 120_000);
afterAll(async () => {
  await database?.destroy();
  await blocks?.destroy();
});

/** Stores `content` as the document of an online record of `mimeType` named `fileName`. */
async function stored(content: Uint8Array, mimeType: string, fileName: string): Promise<string> {
  const { cid } = await blocks.store.add(content);
  await database.db.insert(alexandrias).values({ title: fileName, type: 'other', status: 'on_line', cid, mimeType, fileName });
  return cid;
}

async function get(origin: string, cid: string, query = '', headers: Record<string, string> = {}, options: GatewayOptions = {}) {
  const url = new URL(`${origin}/ipfs/${cid}${query}`);
  const response = await serveFile(database.db, blocks.store, readGatewayRequest(cid, new Request(url, { headers }), url), options);
  await response.body?.cancel();
  return response;
}

describe('download names', () => {
  it('keep the extension of what the file is, whatever ?download= asks for', async () => {
    const csv = await stored(new TextEncoder().encode('anio;monto\n2024;12\n'), 'text/csv', 'montos.csv');
    const renamed = await get(ARCHIVE, csv, '?download=evil.exe');
    expect(renamed.headers.get('content-disposition')).toMatch(/^attachment; filename="evil\.exe\.csv"/);
    expect((await get(ARCHIVE, csv, '?download=true&filename=datos.csv')).headers.get('content-disposition')).toMatch(/filename="datos\.csv"/);
    expect((await get(ARCHIVE, csv, '?format=car&download=evil.exe')).headers.get('content-disposition')).toMatch(/filename="evil\.exe\.car"/);
  });

  it('survive a name cut in the middle of an emoji, and encode what RFC 5987 reserves', async () => {
    const csv = await stored(new TextEncoder().encode('anio;monto\n2024;12\n'), 'text/csv', 'montos.csv');
    const split = await get(ARCHIVE, csv, `?download=${'a'.repeat(199)}${encodeURIComponent('😀')}`);
    expect(split.status).toBe(200);
    const named = await get(ARCHIVE, csv, `?download=${encodeURIComponent("informe (final)'s*.csv")}`);
    expect(named.headers.get('content-disposition')).toContain("filename*=UTF-8''informe%20%28final%29%27s%2A.csv");
  });

  it('fix the name a record was uploaded under too', async () => {
    const cid = await stored(pdf('presupuesto'), 'application/pdf', 'Presupuesto General 2026.pdf.exe');
    expect((await get(ARCHIVE, cid, '?download=true')).headers.get('content-disposition')).toMatch(
      /^attachment; filename="Presupuesto General 2026\.pdf\.exe\.pdf"/,
    );
  });
});

describe('a PDF record', () => {
  it('that does not start as a PDF is served as bytes to download, sandboxed', async () => {
    const html = new TextEncoder().encode('<html><!-- %PDF-1.4 --><script>alert(document.domain)</script></html>');
    const cid = await stored(html, 'application/pdf', 'informe.pdf');
    const response = await get(ARCHIVE, cid);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="informe\.pdf\.bin"/);
    expect(response.headers.get('content-security-policy')).toMatch(SANDBOX);
  });

  it('renders inline on the archive origin when no content origin is configured', async () => {
    const cid = await stored(pdf('ley'), 'application/pdf', 'ley.pdf');
    const response = await get(ARCHIVE, cid);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(/^inline/);
  });
});

describe("the archive's formats", () => {
  it.each(ASSET_TYPE_VALUES.filter((type) => type !== 'other'))('serve a %s as its media type, inline, named with its extension', async (type) => {
    const { mediaType, extensions } = ASSET_TYPES[type];
    const content = type === 'pdf' ? pdf('formato') : new TextEncoder().encode(`un archivo ${type}\n`);
    const response = await get(ARCHIVE, await stored(content, mediaType, `datos-${type}`));
    // A text names its charset (`textCharset`): these few words are ASCII, which is UTF-8.
    expect(response.headers.get('content-type')).toBe(mediaType.startsWith('text/') ? `${mediaType}; charset=utf-8` : mediaType);
    expect(response.headers.get('content-disposition')).toMatch(new RegExp(`^inline; filename="datos-${type}\\.${extensions[0]}"`));
  });
});

describe("a text's charset", () => {
  it('is named from the first 64 KB, and left unnamed when they are plain ASCII and the file goes on', async () => {
    const ascii = 'a,b\n'.repeat(20_000);
    const named = async (bytes: Uint8Array, name: string) => (await get(ARCHIVE, await stored(bytes, 'text/csv', name))).headers.get('content-type');
    // An accent in the first 64 KB names the file's code page.
    expect(await named(Uint8Array.from(Buffer.from(`año,ñ\n${ascii}`, 'latin1')), 'al-principio.csv')).toBe('text/csv; charset=windows-1252');
    // Past them, it is not known: no name rather than a wrong «utf-8».
    expect(await named(Uint8Array.from(Buffer.from(`${ascii}año\n`, 'latin1')), 'al-final.csv')).toBe('text/csv');
    // A short file read whole is what it is.
    expect(await named(new TextEncoder().encode('a,b\n1,2\n'), 'corto.csv')).toBe('text/csv; charset=utf-8');
  });
});

describe('with a content origin', () => {
  const options = { contentOrigin: CONTENT };

  it('never renders a file inline on the archive origin: a navigation is sent to the content origin', async () => {
    const cid = await stored(pdf('ley-200-04'), 'application/pdf', 'ley-200-04.pdf');
    const navigation = await get(ARCHIVE, cid, '?filename=ley.pdf', { 'Sec-Fetch-Mode': 'navigate' }, options);
    expect(navigation.status).toBe(302);
    expect(navigation.headers.get('location')).toBe(`${CONTENT}/ipfs/${cid}?filename=ley.pdf`);
    expect(navigation.headers.get('vary')).toMatch(/Sec-Fetch-Mode/);

    // Anything else (an embed, a fetch, a client that says nothing) gets it as an attachment.
    for (const headers of [{}, { 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'embed' }] as Array<Record<string, string>>) {
      const response = await get(ARCHIVE, cid, '', headers, options);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="ley-200-04\.pdf"/);
      expect(response.headers.get('vary')).toMatch(/Sec-Fetch-Mode/);
    }
  });

  it('renders inline on the content origin, with the same sandbox, nosniff and attachment rules', async () => {
    const decree = await stored(pdf('decreto'), 'application/pdf', 'decreto.pdf');
    const inline = await get(CONTENT, decree, '', { 'Sec-Fetch-Mode': 'navigate' }, options);
    expect(inline.status).toBe(200);
    expect(inline.headers.get('content-type')).toBe('application/pdf');
    expect(inline.headers.get('content-disposition')).toMatch(/^inline/);
    expect(inline.headers.get('x-content-type-options')).toBe('nosniff');

    const csv = await stored(new TextEncoder().encode('a;b\n1;2\n'), 'text/csv', 'tabla.csv');
    const text = await get(CONTENT, csv, '', { 'Sec-Fetch-Mode': 'navigate' }, options);
    expect(text.headers.get('content-disposition')).toMatch(/^inline/);
    expect(text.headers.get('content-security-policy')).toMatch(SANDBOX);
    expect((await get(CONTENT, csv, '?download=x.exe', {}, options)).headers.get('content-disposition')).toMatch(/^attachment; filename="x\.exe\.csv"/);
  });
});
