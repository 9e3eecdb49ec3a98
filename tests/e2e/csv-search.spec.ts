import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Wallet } from 'ethers';
import { expect, test } from '@playwright/test';
import { HARVEST_ARCHIVE_URL } from '../../playwright.config.ts';
import { generateLicencesCsv } from '../../bench/csv-search.ts';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { ColumnStore } from '../../src/lib/tabular/columns.ts';
import { decodeText } from '../../src/lib/tabular/decode.ts';
import { TableSearch } from '../../src/lib/tabular/search.ts';
import { parseTable } from '../../src/lib/tabular/table.ts';
import { contribute } from '../helpers/contribute.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { MAIN, part, workbook } from '../helpers/hostile-spreadsheets.ts';
import { signInWithWallet } from '../helpers/wallet.ts';

const CSV = fixturePath('files/csv');
const recordOf = async (name: string) => `/${(await cidOf(await fs.readFile(path.join(CSV, name)))).cid}`;

test('the CSV mini-search reads the code page 850 file with its accents, and a click re-searches', async ({ page }) => {
  await page.goto(await recordOf('salario-minimo-hacienda-2000-2025.csv'));
  const panel = page.getByRole('region', { name: /^Search/ });
  await expect(panel).toBeHidden();
  await page.getByRole('button', { name: 'Buscar en el CSV' }).click();
  await expect(panel).toBeVisible();

  const box = panel.getByRole('searchbox', { name: 'Buscador' });
  await expect(box).toBeEnabled();
  await expect(box).toHaveAttribute('placeholder', 'Buscar en: SECTOR, TAMAÑO EMPRESA, AREAS, MES, AÑO, SALARIO MINIMO');
  await expect(panel.getByText('presione ENTER para buscar')).toBeVisible();
  await expect(panel.locator('[data-csv-count]')).toHaveText(/^2,862 elementos$/);
  await expect(panel.getByRole('columnheader')).toHaveText(['SECTOR', 'TAMAÑO EMPRESA', 'AREAS', 'MES', 'AÑO', 'SALARIO MINIMO']);
  await expect(panel.locator('tbody tr')).toHaveCount(20);

  await box.fill('Zona franca');
  await box.press('Enter');
  await expect(panel.locator('[data-csv-count]')).not.toHaveText(/^2,862/);
  const firstArea = panel.locator('tbody tr').first().getByRole('gridcell').nth(2);
  await expect(firstArea).toHaveText('Zona franca');
  await expect(panel.locator('[data-csv-count]')).toHaveText(/^624 elementos$/);

  // A click on a cell searches for its text.
  const month = panel.locator('tbody tr').first().getByRole('gridcell').nth(3);
  const monthText = (await month.textContent()) ?? '';
  await month.click();
  await expect(box).toHaveValue(monthText);
  await expect(panel.locator('tbody tr').first()).toContainText(monthText);

  await panel.getByRole('button', { name: 'Siguiente' }).click();
  await expect(panel.locator('[data-csv-page]')).toHaveText(/^Página 2 de \d+$/);
  await page.screenshot({ path: 'test-results/screenshots/csv-search.png', fullPage: true });

  await panel.getByRole('button', { name: 'Exit' }).click();
  await expect(panel).toBeHidden();
});

