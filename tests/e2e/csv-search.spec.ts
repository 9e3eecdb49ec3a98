import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';

const CSV = path.resolve(import.meta.dirname, '../../../shared/fixtures/files/csv');
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
  const firstArea = panel.locator('tbody tr').first().getByRole('button').nth(2);
  await expect(firstArea).toHaveText('Zona franca');
  await expect(panel.locator('[data-csv-count]')).toHaveText(/^624 elementos$/);

  // A click on a cell searches for its text.
  const month = panel.locator('tbody tr').first().getByRole('button').nth(3);
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

test('the mini-search skips the junk rows before a header', async ({ page }) => {
  await page.goto(await recordOf('licencias-construccion-mivhed-2022-2025.csv'));
  await page.getByRole('button', { name: 'Buscar en el CSV' }).click();
  const panel = page.getByRole('region', { name: /^Search/ });
  await expect(panel.getByRole('columnheader').first()).toHaveText('Fecha de Emisión');
  await expect(panel.getByRole('columnheader')).toContainText(['Inversión Total']);
});

test('records that are not CSV have no mini-search', async ({ page }) => {
  const pdf = await cidOf(await fs.readFile(path.resolve(CSV, '../pdf/sisalril-pespj-d1.pdf')));
  await page.goto(`/${pdf.cid}`);
  await expect(page.getByRole('button', { name: 'Buscar en el CSV' })).toHaveCount(0);
});
