import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const FIXTURES = fixturePath('files');

test('a seeded file comes back by its CID, byte for byte, with safe and immutable headers', async ({ request }) => {
  const original = await fs.readFile(path.join(FIXTURES, 'csv/licencias-construccion-mivhed-2022-2025.csv'));
  const { cid } = await cidOf(original);
  const response = await request.get(`/ipfs/${cid}`);
  expect(response.status()).toBe(200);
  const body = await response.body();
  expect(Buffer.compare(body, original)).toBe(0);
  // Anyone can check the download against its CID.
  expect((await cidOf(body)).cid).toBe(cid);
  const headers = response.headers();
  // Its bytes are UTF-8, and the browser is told so.
  expect(headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['content-security-policy']).toContain('sandbox');
  expect(headers['cache-control']).toContain('immutable');
  expect(headers.etag).toBe(`"${cid}"`);

  const slice = await request.get(`/ipfs/${cid}`, { headers: { Range: 'bytes=262140-262149' } });
  expect(slice.status()).toBe(206);
  expect(slice.headers()['content-range']).toBe(`bytes 262140-262149/${original.length}`);
  expect(Buffer.compare(await slice.body(), original.subarray(262140, 262150))).toBe(0);

  // If-Range: the piece only while it names this file; another tag or a date gets the whole file.
  expect((await request.get(`/ipfs/${cid}`, { headers: { Range: 'bytes=0-9', 'If-Range': `"${cid}"` } })).status()).toBe(206);
  for (const other of ['"otra-etiqueta"', 'Tue, 24 Nov 2026 10:00:00 GMT']) {
    const whole = await request.get(`/ipfs/${cid}`, { headers: { Range: 'bytes=0-9', 'If-Range': other } });
    expect(whole.status()).toBe(200);
    expect(whole.headers()['content-range']).toBeUndefined();
    expect(Buffer.compare(await whole.body(), original)).toBe(0);
  }

  expect((await request.get(`/ipfs/${cid}`, { headers: { 'If-None-Match': `"${cid}"` } })).status()).toBe(304);
  expect((await request.get(`/ipfs/${cid}`, { headers: { Range: `bytes=${original.length}-` } })).status()).toBe(416);

  const download = await request.get(`/ipfs/${cid}?download=true`);
  expect(download.headers()['content-disposition']).toMatch(/^attachment; filename="licencias-construccion-mivhed-2022-2025\.csv"/);
});

test('a CSV in Windows-1252, opened in the browser, reads in Spanish; one in code page 850 is not misnamed', async ({ page, request }) => {
  const windows1252 = await fs.readFile(path.join(FIXTURES, 'csv/empleos-cotizantes-tss-2003-2026.csv'));
  const { cid } = await cidOf(windows1252);
  const opened = await request.get(`/ipfs/${cid}`);
  expect(opened.headers()['content-type']).toBe('text/csv; charset=windows-1252');
  // Chromium downloads a CSV; a browser that shows it (Safari), or a script that reads it as text,
  // decodes it by the charset named: XMLHttpRequest's text is Chromium's own decoding by that name.
  await page.goto('/faq');
  const text = await page.evaluate(
    (url) =>
      new Promise<string>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open('GET', url);
        xhr.onload = () => resolve(xhr.responseText);
        xhr.onerror = () => reject(new Error('XHR failed'));
        xhr.send();
      }),
    `/ipfs/${cid}`,
  );
  expect(text.split('\n')[0]!.trim()).toBe('MES,AÑO,EMPRESA_PRIVADA,PUBLICA_CENTRALIZADA,PUBLICA_DESCENTRALIZADA,TOTAL');
  // Code page 850 (the Hacienda file's «AÑO» is byte 0xA5) has no name a browser knows: none is given.
  const cp850 = await request.get(`/ipfs/${(await cidOf(await fs.readFile(path.join(FIXTURES, 'csv/salario-minimo-hacienda-2000-2025.csv')))).cid}`);
  expect(cp850.headers()['content-type']).toBe('text/csv');
});

test('the record page opens its PDF from the gateway', async ({ page, request }) => {
  const pdf = await fs.readFile(path.join(FIXTURES, 'pdf/prodominicana-estructura-organica-2023.pdf'));
  const { cid } = await cidOf(pdf);
  await page.goto(`/${cid}`);
  const href = await page.getByRole('link', { name: 'Abrir PDF' }).getAttribute('href');
  const response = await request.get(href!);
  expect(response.headers()['content-type']).toBe('application/pdf');
  expect(Buffer.compare(await response.body(), pdf)).toBe(0);
});

test('bad and unknown CIDs get clear answers', async ({ request }) => {
  const bad = await request.get('/ipfs/no-es-un-cid');
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toEqual({ code: 400, message: 'El CID no es válido.' });
  const { cid } = await cidOf(new TextEncoder().encode('nunca archivado'));
  expect((await request.get(`/ipfs/${cid}`)).status()).toBe(404);
});

test('a person who follows a link to a file the archive lacks reads why on a page, not in JSON', async ({ page }) => {
  const { cid } = await cidOf(new TextEncoder().encode('nunca archivado, visto en un navegador'));
  const missing = await page.goto(`/ipfs/${cid}`);
  expect(missing?.status()).toBe(404);
  expect(missing?.headers()['content-type']).toBe('text/html; charset=utf-8');
  await expect(page.getByRole('heading', { level: 1, name: 'Archivo no encontrado' })).toBeVisible();
  await expect(page.getByText('Este archivo no está en el archivo.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Buscar en el archivo' })).toBeVisible();
  const bad = await page.goto('/ipfs/no-es-un-cid');
  expect(bad?.status()).toBe(400);
  await expect(page.getByRole('heading', { level: 1, name: 'La dirección del archivo no es válida' })).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/pasarela-404.png' });
});

test('a stored page of HTML is never served as a page of ours', async ({ request }) => {
  // Blocks go straight into the running archive's store folder, as an upload's would.
  const { createContentStore } = await import('../../src/lib/server/storage/index.ts');
  const store = createContentStore({ dir: path.resolve(import.meta.dirname, '../../.e2e-data/blocks') });
  const { cid } = await store.add(new TextEncoder().encode('<!doctype html><script>document.cookie</script>'));
  const response = await request.get(`/ipfs/${cid}`);
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toBe('application/octet-stream');
  expect(response.headers()['content-disposition']).toMatch(/^attachment/);
  expect(response.headers()['content-security-policy']).toContain('sandbox');
});
