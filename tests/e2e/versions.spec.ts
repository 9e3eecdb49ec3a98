/**
 * A record's versions on its page (issue #19), in Chromium, against the harvesting archive that
 * playwright.config.ts starts (`HARVEST_ARCHIVE_URL`: captures of 127.0.0.1 allowed). The test
 * serves a one-dataset CKAN portal on 127.0.0.1 whose CSV is a real fixture, harvests it with
 * `npm run harvest` (v1), edits the file at the origin (a column renamed, a row changed, two rows
 * added) and checks it again with `npm run recheck` (v2), both through the archive's embedded
 * database while the server runs. The record page then lists both versions, newest first, each
 * with its download by CID, and what changed: the counts and the changed rows as a table, whose
 * first column stays in view on a phone. Screenshots at 1366 and 390 px go to
 * test-results/screenshots/.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR, HARVEST_ARCHIVE_URL } from '../../playwright.config.ts';
import { embeddedSql } from '../helpers/embedded-sql.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { editedTourismLicences } from '../helpers/table-changes.ts';

test.use({ baseURL: HARVEST_ARCHIVE_URL });

const run = promisify(execFile);
const TITLE = 'Licencias de empresas turísticas, por versiones';
const ORIGINAL = fs.readFileSync(fixturePath('files/csv/empresas-servicios-turisticos-mitur-2018-2025.csv'));

/** The edited copy: a column renamed, one row changed, two rows added. */
const editedCopy = () => editedTourismLicences(ORIGINAL);

/** A one-dataset CKAN portal whose CSV the test switches from v1 to v2. */
function startOrigin(): Promise<{ url: string; state: { version: 'v1' | 'v2' }; close(): Promise<void> }> {
  const state = { version: 'v1' as 'v1' | 'v2' };
  const bodies = { v1: ORIGINAL, v2: editedCopy() };
  let base = '';
  const server = http.createServer((request, response) => {
    if (request.url?.startsWith('/api/3/action/package_search')) {
      const start = Number(new URL(request.url, base).searchParams.get('start') ?? 0);
      const dataset = {
        id: 'turismo-versiones',
        name: 'turismo-versiones',
        title: TITLE,
        notes: 'Licencias nuevas y renovaciones por trimestre.',
        organization: { id: 'mitur', name: 'mitur', title: 'Ministerio de Turismo (MITUR)' },
        groups: [],
        tags: [],
        resources: [{ id: 'csv', name: 'Licencias', format: 'CSV', url: `${base}/files/licencias.csv` }],
      };
      response.writeHead(200, { 'Content-Type': 'application/json' });
      return response.end(JSON.stringify({ success: true, result: { count: 1, results: start > 0 ? [] : [dataset] } }));
    }
    if (request.url === '/files/licencias.csv') {
      const body = bodies[state.version];
      response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': body.length, ETag: `"${state.version}"` });
      return response.end(body);
    }
    response.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({ url: base, state, close: () => new Promise((done) => server.close(() => done())) });
    }),
  );
}

/** `npm run <script>` on the harvesting archive's embedded database, beside its running server. */
async function archiveCommand(script: 'harvest' | 'recheck', args: string[]): Promise<string> {
  const env = {
    ...process.env,
    ARCHIVE_DATA_DIR: `${E2E_DATA_DIR}-harvest`,
    DATABASE_URL: '',
    ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true',
    ARCHIVE_CAPTURE_HOST_DELAY_MS: '0',
  };
  const { stdout } = await run(process.execPath, [path.join('scripts', `${script}.ts`), ...args], { env, timeout: 120_000 });
  return stdout;
}

const WIDTHS = [
  { name: 'escritorio', width: 1366, height: 900 },
  { name: 'movil', width: 390, height: 844 },
];