test('the mini-search by keyboard: focus in its box on opening, the results one tab stop, the count announced', async ({ page }) => {
  for (const width of [390, 1366]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(await recordOf('salario-minimo-hacienda-2000-2025.csv'));
    const toggle = page.getByRole('button', { name: 'Buscar en el CSV' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    const panel = page.getByRole('region', { name: /^Search/ });
    const box = panel.getByRole('searchbox', { name: 'Buscador' });
    await expect(box).toBeFocused();
    await expect(box).toBeEnabled();
    await expect(panel).toHaveAttribute('data-csv-state', 'done');
    const announcer = panel.locator('[data-csv-announce]');
    await expect(announcer).toHaveAttribute('aria-live', 'polite');
    await expect(announcer).toHaveText('2,862 elementos');

    // Tab goes from the box into the grid once, and out of it with the next Tab.
    await page.keyboard.press('Tab');
    const cells = panel.locator('tbody td');
    await expect(cells.first()).toBeFocused();
    await expect(panel.locator('tbody td[tabindex="0"]')).toHaveCount(1);
    await expect(panel.getByRole('button')).toHaveText(['Exit', 'Anterior', 'Siguiente']);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const area = panel.locator('tbody tr').nth(1).locator('td').nth(2);
    await expect(area).toBeFocused();
    const value = (await area.textContent()) ?? '';
    await page.keyboard.press('Enter');
    await expect(box).toHaveValue(value);
    await expect(announcer).toHaveText(new RegExp(`^[\\d,]+ elementos para «${value}»$`));
    await expect(panel.locator('tbody tr').first()).toContainText(value);
    await page.keyboard.press('Tab');
    await expect(panel.getByRole('button', { name: 'Siguiente' })).toBeFocused();
    if (width === 390) await page.screenshot({ path: 'test-results/screenshots/csv-search-keyboard-390.png' });
    else await page.screenshot({ path: 'test-results/screenshots/csv-search-keyboard-1366.png' });

    // 'Exit' puts the focus back on the button that opened the panel.
    await panel.getByRole('button', { name: 'Exit' }).click();
    await expect(toggle).toBeFocused();
    // So does Escape: in the box, once it has emptied what was typed.
    await page.keyboard.press('Enter');
    await expect(box).toBeFocused();
    await box.fill('2020');
    await page.keyboard.press('Enter');
    await expect(announcer).toHaveText(/^[\d,]+ elementos para «2020»$/);
    await page.keyboard.press('Escape');
    await expect(panel).toBeVisible();
    await expect(box).toHaveValue('');
    // Emptied, the box shows every row again.
    await expect(announcer).toHaveText('2,862 elementos');
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(toggle).toBeFocused();
  }
});

test('the mini-search skips the junk rows before a header', async ({ page }) => {
  await page.goto(await recordOf('licencias-construccion-mivhed-2022-2025.csv'));
  await page.getByRole('button', { name: 'Buscar en el CSV' }).click();
  const panel = page.getByRole('region', { name: /^Search/ });
  await expect(panel.getByRole('columnheader').first()).toHaveText('Fecha de Emisión');
  await expect(panel.getByRole('columnheader')).toContainText(['Inversión Total']);
});

/**
 * A large file, served by the test on 127.0.0.1 with the gateway's headers: its first 256 KB at
 * once, the rest when the test says so. The record page's panel is pointed at it (the archive's
 * own copy of the fixture is small), so the page, the panel and the worker are the archive's.
 */
async function serveHeldBack(bytes: Buffer) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': String(bytes.length), 'Access-Control-Allow-Origin': '*' });
    response.write(bytes.subarray(0, 256 * 1024));
    void released.then(() => response.end(bytes.subarray(256 * 1024)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/licencias.csv`, release, close: () => server.close() };
}

test('a large file shows its first rows and takes searches while the rest is still loading', async ({ page }) => {
  // 20,000 rows in the shape of the MIVHED fixture, Windows-1252 with ';' (3.3 MB).
  const bytes = generateLicencesCsv(20_000);
  const table = parseTable(decodeText(new Uint8Array(bytes)).text)!;
  const store = new ColumnStore(table.columns.length);
  for (const row of table.rows) store.add(row);
  const santiago = new TableSearch(store, 0.15).search('SANTIAGO', table.columns.map((_, index) => index)).length;
  const served = await serveHeldBack(bytes);
  try {
    await page.goto(await recordOf('licencias-construccion-mivhed-2022-2025.csv'));
    await page.locator('[data-csv-search]').evaluate((panel, url) => (panel.dataset.fileUrl = url), served.url);
    await page.getByRole('button', { name: 'Buscar en el CSV' }).click();
    const panel = page.getByRole('region', { name: /^Search/ });
    const status = panel.getByRole('status');
    const count = panel.locator('[data-csv-count]');

    // The first page is there, the file is not: 'Loading ...' with the rows read so far.
    await expect(panel.locator('tbody tr')).toHaveCount(20);
    await expect(panel.getByRole('columnheader').first()).toHaveText('Fecha de Emisión');
    await expect(panel.getByRole('columnheader')).toContainText(['Año', 'Inversión Total', 'Observaciones']);
    await expect(status).toHaveText(/^Loading \.\.\. [\d,]+ filas leídas$/);
    const partial = Number((await count.textContent())?.replace(/\D/g, ''));
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(20_000);
    await page.screenshot({ path: 'test-results/screenshots/csv-search-loading.png', fullPage: true });

    // A search now answers over the rows read so far...
    const box = panel.getByRole('searchbox', { name: 'Buscador' });
    await box.fill('SANTIAGO');
    await box.press('Enter');
    await expect(panel.locator('tbody tr').first()).toContainText('SANTIAGO');
    await expect(panel.locator('tbody tr').last()).toContainText('SANTIAGO');
    const early = Number((await count.textContent())?.replace(/\D/g, ''));
    expect(early).toBeLessThan(santiago);

    // ...and again once the whole file is in.
    served.release();
    await expect(count).toHaveText(`${santiago.toLocaleString('es-DO')} elementos`);
    await expect(status).toHaveText('');
    await expect(panel).toHaveAttribute('data-csv-state', 'done');
    await box.fill('');
    await box.press('Enter');
    await expect(count).toHaveText('20,000 elementos');
    await expect(panel.locator('[data-csv-page]')).toHaveText('Página 1 de 1000');
    await page.screenshot({ path: 'test-results/screenshots/csv-search-loaded.png', fullPage: true });
  } finally {
    served.release();
    served.close();
  }
});

test('records that are not CSV or spreadsheets have no mini-search', async ({ page }) => {
  const pdf = await cidOf(await fs.readFile(path.resolve(CSV, '../pdf/sisalril-pespj-d1.pdf')));
  await page.goto(`/${pdf.cid}`);
  await expect(page.getByRole('button', { name: 'Buscar en el CSV' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Buscar en la hoja de cálculo' })).toHaveCount(0);
});

test('an XLSX record searches its sheets, one at a time, with the same panel', async ({ page }) => {
  const xlsx = await cidOf(await fs.readFile(path.resolve(CSV, '../spreadsheets/one-primas-netas-seguros-2015-2023.xlsx')));
  await page.goto(`/${xlsx.cid}`);
  await page.getByRole('button', { name: 'Buscar en la hoja de cálculo' }).click();
  const panel = page.getByRole('region', { name: /^Search/ });
  await expect(panel).toHaveAttribute('data-csv-state', 'done');
  const sheet = panel.getByLabel('Hoja');
  const names = await sheet.locator('option').allTextContents();
  expect(names.length).toBeGreaterThan(1);
  await expect(panel.getByRole('grid')).toContainText('Mes');

  await sheet.selectOption({ index: 1 });
  await expect(panel).toHaveAttribute('data-csv-state', 'done');
  const box = panel.getByRole('searchbox', { name: 'Buscador' });
  await box.fill('Enero');
  await box.press('Enter');
  await expect(panel.getByRole('grid')).toContainText('Enero');
  await page.screenshot({ path: 'test-results/screenshots/xlsx-search.png', fullPage: true });
});

test('an ODS record shows its sheet with accents intact', async ({ page }) => {
  const ods = await cidOf(await fs.readFile(path.resolve(CSV, '../spreadsheets/cnss-recaudos-sfs-2003-2023.ods')));
  await page.goto(`/${ods.cid}`);
  await page.getByRole('button', { name: 'Buscar en la hoja de cálculo' }).click();
  const panel = page.getByRole('region', { name: /^Search/ });
  await expect(panel).toHaveAttribute('data-csv-state', 'done');
  await expect(panel.getByRole('searchbox', { name: 'Buscador' })).toHaveAttribute('placeholder', /Buscar en: .*[ÁÉÍÓÚÑáéíóúñ]/);
});

// On the archive that takes the tests' contributions: a record more here would change the counts
// the other specs assert on the main one.
test.describe('on the archive that takes contributions', () => {
  test.use({ baseURL: HARVEST_ARCHIVE_URL });

  test('a sheet shows its cells as the spreadsheet had them, though its CSV defuses formula starts for Excel', async ({ page }) => {
    // A sheet whose cells start like formulas: «-» for "no data", as government tables write it, a
    // phone number with its «+», a formula written as text, and a text that starts with an apostrophe.
    const cells = ['-', '+1 809 555 0101', '=SUMA(B2:B3)', "'=citado"];
    const row = (values: string[]) => `<row>${values.map((value) => `<c t="inlineStr"><is><t>${value.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</t></is></c>`).join('')}</row>`;
    const sheet = part('xl/worksheets/sheet1.xml', `<worksheet ${MAIN}><sheetData>${row(['provincia', 'valor'])}${cells.map((cell, index) => row([`Provincia ${index + 1}`, cell])).join('')}</sheetData></worksheet>`);
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await signInWithWallet(page, signer);
    const { assetCID, assetId } = await contribute(page, {
      title: 'Una hoja con guiones y fórmulas, para la búsqueda en la hoja',
      document: Buffer.from(workbook(sheet)),
      fileName: 'guiones.xlsx',
      docType: 'xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      proofSeed: 21,
      signer,
    });
    // Its sheet's CSV is written in the background, just after the upload.
    const toggle = page.getByRole('button', { name: 'Buscar en la hoja de cálculo' });
    await expect(async () => {
      await page.goto(`/single/src/${assetCID}?assetId=${assetId}`);
      await expect(toggle).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 20_000 });
    await toggle.click();
    const panel = page.getByRole('region', { name: /^Search/ });
    await expect(panel).toHaveAttribute('data-csv-state', 'done');
    const shown = await panel.getByRole('grid').locator('tbody tr').evaluateAll((rows) => rows.map((tr) => tr.lastElementChild?.textContent));
    expect(shown).toEqual(cells);
    // The CSV itself, the file a visitor downloads and opens in a spreadsheet, keeps them defused.
    const csvUrl = await panel.getAttribute('data-file-url');
    expect((await (await page.request.get(csvUrl!)).text()).split(/\r?\n/).slice(1, 5)).toEqual(["Provincia 1,'-", "Provincia 2,'+1 809 555 0101", "Provincia 3,'=SUMA(B2:B3)", "Provincia 4,''=citado"]);
  });
});
