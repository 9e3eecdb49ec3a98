/**
 * Disappearances in public (issue #19), in Chromium, against the harvesting archive that
 * playwright.config.ts starts (`HARVEST_ARCHIVE_URL`). /desaparecidos starts empty; then one of the
 * seeded records becomes a watched, harvested one whose URL is "desaparecido en origen" (written
 * through the archive's embedded database socket while the server runs, as a check would leave
 * it), and the list shows it, filters by its institution in the URL, and leads to the record page,
 * which tells since when with its copy still offered. A second record leaves its catalogue: the list
 * shows both with what happened to each, and filters by reason. /preservacion shows the audit. Everything the
 * test wrote is removed at the end. Screenshots at 1366 and 390 px go to test-results/screenshots/.
 */
import pg from 'pg';
import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR, HARVEST_ARCHIVE_URL } from '../../playwright.config.ts';
import { embeddedSql } from '../helpers/embedded-sql.ts';

test.use({ baseURL: HARVEST_ARCHIVE_URL });

const WIDTHS = [
  { name: 'escritorio', width: 1366, height: 900 },
  { name: 'movil', width: 390, height: 844 },
];

/** Full-page screenshots at both widths, back at the desktop width after. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const { name: size, width, height } of WIDTHS) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/screenshots/${name}-${size}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1366, height: 900 });
}

/** One statement on the harvesting archive's embedded database, on a connection of its own. */
const sql = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => embeddedSql<T>(`${E2E_DATA_DIR}-harvest`, text, values);

const CATALOGUE = 'http://127.0.0.1:9/desaparecidos-e2e/api/3/action/package_search';

test.afterAll(async () => {
  // The harvesting spec starts from an archive without harvest sources.
  await sql('delete from harvest_sources where url = $1', [CATALOGUE]);
});

