/**
 * /buscar in Chromium (issue #7): a shareable, server-rendered results page with facets that
 * narrow the results, pagination, typo correction, and the empty and no-result states.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('search by an acronym, narrow with a facet, and page through the results', async ({ page }) => {
  await page.goto('/buscar');
  await expect(page.getByRole('heading', { level: 1, name: 'Buscar en el archivo' })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Buscar documentos' }).fill('MINERD');
  await page.getByRole('button', { name: 'Buscar', exact: true }).click();
  await expect(page).toHaveURL(/\/buscar\?q=MINERD$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Resultados de «MINERD»' })).toBeVisible();
  await expect(page.getByRole('table').getByRole('link', { name: /Ministerio de Educación/ }).first()).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/search-results.png', fullPage: true });

  // An archived record's action is named after it, with no space before the colon.
  await page.goto('/buscar?q=aseguradoras');
  await expect(page.getByRole('table').getByRole('link', { name: 'Ver archivo: Compañías aseguradoras en operación, 1995-2022', exact: true })).toHaveAttribute('href', /^\/single\/src\/baf/);

  await page.goto('/buscar?q=salud');
  const total = Number((await page.locator('[data-results-count]').textContent())!.replace(/\D/g, ''));
  expect(total).toBeGreaterThan(10);
  const csv = page.locator('[data-facet="format"] a').filter({ hasText: 'CSV' });
  const csvCount = Number((await csv.locator('span').last().textContent())!.replace(/\D/g, ''));
  await csv.click();
  await expect(page).toHaveURL(/format=csv/);
  await expect(page.locator('[data-results-count]')).toHaveText(`${csvCount.toLocaleString('en-US')} resultados`);
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
  await expect(page.locator('[data-facet="format"] a[aria-current="true"]')).toContainText('CSV');

  await page.getByRole('navigation', { name: /paginaci/i }).getByRole('link', { name: 'Página 2' }).click();
  await expect(page).toHaveURL(/page=2/);
  await expect(page.getByRole('table').getByRole('row')).not.toHaveCount(0);
  await page.getByRole('link', { name: 'Quitar filtros' }).click();
  await expect(page).toHaveURL(/\/buscar\?q=salud$/);
});

test('filters of a hand-edited address that name nothing are said to be ignored, not silently dropped', async ({ page }) => {
  await page.goto('/buscar?q=salud');
  const all = await page.locator('[data-results-count]').textContent();
  await expect(page.locator('[data-ignored-filters]')).toHaveCount(0);
  await page.goto('/buscar?q=salud&format=zzz&dep=abc&cat=1.5&status=');
  await expect(page.locator('[data-ignored-filters]')).toHaveText('Filtros de la dirección que no se entienden, y que no se aplican: format=zzz, dep=abc, cat=1.5.');
  await expect(page.locator('[data-results-count]')).toHaveText(all!);
  await page.screenshot({ path: 'test-results/screenshots/search-ignored-filters.png' });
});

test('a filter that names nothing here is still shown, counted 0, and can be removed', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto('/buscar?q=salud&dep=99999');
  await expect(page.locator('[data-results-count]')).toHaveText('0 resultados');
  const chip = page.locator('[data-applied-filters]').getByRole('link', { name: 'Quitar el filtro Ministerios o instituciones: n.º 99999, sin registros aquí' });
  await expect(chip).toBeVisible();
  await page.locator('[data-filters-summary]').click();
  await expect(page.locator('[data-facet="dep"] [aria-current="true"]')).toContainText('n.º 99999, sin registros aquí');
  await page.screenshot({ path: 'test-results/screenshots/search-unlisted-filter.png', fullPage: true });
  await chip.click();
  await expect(page).toHaveURL(/\/buscar\?q=salud$/);
  await expect(page.locator('[data-results-count]')).not.toHaveText('0 resultados');

  // A real institution, with nothing for these words: by its name, not its number.
  const first = page.locator('[data-facet="dep"] a').first();
  const dep = new URL(await first.getAttribute('href') ?? '', 'http://x').searchParams.get('dep');
  // Its whole name, as a screen reader reads it (a long one is cut on screen).
  const name = (await first.locator('.sr-only').count()) > 0 ? (await first.locator('.sr-only').textContent())!.trim() : (await first.locator('span').first().textContent())!.trim();
  await page.goto(`/buscar?q=qqxzzyw&dep=${dep}`);
  await expect(page.locator('[data-results-count]')).toHaveText('0 resultados');
  await expect(page.locator('[data-applied-filters]').getByRole('link', { name: `Quitar el filtro Ministerios o instituciones: ${name}` })).toBeVisible();
});

test('a typo is corrected, and a query that matches nothing says so', async ({ page }) => {
  await page.goto('/buscar?q=presupesto');
  await expect(page.locator('[data-corrected]')).toHaveText('No hubo resultados para «presupesto». Mostrando resultados de «presupuesto».');
  await expect(page.getByRole('table')).toBeVisible();

  await page.goto('/buscar?q=zzqxv%20wwkk');
  await expect(page.getByText('Results not found')).toBeVisible();
  // Nothing to filter: no empty filter column pushing the message aside.
  await expect(page.locator('[data-filters]')).toHaveCount(0);
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
  await expect(page.locator('[data-none-hint]')).toHaveText('Pruebe con otras palabras, sin filtros, o con el nombre o las siglas de la institución.');

  // Words too common to search alone are told as such.
  await page.goto('/buscar?q=de%20la');
  await expect(page.locator('[data-none-hint]')).toHaveText(
    'Las palabras de «de la» son tan comunes que el buscador no las busca solas: añada una que diga de qué trata el documento (un tema, un año, una institución).',
  );
});

test('a query pasted past the box\'s limit is cut at a space, and still finds what its words find', async ({ page }) => {
  // 34 × «salud »: the 200th character is inside the last word, whose half («salu») would find nothing.
  await page.goto(`/buscar?q=${encodeURIComponent('salud '.repeat(34))}`);
  await expect(page.getByRole('table')).toBeVisible();
  await expect(page.getByRole('searchbox')).toHaveValue('salud '.repeat(33).trim());
});

/** What the format facet is called (`results.facet.type`). */
const FORMAT_FACET = 'Formato';

