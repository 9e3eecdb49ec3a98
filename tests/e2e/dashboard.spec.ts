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

  await page.screenshot({ path: 'test-results/screenshots/dashboard.png', fullPage: true });
});

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
