/**
 * Every record is a page (issue #20), at 390 px (a phone) and 1366 px (a laptop), against the
 * seeded catalogue: a record the archive holds no file of opens from a collection and from the
 * search modal (by keyboard), at `/registro/{id}`, with "Todavía no archivado", "Ver en la
 * fuente", what the catalogue says of it and how to cite it; a record with a file shows its
 * actions above the fold on a phone; no table of a record page scrolls sideways; a record harvested
 * from the local portal says how often it is updated, whom to write to and the period it covers.
 * Screenshots of both records, both widths, light and dark theme, go to test-results/screenshots/.
 */
import { expect, test, type Page } from '@playwright/test';
import pg from 'pg';
import { E2E_DATA_DIR, HARVEST_ARCHIVE_URL } from '../../playwright.config.ts';
import { FIELD_MAX } from '../../src/lib/domain/upload.ts';
import { embeddedSql } from '../helpers/embedded-sql.ts';
import { startLocalPortal } from '../helpers/portal/index.ts';
import { signInWithWallet } from '../helpers/wallet.ts';

const PORTAL = 'Portal de Datos Abiertos de la República Dominicana';
/** One query on the main archive's embedded database, on a connection of its own. */
const sql = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => embeddedSql<T>(E2E_DATA_DIR, text, values);
const SIZES = [
  { name: 'movil', width: 390, height: 844 },
  { name: 'escritorio', width: 1366, height: 900 },
] as const;

/** Screenshots of the page in the light theme, then the dark one (the reader's system preference). */
async function screenshots(page: Page, name: string): Promise<void> {
  await expect(page.locator('.splash')).toBeHidden();
  await page.screenshot({ path: `test-results/screenshots/${name}-claro.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload();
  await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  await expect(page.locator('.splash')).toBeHidden();
  await page.screenshot({ path: `test-results/screenshots/${name}-oscuro.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Neither the page nor any table of it is wider than its box: nothing hides past the right edge. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    tables: [...document.querySelectorAll('main table')]
      .filter((table) => !table.closest('[data-version-sample]'))
      .map((table) => {
        const box = table.getBoundingClientRect();
        const parent = table.parentElement!.getBoundingClientRect();
        return { table: table.getAttribute('data-history') !== null ? 'historial' : table.getAttribute('data-files') !== null ? 'archivos' : 'otra', over: Math.round(box.right - parent.right), scroll: table.scrollWidth - table.clientWidth };
      }),
  }));
  expect(overflow.page).toBeLessThanOrEqual(0);
  for (const table of overflow.tables) {
    expect(table.over, `${table.table} sale de su caja`).toBeLessThanOrEqual(0);
    expect(table.scroll, `${table.table} se desplaza de lado`).toBeLessThanOrEqual(0);
  }
}