test('a document gone from its source is listed, filtered, and told on its page, its copy still offered', async ({ page, request }) => {
  await page.goto('/desaparecidos');
  await expect(page.getByRole('heading', { level: 1, name: 'Documentos desaparecidos' })).toBeVisible();
  await expect(page.locator('[data-disappeared-empty]')).toHaveText('Ningún documento del archivo ha desaparecido de su origen ni ha sido retirado de su catálogo por ahora.');
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', `${HARVEST_ARCHIVE_URL}/desaparecidos`);
  // The first page of a visit shows the splash for half a second: the picture is of the page.
  await expect(page.locator('.splash')).toBeHidden({ timeout: 2000 });
  await screenshots(page, 'desaparecidos-vacia');

  // A seeded record with an institution and a category, its URL gone since two days ago.
  const [record] = await sql<{ id: number; cid: string; title: string; source_id: number; department: string; department_id: number }>(
    `select a.id, a.cid, a.title, a.source_id, d.name as department, d.id as department_id
       from alexandrias a join departments d on d.id = a.department_id
      where a.cid is not null and a.category_id is not null and a.source_id is not null and a.status = 'on_line'
      order by a.id limit 1`,
  );
  expect(record).toBeDefined();
  const [harvestSource] = await sql<{ id: number }>(
    `insert into harvest_sources (url, kind, name, source_id) values ($1, 'ckan', 'Portal de prueba', $2) returning id`,
    [CATALOGUE, record!.source_id],
  );
  await sql(
    `insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key, distribution_url, failing_since, gone_since)
     values ($1, $2, 'dataset', 'file', 'http://127.0.0.1:9/desaparecidos-e2e/files/documento.csv', now() - interval '2 days', now() - interval '2 days')`,
    [record!.id, harvestSource!.id],
  );

  // A reload: the list is cacheable for a minute, and the browser would show the empty one again.
  await page.reload();
  await expect(page.locator('[data-disappeared-count]')).toHaveText('Documentos desaparecidos: 1');
  const row = page.locator(`tr[data-disappeared="${record!.id}"]`);
  await expect(row).toContainText(record!.department.slice(0, 20));
  await expect(row).toContainText('127.0.0.1:9/desaparecidos-e2e/files/documento.csv');
  await expect(page.locator('link[rel="alternate"][type="application/atom+xml"]').first()).toHaveAttribute('href', `${HARVEST_ARCHIVE_URL}/feeds/cambios.atom`);
  await screenshots(page, 'desaparecidos-lista');

  // Filtered by its institution: the choice lives in the URL, and the institution's feed is offered.
  await page.getByLabel('Institución').selectOption(String(record!.department_id));
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await expect(page).toHaveURL(new RegExp(`/desaparecidos\\?dep=${record!.department_id}(&cat=)?(&motivo=)?$`));
  await expect(row).toBeVisible();
  await expect(page.locator(`link[rel="alternate"][href="${HARVEST_ARCHIVE_URL}/feeds/instituciones/${record!.department_id}.atom"]`)).toHaveCount(1);
  await page.getByRole('link', { name: 'Quitar filtros' }).click();
  await expect(page).toHaveURL(/\/desaparecidos$/);

  // The feed tells the disappearance.
  const feed = await request.get('/feeds/cambios.atom');
  expect(feed.headers()['content-type']).toContain('application/atom+xml');
  expect(await feed.text()).toContain(`Desaparecido en origen: ${record!.title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}`);
  // A reader polling it again gets a 304 while nothing changed, and a browser on another site may read it.
  expect(feed.headers()['access-control-allow-origin']).toBe('*');
  const again = await request.get('/feeds/cambios.atom', { headers: { 'If-None-Match': feed.headers().etag! } });
  expect(again.status()).toBe(304);

  // The record page: the notice, apart from the status, and the copy still downloadable.
  await row.getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`assetId=${record!.id}`));
  const notice = page.locator('[data-gone-from-origin]');
  await expect(notice).toContainText(/Desaparecido en origen desde el \d\d\/\d\d\/\d{4}/);
  await expect(notice).toContainText('El archivo conserva su copia');
  await expect(page.locator('[data-record-status]')).toContainText('online');
  await expect(page.getByRole('link', { name: 'Descargar', exact: true })).toBeVisible();
  await notice.scrollIntoViewIfNeeded();
  await screenshots(page, 'desaparecido-ficha');

  // Lists mark it too, with its date: its status alone («online») would pass it off as current.
  // Then its catalogue stops listing it as well, and the lists say that too.
  const institutionList = `/collection/dep/${record!.department_id}?q=${encodeURIComponent(record!.title.slice(0, 60))}`;
  await page.goto(institutionList);
  const listed = page.locator(`tr[data-record="${record!.id}"]`);
  await expect(listed.locator('[data-gone-mark]')).toHaveText(/^Desaparecido en origen desde el\s\d\d\/\d\d\/\d{4}$/);
  await expect(listed.locator('[data-withdrawn-mark]')).toHaveCount(0);
  await sql(`update harvested_records set withdrawn_at = now() - interval '1 day' where alexandria_id = $1`, [record!.id]);
  await page.goto(`/buscar?q=${encodeURIComponent(record!.title.slice(0, 60))}`);
  const found = page.locator(`tr[data-record="${record!.id}"]`);
  await expect(found.locator('[data-withdrawn-mark]')).toHaveText(/^Retirado del catálogo el\s\d\d\/\d\d\/\d{4}$/);
  await expect(found.locator('[data-gone-mark]')).toBeVisible();
  await found.scrollIntoViewIfNeeded();
  await screenshots(page, 'desaparecido-y-retirado-en-la-busqueda');

  // A second record that only left its catalogue (its address still answers): /desaparecidos lists
  // it too, and tells the two reasons apart, each its own filter.
  const [other] = await sql<{ id: number; title: string }>(
    `select a.id, a.title from alexandrias a
      where a.cid is not null and a.status = 'on_line' and a.id <> $1 order by a.id limit 1`,
    [record!.id],
  );
  await sql(
    `insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key, distribution_url, withdrawn_at)
     values ($1, $2, 'otro', 'file', 'http://127.0.0.1:9/desaparecidos-e2e/files/otro.csv', now() - interval '3 days')`,
    [other!.id, harvestSource!.id],
  );
  // Reloaded: the browser holds the list it showed before for a minute.
  await page.goto('/desaparecidos');
  await page.reload();
  await expect(page.locator('[data-disappeared-count]')).toHaveText('Documentos desaparecidos: 2');
  const both = page.locator(`tr[data-disappeared="${record!.id}"]`);
  const withdrawnOnly = page.locator(`tr[data-disappeared="${other!.id}"]`);
  await expect(both.locator('[data-withdrawn-mark]')).toHaveText(/^Retirado del catálogo el\s\d\d\/\d\d\/\d{4}$/);
  await expect(both.locator('[data-gone-mark]')).toBeVisible();
  // However narrow its column wraps the mark (here narrower than any), its date stays on the line
  // of the «el» that leads to it.
  for (const mark of [both.locator('[data-withdrawn-mark]'), both.locator('[data-gone-mark]')]) {
    const offset = await mark.evaluate((element) => {
      element.style.maxWidth = '9rem';
      const time = element.querySelector('time')!;
      const words = time.previousSibling!;
      const end = words.textContent!.trimEnd().length;
      const range = document.createRange();
      range.setStart(words, end - 2);
      range.setEnd(words, end);
      const apart = Math.abs(range.getBoundingClientRect().top - time.getBoundingClientRect().top);
      element.style.maxWidth = '';
      return apart;
    });
    expect(offset).toBeLessThan(2);
  }
  await expect(withdrawnOnly.locator('[data-withdrawn-mark]')).toBeVisible();
  await expect(withdrawnOnly.locator('[data-gone-mark]')).toHaveCount(0);
  await screenshots(page, 'desaparecidos-y-retirados');
  await page.getByLabel('Motivo').selectOption({ label: 'Desaparecido en origen (1)' });
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await expect(page).toHaveURL(/[?&]motivo=origen(&|$)/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Desaparecidos en origen');
  await expect(both).toBeVisible();
  await expect(withdrawnOnly).toHaveCount(0);
  // The record page of a withdrawn one leads to the list of its kind.
  await page.goto(`/registro/${other!.id}`);
  await page.getByRole('link', { name: 'Ver todos los documentos retirados de su catálogo' }).click();
  await expect(page).toHaveURL(/\/desaparecidos\?motivo=catalogo$/);
  await expect(page.locator('[data-disappeared-count]')).toHaveText('Documentos desaparecidos: 2');
  await expect(page.getByLabel('Motivo')).toHaveValue('catalogo');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Retirados del catálogo');
  await expect(page.locator(`tr[data-disappeared="${other!.id}"]`)).toBeVisible();
  await screenshots(page, 'retirados-del-catalogo');

  // The dashboard counts both and links the list.
  await page.goto('/dashboard');
  await expect(page.locator('[data-stat="dashboard.disappeared"]')).toHaveText('2');
  await page.locator('[data-disappeared-summary]').getByRole('link', { name: 'Ver la lista' }).click();
  await expect(page).toHaveURL(/\/desaparecidos$/);
});

test('the preservation record shows the audit and what is watched', async ({ page }) => {
  await page.goto('/preservacion');
  await expect(page.getByRole('heading', { level: 1, name: 'Registro de preservación' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Auditoría de integridad' })).toBeVisible();
  // The server's schedule starts the first pass when it starts: its first slice has read by now.
  await expect(async () => {
    await page.reload();
    await expect(page.locator('[data-audit-pass]')).toHaveText(/Pasada 1 (en curso|completada)/);
  }).toPass({ timeout: 30_000 });
  await expect(page.locator('[data-no-failures]')).toHaveText('Ningún archivo ha fallado la auditoría.');
  await screenshots(page, 'preservacion');
});