async function screenshots(page: Page): Promise<void> {
  for (const { name, width, height } of WIDTHS) {
    await page.setViewportSize({ width, height });
    await page.locator('[data-versions]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/screenshots/versiones-${name}.png`, fullPage: true });
    await page.locator('[data-versions]').screenshot({ path: `test-results/screenshots/versiones-seccion-${name}.png` });
  }
  await page.setViewportSize({ width: 1366, height: 900 });
}

test('a record changed at its origin lists both versions and what changed', async ({ page }) => {
  test.setTimeout(240_000);
  const origin = await startOrigin();
  try {
    const harvested = await archiveCommand('harvest', [`${origin.url}/api/3/action/package_search`, '--kind', 'ckan', '--source-name', 'Portal de versiones', '--host-delay', '0', '--timeout', '3']);
    expect(harvested).toMatch(/Capturas: 1 hecha\(s\), 0 fallida\(s\), 0 en curso, 0 en cola\./);
    origin.state.version = 'v2';
    const checked = await archiveCommand('recheck', [`${origin.url}/files/licencias.csv`, '--host-delay', '0', '--timeout', '2']);
    expect(checked).toMatch(/nueva versión \(v2\) capturada/);
  } finally {
    await origin.close();
  }

  // The record, found by its title through the public API.
  const found = await page.request.get(`/v2/open-data/alexandrias/getAll?title=${encodeURIComponent('por versiones')}`);
  const [record] = JSON.parse(((await found.json()) as { body: string }).body) as Array<{ id: number; cid: string }>;
  expect(record).toBeDefined();

  // The comparison runs in the background: the page says so until it is done (bounded).
  await page.goto(`/single/src/${encodeURIComponent(record!.cid)}?assetId=${record!.id}`);
  const section = page.getByRole('region', { name: 'Versiones', exact: true });
  const second = section.locator('[data-version="2"]');
  await expect(async () => {
    await page.reload();
    await expect(second.locator('[data-version-changes]')).toHaveAttribute('data-version-changes', 'done', { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });

  // Its citation names the version and the CID it cites, at the record's permanent address: the
  // page's own address names the CID, and moves to the next version's when the file changes again.
  const citation = page.locator('[data-citation]');
  await expect(citation).toContainText('(Versión 2) [Conjunto de datos]');
  await expect(citation).toContainText(`CID: ${record!.cid}.`);
  await expect(citation).toContainText(new RegExp(`en https?://[^ ]+/registro/${record!.id}$`));

  // Times of day are Santo Domingo's (UTC−4, no summer time): said once, in the versions, above the history.
  await expect(section).toContainText('Las horas son de Santo Domingo (UTC−4).');
  await expect(page.getByRole('region', { name: 'Historial de estado' })).not.toContainText('Santo Domingo');
  const stamp = second.locator('time[datetime]');
  const at = new Date((await stamp.getAttribute('datetime'))!);
  const local = new Date(at.getTime() - 4 * 3600_000);
  const two = (value: number) => String(value).padStart(2, '0');
  await expect(stamp).toContainText(`${two(local.getUTCDate())}/${two(local.getUTCMonth() + 1)}/${local.getUTCFullYear()} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}`);

  // Newest first, each with its date, size, CID and download by CID.
  await expect(section.locator('[data-version]')).toHaveCount(2);
  await expect(section.locator('[data-version]').first()).toHaveAttribute('data-version', '2');
  await expect(second).toContainText('actual');
  await expect(second).toContainText(/Capturada el \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}/);
  await expect(second.locator('[data-version-cid]')).toHaveText(record!.cid);
  const first = section.locator('[data-version="1"]');
  const v1Cid = ((await first.locator('[data-version-cid]').textContent()) ?? '').trim();
  expect(v1Cid).not.toBe(record!.cid);
  await expect(first).toContainText('Primera captura del documento.');
  const download = first.getByRole('link', { name: 'Descargar v1' });
  await expect(download).toHaveAttribute('href', new RegExp(`^/ipfs/${v1Cid}\\?download=`));
  // Named with its number: two versions saved side by side keep apart.
  await expect(download).toHaveAttribute('download', /-v1\.[a-z]+$/);
  const v1 = await page.request.get((await download.getAttribute('href'))!);
  expect(Buffer.compare(Buffer.from(await v1.body()), ORIGINAL)).toBe(0);

  // What changed: the counts, then the changed rows as a table.
  await expect(second).toContainText('Columnas añadidas: «Renovaciones».');
  await expect(second).toContainText('Columnas quitadas: «Renovacion».');
  await expect(second).toContainText('Filas añadidas: 2 · cambiadas: 1 · quitadas: 0.');
  const sample = second.locator('[data-version-sample]');
  await expect(sample.getByRole('columnheader', { name: 'Renovaciones' })).toBeVisible();
  await expect(sample.locator('[data-sample-action="added"]')).toHaveCount(2);
  const changed = sample.locator('[data-sample-action="changed"]');
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText('Agencia de Viajes');
  await expect(changed.locator('del')).toHaveText('9');
  await expect(changed.locator('ins')).toHaveText('90');

  // On a phone the table scrolls sideways, says so, and keeps the row's name and action in view;
  // the page itself does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(sample.locator('[data-sample-scroll-hint]')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const nameCell = changed.locator('td').first();
  await expect(nameCell).toContainText('cambiada');
  const scroller = sample.locator('.overflow-x-auto');
  await scroller.scrollIntoViewIfNeeded();
  const scrolled = await scroller.evaluate((element) => {
    element.scrollLeft = element.scrollWidth;
    return element.scrollLeft;
  });
  expect(scrolled).toBeGreaterThan(0);
  // A keyboard reaches it too: a named tab stop, scrolled back with the arrow keys.
  await expect(sample.getByRole('region', { name: 'Muestra de las filas que cambiaron (v2)' })).toHaveAttribute('tabindex', '0');
  await scroller.focus();
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => scroller.evaluate((element) => element.scrollLeft)).toBeLessThan(scrolled);
  const axe = await new AxeBuilder({ page }).include('[data-version-sample]').withRules(['scrollable-region-focusable']).analyze();
  expect(axe.violations).toEqual([]);
  await scroller.evaluate((element) => (element.scrollLeft = element.scrollWidth));
  await expect(nameCell).toBeInViewport();
  const [cellBox, scrollerBox] = [await nameCell.boundingBox(), await scroller.boundingBox()];
  expect(cellBox!.x).toBeGreaterThanOrEqual(scrollerBox!.x - 1);
  expect(cellBox!.x + cellBox!.width).toBeLessThanOrEqual(scrollerBox!.x + scrollerBox!.width + 1);
  // On a desktop the hint is there only if the table is still wider than its box; the sideways
  // scroll back at its start for the screenshots.
  await page.setViewportSize({ width: 1366, height: 900 });
  const fits = await scroller.evaluate((element) => {
    element.scrollLeft = 0;
    return element.scrollWidth - element.clientWidth <= 2;
  });
  await expect(sample.locator('[data-sample-scroll-hint]')).toBeVisible({ visible: !fits });

  await screenshots(page);

  // The same versions in REST.
  const api = await page.request.get(`/v2/open-data/alexandrias/${record!.id}/versions`);
  const versions = JSON.parse(((await api.json()) as { body: string }).body) as Array<{ number: number; cid: string; diffStatus: string }>;
  expect(versions.map((version) => [version.number, version.cid, version.diffStatus])).toEqual([
    [1, v1Cid, 'none'],
    [2, record!.cid, 'done'],
  ]);

  // A new version of another type names both as their badges do, in Spanish: «Otro», not «OTHER».
  const sql = (text: string, values: unknown[]) => embeddedSql(`${E2E_DATA_DIR}-harvest`, text, values);
  const [kept] = (await sql(`select diff from record_versions where alexandria_id = $1 and number = 2`, [record!.id])) as Array<{ diff: unknown }>;
  await sql(`update record_versions set diff = diff || '{"typeBefore": "xlsx", "typeAfter": "other"}'::jsonb where alexandria_id = $1 and number = 2`, [record!.id]);
  try {
    await page.reload();
    await expect(second).toContainText('Formato: XLSX → Otro.');
    // A change of a few bytes, which rounds to the same size, gives the bytes; a version whose bytes
    // are an earlier one's (the file changed back) says which.
    await sql(`update record_versions set diff = diff || '{"sizeBefore": 11675, "sizeAfter": 11702}'::jsonb, cid = $2 where alexandria_id = $1 and number = 2`, [record!.id, v1Cid]);
    await page.reload();
    await expect(second).toContainText('Tamaño: 11,675 → 11,702 bytes.');
    await sql(`update record_versions set diff = diff || '{"sizeBefore": 1456, "sizeAfter": 1456}'::jsonb where alexandria_id = $1 and number = 2`, [record!.id]);
    await page.reload();
    await expect(second).toContainText('Tamaño: el mismo (1.5 KB).');
    await expect(second).toContainText('Los mismos bytes que la v1 (el mismo CID): el archivo volvió a ser como era.');
    await expect(first.locator('[data-version-same-as]')).toHaveCount(0);
  } finally {
    await sql(`update record_versions set diff = $2, cid = $3 where alexandria_id = $1 and number = 2`, [record!.id, JSON.stringify(kept!.diff), record!.cid]);
  }

  // A link shared while v1 was the file leads to the record as it is now.
  const old = await page.request.get(`/single/src/${encodeURIComponent(v1Cid)}?assetId=${record!.id}`, { maxRedirects: 0 });
  expect(old.status()).toBe(301);
  expect(old.headers().location).toBe(`/single/src/${encodeURIComponent(record!.cid)}?assetId=${record!.id}`);
});