/** The record page's promises for a record without a file, whichever way it was reached. */
async function expectRecordWithoutFile(page: Page, title: string): Promise<number> {
  await expect(page).toHaveURL(/\/registro\/\d+$/);
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(page.locator('[data-not-archived]')).toContainText('Todavía no archivado');
  await expect(page.locator('[data-storage-status]')).toHaveText('Todavía no archivado');
  const panel = page.getByRole('complementary', { name: 'Dataset' });
  await expect(panel.getByRole('link', { name: /^Ver en la fuente/ })).toHaveAttribute('href', /^https:\/\/datos\.gob\.do\/dataset\//);
  // Nothing of a file: no CID, no download, no files table.
  await expect(panel.getByRole('link', { name: 'Descargar' })).toHaveCount(0);
  await expect(panel.getByRole('button', { name: /^Buscar en/ })).toHaveCount(0);
  await expect(page.locator('[data-cid]')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Archivos cargados' })).toHaveCount(0);
  // What the catalogue says: the institution, the category, the declared formats.
  await expect(page.locator('[data-declared-formats]')).not.toBeEmpty();
  // Its description, shown nowhere before this page: the seed's names the institution and the formats.
  const institution = ((await page.locator('dt:text-is("Institución") + dd').textContent()) ?? '').trim();
  expect(institution).not.toBe('');
  // With the article Spanish puts before it ("por el Ministerio…", "por la Oficina…").
  const named = institution.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await expect(page.locator('[data-record-description]')).toContainText(new RegExp(`Conjunto de datos publicado por (el|la|los|las) ${named} en el Portal de Datos Abiertos`));
  // How to cite it: its own address, no date of the original ("s. f."), no CID.
  const citation = page.locator('[data-citation]');
  await expect(citation).toContainText(`${title} [Conjunto de datos]. Archivo Abierto.`);
  await expect(citation).toContainText('(s. f.)');
  await expect(citation).toContainText(`/registro/${id}`);
  await expect(citation).not.toContainText('CID');
  const origin = new URL(page.url()).origin;
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', `${origin}/registro/${id}`);
  const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
  expect(jsonLd).toMatchObject({ '@type': 'Dataset', name: title, url: `${origin}/registro/${id}` });
  expect(jsonLd).not.toHaveProperty('distribution');
  return id;
}

for (const size of SIZES) {
  test.describe(`${size.width} px`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('a record without a file opens from its collection, with its page', async ({ page }) => {
      await page.goto('/group/src');
      await page.getByTitle(PORTAL).getByRole('link').click();
      const table = page.getByRole('table', { name: `Registros de ${PORTAL}` });
      // Every name is a link now; a record without a file says so in its title. (The newest rows may
      // be files other specs uploaded to this source: take the first record the archive lacks.)
      const name = table.locator('tbody tr td:first-child a[href^="/registro/"]').first();
      await expect(name).toHaveAttribute('href', /^\/registro\/\d+$/);
      await expect(name).toHaveAttribute('title', 'archivo aún no archivado');
      // The whole name: a table row has room for it.
      const title = ((await name.textContent()) ?? '').trim();
      expect(title).not.toMatch(/…$/);
      // On a phone the collection's rows stack: the whole table fits the screen.
      await expectNoSidewaysScroll(page);
      await expect(page.locator('.splash')).toBeHidden();
      await page.screenshot({ path: `test-results/screenshots/coleccion-enlaces-${size.name}.png`, fullPage: true });
      await name.click();
      await expectRecordWithoutFile(page, title);
      await expectNoSidewaysScroll(page);
      if (size.width < 576) {
        // The source's address right under the title, on the first screen.
        const box = await page.getByRole('link', { name: /^Ver en la fuente/ }).boundingBox();
        expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
      }
      await screenshots(page, `registro-sin-archivo-${size.name}`);
    });

    test('a record without a file opens from the search modal, by keyboard', async ({ page }) => {
      await page.goto('/dashboard');
      await expect(page.locator('.splash')).toBeHidden();
      await page.getByRole('banner').getByRole('link', { name: 'Buscar', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Buscar en el archivo' });
      const box = dialog.getByRole('searchbox', { name: 'Buscar' });
      await box.fill('presupuesto');
      await box.press('Enter');
      const results = dialog.getByRole('region', { name: 'Buscador', exact: true }).getByRole('list');
      const result = results.locator('a[href^="/registro/"]').first();
      await expect(result).toBeVisible();
      // No result is a dead div any more: each is a link.
      await expect(results.locator('[aria-disabled]')).toHaveCount(0);
      const title = ((await result.locator('span').first().textContent()) ?? '').trim();
      // Reached with Tab from the search box, opened with Enter.
      await box.focus();
      let focused = false;
      for (let step = 0; step < 10 && !focused; step++) {
        await page.keyboard.press('Tab');
        focused = await result.evaluate((element) => element === document.activeElement);
      }
      expect(focused).toBe(true);
      await page.keyboard.press('Enter');
      await expectRecordWithoutFile(page, title);
    });

    test('a title and an institution name as long as the archive allows, in one unbroken word, stay within the screen', async ({ page }) => {
      // What a catalogue (or a contributor) may write at most (`FIELD_MAX`), with no space to wrap at.
      const [department] = await sql<{ id: number }>(`insert into departments (name, review_status) values ($1, 'on_line') returning id`, [`Institucion${'I'.repeat(FIELD_MAX.name - 11)}`]);
      const [record] = await sql<{ id: number }>(`insert into alexandrias (title, type, status, department_id) values ($1, 'csv', 'on_line', $2) returning id`, [
        `Registro${'R'.repeat(FIELD_MAX.title - 8)}`,
        department!.id,
      ]);
      try {
        await page.goto(`/collection/dep/${department!.id}`);
        await expect(page.getByRole('heading', { level: 1 })).toContainText('IIII');
        await expect(page.locator(`tr[data-record="${record!.id}"]`)).toBeVisible();
        await expectNoSidewaysScroll(page);
        await page.goto(`/registro/${record!.id}`);
        await expect(page.getByRole('heading', { level: 1 })).toContainText('RRRR');
        await expectNoSidewaysScroll(page);
        await expect(page.locator('.splash')).toBeHidden();
        await page.screenshot({ path: `test-results/screenshots/registro-palabra-larga-${size.name}.png`, fullPage: true });
        // In a list of records from every institution, the institution's column too.
        await page.goto(`/group/dep?q=Institucion${'I'.repeat(20)}`);
        await expect(page.getByRole('heading', { level: 2, name: /^InstitucionI+…?$/ })).toBeVisible();
        await expectNoSidewaysScroll(page);
        await page.goto(`/buscar?dep=${department!.id}`);
        await expect(page.locator(`a[href="/registro/${record!.id}"]`)).toBeVisible();
        await expectNoSidewaysScroll(page);
      } finally {
        await sql(`delete from alexandrias where id = $1`, [record!.id]);
        await sql(`delete from departments where id = $1`, [department!.id]);
      }
    });

    test('a record with a file: its actions first on a phone, its tables within the screen', async ({ page, request }) => {
      const [csv] = await (await request.get('/alexandrias?type=csv&_limit=1&status=on_line')).json();
      // Its page by id leads to its page by CID, the canonical one.
      const byId = await request.get(`/registro/${csv.id}`, { maxRedirects: 0 });
      expect(byId.status()).toBe(302);
      expect(byId.headers().location).toBe(`/single/src/${csv.cid}?assetId=${csv.id}`);
      await page.goto(`/registro/${csv.id}`);
      await expect(page).toHaveURL(`/single/src/${csv.cid}?assetId=${csv.id}`);

      const title = page.getByRole('heading', { level: 1 });
      await expect(title).toHaveText(csv.title);
      const panel = page.getByRole('complementary', { name: 'Dataset' });
      const download = panel.getByRole('link', { name: 'Descargar' });
      const search = panel.getByRole('button', { name: 'Buscar en el CSV' });
      await expect(download).toBeVisible();
      await expect(search).toBeVisible();
      const titleBox = (await title.boundingBox())!;
      const downloadBox = (await download.boundingBox())!;
      const searchBox = (await search.boundingBox())!;
      if (size.width < 576) {
        // Right after the title, above the fold.
        for (const box of [downloadBox, searchBox]) {
          expect(box.y).toBeGreaterThan(titleBox.y);
          expect(box.y + box.height).toBeLessThanOrEqual(size.height);
        }
        // Before the description, the facts and the history.
        const description = (await page.locator('[data-record-description]').boundingBox())!;
        expect(description.y).toBeGreaterThan(downloadBox.y);
      } else {
        // The laptop layout: the panel is the column beside the title.
        expect(downloadBox.x).toBeGreaterThan(titleBox.x + titleBox.width);
        expect(downloadBox.y).toBeLessThan(size.height);
      }
      await expect(page.locator('[data-record-description]')).toHaveText(csv.description);
      await expect(page.locator('[data-not-archived]')).toHaveCount(0);
      await expect(page.locator('[data-citation]')).toContainText(`CID: ${csv.cid}.`);
      await expect(page.getByRole('region', { name: 'Archivos cargados' }).getByRole('row')).not.toHaveCount(0);
      await expect(page.locator('[data-history]')).toBeVisible();
      // No versions above it: the history says whose its hours are.
      await expect(page.getByRole('region', { name: 'Historial de estado' })).toContainText('Las horas son de Santo Domingo (UTC−4).');
      await expectNoSidewaysScroll(page);
      await screenshots(page, `registro-con-archivo-${size.name}`);
    });
  });
}

// On the archive that harvests (playwright.config.ts): its records would change the main one's counts.
test.describe('a harvested record', () => {
  test.use({ baseURL: HARVEST_ARCHIVE_URL });

  test('shows its update frequency, its publisher contact as a mailto link and its temporal coverage, and omits what the catalogue does not say', async ({ page }) => {
    test.setTimeout(180_000);
    const portal = await startLocalPortal();
    try {
      // The dragas package ("Nomina 2022") states no coverage in the real sample: given one, as ckanext-dcat's extras do.
      const dragas = portal.packages.find((pkg) => pkg.name === 'conjunto-de-datos')!;
      // And its languages (kept in the order of their codes) and area, as ckanext-dcat's extras state them.
      dragas.extras = [
        ...((dragas.extras as unknown[]) ?? []),
        { key: 'temporal_start', value: '2022-01-01' },
        { key: 'temporal_end', value: '2022-12-31' },
        { key: 'language', value: 'es,en' },
        { key: 'spatial_uri', value: 'http://publications.europa.eu/resource/authority/country/DOM' },
      ];
      // Its licence given by address alone, as DCAT catalogues give it.
      dragas.license_title = null;
      // CONALECHE's XLS offered as a service instead (its declared format `API`).
      const conaleche = portal.packages.find((pkg) => pkg.name === 'nominas-personal-institucion')!;
      const service = conaleche.resources[0]! as Record<string, unknown>;
      service.format = 'API';
      await signInWithWallet(page);
      const created = await page.request.post('/v2/ops/harvest-sources', { data: { url: portal.urls.ckan, kind: 'ckan', name: 'Portal de citas' } });
      expect(created.status()).toBe(201);
      const { id, sourceId } = ((await created.json()) as { body: { id: number; sourceId: number } }).body;
      // A JSON body: a bodiless POST reads as a form, which the archive takes only from its own pages.
      expect((await page.request.post(`/v2/ops/harvest-sources/${id}/run`, { data: {} })).status()).toBe(202);
      const lastRun = async () => ((await (await page.request.get(`/v2/ops/harvest-sources/${id}`)).json()) as { body: { lastRun: { status: string } | null } }).body.lastRun?.status;
      await expect.poll(lastRun, { timeout: 120_000 }).toBe('done');

      // The source's list, filtered (22 records do not fit one page).
      const listed = (name: string) => page.goto(`/collection/src/${sourceId}?q=${encodeURIComponent(name)}`);
      await listed('Nomina 2022');
      await page.locator('tr[data-record]').getByRole('link', { name: 'Nomina 2022', exact: true }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Nomina 2022');
      const card = page.locator('[data-citation-card]');
      // The licence reads by its name, not as a cut address; the address is the link.
      await expect(card.locator('[data-license]').getByRole('link', { name: 'Open Database License (ODbL)' })).toHaveAttribute('href', 'http://www.opendefinition.org/licenses/odc-odbl');
      await expect(card.locator('dt:text-is("Contacto del editor") + dd')).toContainText('Oficina de Acceso a la Información');
      await expect(card.getByRole('link', { name: 'datosabiertos@dragas.mil.do' })).toHaveAttribute('href', 'mailto:datosabiertos@dragas.mil.do');
      await expect(card.locator('dt:text-is("Cobertura temporal") + dd')).toHaveText('Año 2022');
      await expect(card.locator('dt:text-is("Idioma de los datos") + dd')).toHaveText('Inglés, español');
      await expect(card.getByRole('link', { name: 'República Dominicana' })).toHaveAttribute('href', 'http://publications.europa.eu/resource/authority/country/DOM');
      const dataset = async () => JSON.parse((await page.locator('script[type="application/ld+json"]').first().textContent())!) as Record<string, unknown>;
      expect(await dataset()).toMatchObject({ inLanguage: ['en', 'es'], spatialCoverage: { '@type': 'Place', name: 'República Dominicana' } });
      await card.screenshot({ path: 'test-results/screenshots/registro-cosechado-cita.png' });
      // The real package states no frequency: nothing is shown for it, not an empty line.
      await expect(card.getByText('Frecuencia de actualización')).toHaveCount(0);

      // Baní's "Periodicidad: Mensual", typed by hand on datos.gob.do.
      await listed('Nómina Baní 2018');
      await page.locator('tr[data-record]').filter({ hasText: 'Nómina Baní 2018' }).getByRole('link').first().click();
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Nómina Baní 2018');
      await expect(card.locator('dt:text-is("Frecuencia de actualización") + dd')).toHaveText('Mensual');
      await expect(card.getByRole('link', { name: 'danyelysantana@bani.gob.do' })).toHaveAttribute('href', 'mailto:danyelysantana@bani.gob.do');
      await expect(card.getByText('Cobertura temporal')).toHaveCount(0);
      // Its catalogue declares no language nor area: the page and its Dataset state none either.
      await expect(card.getByText('Idioma de los datos')).toHaveCount(0);
      await expect(card.getByText('Cobertura geográfica')).toHaveCount(0);
      expect(await dataset()).not.toHaveProperty('inLanguage');
      expect(await dataset()).not.toHaveProperty('spatialCoverage');
      await expectNoSidewaysScroll(page);

      // The service: a description with its address, never asked for a file.
      await listed('Nomina de Empleados, CONALECHE 2026.xls');
      await page.locator('tr[data-record]').getByRole('link', { name: /CONALECHE 2026\.xls$/ }).first().click();
      const notice = page.locator('[data-not-archived] [data-api-endpoint]');
      await expect(notice).toContainText('Su catálogo lo ofrece como un servicio (una API), no como un documento que descargar');
      await expect(page.locator('[data-not-archived]')).not.toContainText('mientras tanto');
      await expect(notice.getByRole('link')).toHaveAttribute('href', service.url as string);
      expect(portal.requests.some((request) => request.startsWith(new URL(service.url as string).pathname))).toBe(false);
      await page.setViewportSize({ width: 390, height: 844 });
      await notice.scrollIntoViewIfNeeded();
      await page.screenshot({ path: 'test-results/screenshots/registro-servicio-api-movil.png' });
      await expectNoSidewaysScroll(page);
    } finally {
      await portal.close();
    }
  });
});
