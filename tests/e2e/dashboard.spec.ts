import { expect, test } from '@playwright/test';
import { BROKEN_ARCHIVE_URL } from '../../playwright.config.ts';

test('the dashboard of the seeded archive shows the real catalogue', async ({ page }) => {
  const response = await page.goto('/dashboard');
  expect(response?.status()).toBe(200);
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.getByRole('heading', { level: 1, name: 'El archivo en cifras' })).toBeVisible();
  await expect(page.getByText('Archivo Abierto está en beta.')).toBeVisible();

  // 1,065 harvested datasets plus the 11 real files archived with their CIDs.
  await expect(page.locator('[data-stat="dashboard.records"]')).toHaveText(/^1[.,]076$/);
  await expect(page.locator('[data-stat="dashboard.archived"]')).toHaveText('11');

  const deposited = page.getByRole('region', { name: 'Archivos Depositados' });
  await expect(deposited.getByRole('rowheader')).toHaveText(['PDF', 'CSV', 'XLSX', 'ODS', 'Otros']);
  // Both seeded PDFs are online, and no harvested dataset has PDF as its main format but one.
  await expect(deposited.locator('tr[data-format="pdf"]')).toContainText('66.67%');

  const imports = page.getByRole('region', { name: 'Últimas importaciones' });
  await expect(imports.getByText(/^1[.,]065 documentos importados$/)).toBeVisible();
  await expect(imports.getByText('Portal de Datos Abiertos de la República Dominicana')).toBeVisible();
  // The link to an import's newest file says which file it opens.
  await expect(imports.getByRole('link', { name: /^ver un archivo: \S/ }).first()).toBeVisible();

  // The library's doughnut: each format its own hue, named beside its colour in the list under it.
  const library = page.getByRole('region', { name: 'Biblioteca' });
  const chart = JSON.parse((await library.locator('canvas[data-format-chart]').getAttribute('data-format-chart'))!) as { labels: string[]; colours: string[] };
  expect(chart.labels).toEqual(['PDF', 'CSV', 'XLSX', 'ODS', 'Otros']);
  const hues = chart.colours.slice(0, 4).map(hueOf);
  for (const [index, hue] of hues.entries()) {
    for (const other of hues.slice(index + 1)) expect(Math.min(Math.abs(hue - other), 360 - Math.abs(hue - other)), `${chart.colours.join(' ')}`).toBeGreaterThan(40);
  }
  const swatches = library.locator('li[data-format] [data-swatch]');
  await expect(swatches).toHaveCount(5);
  // Each dot the colour of its slice.
  const painted = await swatches.evaluateAll((dots) => dots.map((dot) => getComputedStyle(dot).backgroundColor));
  expect(painted).toEqual(chart.colours.map((hex) => `rgb(${[1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join(', ')})`));

  await page.screenshot({ path: 'test-results/screenshots/dashboard.png', fullPage: true });
});

/** The hue of a `#rrggbb` colour, in degrees. */
function hueOf(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const range = max - Math.min(r, g, b);
  if (range === 0) return 0;
  const sector = max === r ? ((g - b) / range + 6) % 6 : max === g ? (b - r) / range + 2 : (r - g) / range + 4;
  return sector * 60;
}

test('the home page leads to the dashboard, and an unknown path is a real 404', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/dashboard$/);
  const missing = await page.goto('/no-existe');
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Página no encontrada' })).toBeVisible();
});

test('when the database is out of reach, the visitor gets the error page, not a stack trace', async ({ page }) => {
  const response = await page.goto(`${BROKEN_ARCHIVE_URL}/dashboard`);
  expect(response?.status()).toBe(500);
  await expect(page.getByRole('alert')).toContainText("There's an Error, please refresh this page ...");
  await expect(page.locator('body')).not.toContainText('ECONNREFUSED');
  await page.screenshot({ path: 'test-results/screenshots/error.png' });
});
