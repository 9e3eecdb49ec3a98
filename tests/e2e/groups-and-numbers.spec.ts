/**
 * Issue #20, "numbers that tell the truth", at 390 and 1366 px: the dashboard tells files archived
 * apart from catalogue entries, with the numbers read here from the archive's own database; the
 * group lists order A–Z and narrow by name through their URL (a plain GET form); counts of one
 * are singular; /docs fits a phone. Screenshots (light and dark) go to test-results/screenshots/.
 */
import pg from 'pg';
import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../../playwright.config.ts';
import { embeddedSql } from '../helpers/embedded-sql.ts';

const WIDTHS = [
  { name: 'movil', width: 390, height: 844 },
  { name: 'escritorio', width: 1366, height: 900 },
] as const;

/** One query on the running archive's embedded database, on a connection of its own. */
const sql = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => embeddedSql<T>(E2E_DATA_DIR, text, values);

/** Case, accents and punctuation aside: the letters A–Z compares. */
const letters = (text: string) => text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/[^a-z0-9 ]/g, '');
const count = (value: number) => value.toLocaleString('en-US');

/** The page in the light and the dark theme (the reader's choice, kept in local storage), back to light after. */
async function screenshots(page: Page, name: string, width: (typeof WIDTHS)[number]) {
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((chosen) => localStorage.setItem('archivo-abierto:theme:v1', chosen), theme);
    await page.reload();
    await expect(page.locator('html')).toHaveClass(theme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    await expect(page.locator('.splash')).toBeHidden({ timeout: 2000 });
    await page.screenshot({ path: `test-results/screenshots/numeros-${name}-${width.name}-${theme}.png`, fullPage: true });
  }
  await page.evaluate(() => localStorage.removeItem('archivo-abierto:theme:v1'));
}

for (const width of WIDTHS) {
  test.describe(`at ${width.width} px`, () => {
    test.use({ viewport: { width: width.width, height: width.height } });

    test('the dashboard counts archived files per format apart from catalogue entries', async ({ page }) => {
      const rows = await sql<{ format: string; records: number; archived: number; unprocessed: number }>(`
        select case when type in ('xls', 'xlsx') then 'xlsx' else type::text end as format,
               count(*)::int as records, (count(*) filter (where cid is not null))::int as archived,
               (count(*) filter (where status = 'under_review'))::int as unprocessed
        from alexandrias group by 1`);
      const csv = rows.find((row) => row.format === 'csv')!;
      // The catalogue describes far more CSVs than the archive holds: the point of telling them apart.
      expect(csv.records).toBeGreaterThan(csv.archived);

      await page.goto('/dashboard');
      const deposited = page.getByRole('region', { name: 'Archivos Depositados' });
      await expect(deposited).toContainText('registros del catálogo');
      for (const row of rows) {
        const line = deposited.locator(`tr[data-format="${row.format}"]`);
        await expect(line.locator('[data-archived]')).toHaveText(`${count(row.archived)} ${row.archived === 1 ? 'archivado' : 'archivados'}`);
        await expect(line.locator('[data-records]')).toHaveText(`${count(row.records)} ${row.records === 1 ? 'registro' : 'registros'}`);
        // The spec's tooltip: what is still unprocessed, out of the format's records.
        await expect(line.locator('td[title]')).toHaveAttribute('title', `${count(row.unprocessed)} sin procesar de ${count(row.records)}`);
      }

      const archived = rows.reduce((sum, row) => sum + row.archived, 0);
      const library = page.getByRole('region', { name: 'Biblioteca' });
      await expect(library.locator('[data-library-total]')).toHaveText(`${count(archived)} archivos guardados`);
      await expect(library.locator('li[data-format="csv"]')).toContainText(`${count(csv.archived)} · ${((csv.archived / archived) * 100).toFixed(2)}%`);
      await expect(page.locator('[data-stat="dashboard.archived"]')).toHaveText(count(archived));
      // Nothing widens the page past the screen (a name hidden in a scrolling tab list once did).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width.width);
      await screenshots(page, 'panel', width);
    });

    test('/group/dep lists A–Z on request, and the filter box narrows the list', async ({ page }) => {
      await page.goto('/group/dep?orden=az');
      const list = page.getByRole('list', { name: 'Ministerios o instituciones' });
      const names = await list.getByRole('heading', { level: 2 }).allTextContents();
      expect(names).toHaveLength(10);
      for (let index = 1; index < names.length; index += 1) expect(letters(names[index - 1]!) <= letters(names[index]!)).toBe(true);
      await expect(page.getByLabel('Ordenar', { exact: true })).toHaveValue('az');
      // Paging keeps the order, and so does the canonical link.
      await expect(page.getByRole('navigation', { name: 'Paginación' }).getByRole('link', { name: 'Siguiente' })).toHaveAttribute('href', '/group/dep?orden=az&page=2');
      await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', /\/group\/dep\?orden=az$/);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width.width);
      await screenshots(page, 'instituciones', width);

      const [row] = await sql<{ n: number }>(`
        select count(*)::int as n from departments
        where review_status = 'on_line' and (archivo_unaccent(lower(name)) like '%salud%' or archivo_unaccent(lower(coalesce(acronym, ''))) like '%salud%')`);
      const matching = row?.n ?? 0;
      expect(matching).toBeGreaterThan(1);
      // A plain form: typing and Enter lead to the list's URL with the filter (and the order kept).
      await page.getByLabel('Filtrar por nombre o siglas').fill('SALUD');
      await page.getByLabel('Filtrar por nombre o siglas').press('Enter');
      await expect(page).toHaveURL(/\/group\/dep\?(.*&)?q=SALUD/);
      await expect(page.getByLabel('Ordenar', { exact: true })).toHaveValue('az');
      await expect(page.locator('[data-list-summary]')).toHaveText(`${matching} coinciden con «SALUD», por nombre, de la A a la Z.`);
      const found = await list.getByRole('heading', { level: 2 }).allTextContents();
      expect(found).toHaveLength(Math.min(10, matching));
      for (const name of found) expect(letters(name)).toContain('salud');
      await page.getByRole('link', { name: 'Quitar filtro y orden' }).click();
      await expect(page).toHaveURL(/\/group\/dep$/);
    });

    test('a count of one is singular', async ({ page }) => {
      // An institution with exactly one record, found by its whole name (which no other name contains).
      const [single] = await sql<{ name: string }>(`
        select d.name from departments d join alexandrias a on a.department_id = d.id
        where d.review_status = 'on_line'
          and not exists (select 1 from departments o where o.id <> d.id and o.review_status = 'on_line'
                          and archivo_unaccent(lower(o.name)) like '%' || archivo_unaccent(lower(d.name)) || '%')
        group by d.id, d.name having count(*) = 1 order by d.id limit 1`);
      expect(single).toBeDefined();
      await page.goto(`/group/dep?q=${encodeURIComponent(single!.name)}`);
      await expect(page.locator('[data-list-summary]')).toHaveText(`1 coincide con «${single!.name}», los actualizados más recientemente primero.`);
      await expect(page.locator('[data-group-records]')).toHaveText('1 registro');
    });

    test('/docs fits the screen and shows code, not backticks', async ({ page }) => {
      await page.goto('/docs');
      await expect(page.getByRole('heading', { level: 1, name: 'API abierta del archivo' })).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await page.locator('main').innerText()).not.toContain('`');
      await expect(page.locator('main code', { hasText: /^asset$/ })).toHaveCount(1);
    });
  });
}