test('on a phone the count and the first results come before the filters, which fold; wide, they stay open beside', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/buscar?q=salud&format=csv');
  const filters = page.locator('[data-filters]');
  const count = page.locator('[data-results-count]');
  await expect(filters).not.toHaveAttribute('open');
  await expect(page.locator('[data-facet="format"]')).toBeHidden();
  // The summary says a filter is on; the count and the first result sit above it, within the first screen.
  await expect(page.locator('[data-filters-summary]')).toHaveText(/^\s*Filtrar · 1 activo\s*$/);
  const countBox = (await count.boundingBox())!;
  const firstResult = (await page.getByRole('table').getByRole('link').first().boundingBox())!;
  const summaryBox = (await page.locator('[data-filters-summary]').boundingBox())!;
  expect(countBox.y).toBeLessThan(summaryBox.y);
  expect(firstResult.y).toBeLessThan(summaryBox.y);
  expect(firstResult.y + firstResult.height).toBeLessThan(844);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // The filter applied is named beside the count, not only in the folded list below the results.
  const applied = page.locator('[data-applied-filters]');
  const chip = applied.getByRole('link', { name: `Quitar el filtro ${FORMAT_FACET}: CSV` });
  await expect(chip).toBeVisible();
  expect((await chip.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  expect((await applied.boundingBox())!.y).toBeLessThan(firstResult.y);
  await page.screenshot({ path: 'test-results/screenshots/search-results-phone.png', fullPage: true });
  // A link beside the count leads to the folded filters, and opens them.
  const toFilters = page.getByRole('link', { name: 'Filtrar resultados', exact: true });
  expect((await toFilters.boundingBox())!.y).toBeLessThan(firstResult.y);
  await toFilters.click();
  await expect(filters).toHaveAttribute('open', '');
  await expect(page.locator('[data-facet="format"]')).toBeInViewport();
  await page.locator('[data-filters-summary]').click();
  await expect(filters).not.toHaveAttribute('open');
  // Opened by keyboard, the filters work as on a wide screen.
  await page.locator('[data-filters-summary]').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-facet="format"] a[aria-current="true"]')).toContainText('CSV');

  await page.setViewportSize({ width: 1366, height: 900 });
  await expect(filters).toHaveAttribute('open');
  await expect(page.locator('[data-filters-summary]')).toBeHidden();
  const facetBox = (await page.locator('[data-facet="format"]').boundingBox())!;
  expect(facetBox.x).toBeLessThan((await count.boundingBox())!.x);
  // Wide, the open sidebar says it: no second list.
  await expect(applied).toBeHidden();

  // One tap on a phone removes the filter.
  await page.setViewportSize({ width: 390, height: 844 });
  await chip.click();
  await expect(page).toHaveURL(/\/buscar\?q=salud$/);
  await expect(page.locator('[data-applied-filters]')).toHaveCount(0);
});

test('a CID pasted in opens its record; a long word never widens the page on a phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // The citation of a record hands its reader the CID of the file.
  const { cid } = await cidOf(await fs.readFile(path.join(fixturePath('files/csv'), 'salario-minimo-hacienda-2000-2025.csv')));
  await page.goto(`/buscar?q=${cid}`);
  await expect(page).toHaveURL(new RegExp(`/${cid}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Salario');

  // A CID the archive does not hold is searched as text: nothing found, and the page keeps its width.
  const unknown = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy';
  await page.goto(`/buscar?q=${unknown}`);
  await expect(page.getByText('Results not found')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('filters without a word list every record they keep: all the CSVs, then those of one institution, paged', async ({ page }) => {
  await page.goto('/buscar?format=csv');
  const count = page.locator('[data-results-count]');
  await expect(count).toHaveText(/^[\d,.]+ resultados?$/);
  const total = Number((await count.textContent())!.replace(/\D/g, ''));
  expect(total).toBeGreaterThan(100);
  await expect(page.locator('[data-facet="format"] a[aria-current="true"]')).toContainText('CSV');
  await expect(page.getByRole('navigation', { name: 'Paginación' })).toBeVisible();
  // One institution's among them: fewer, and the filter says which.
  const institution = page.locator('[data-facet="dep"] a').first();
  const narrowedTo = Number((await institution.locator('span').last().textContent())!.replace(/\D/g, ''));
  await institution.click();
  await expect(page).toHaveURL(/format=csv/);
  await expect(page).toHaveURL(/dep=\d+/);
  await expect(count).toHaveText(new RegExp(`^${narrowedTo} resultados?$`));
  // Removing the filters leads back to the box that asks for a word.
  await page.getByRole('link', { name: 'Quitar filtros' }).click();
  await expect(page.getByText(/Escriba lo que busca/)).toBeVisible();
});
