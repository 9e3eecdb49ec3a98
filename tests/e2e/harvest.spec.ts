/**
 * Harvesting, as a moderator drives it (issue #18), in Chromium against the archive of its own
 * that playwright.config.ts starts for it (`HARVEST_ARCHIVE_URL`: captures of 127.0.0.1 allowed,
 * no pause per host): on /moderacion/cosechas the moderator sees no source yet, is told in Spanish
 * why a catalogue address is refused, adds the local portal's CKAN catalogue (the real datos.gob.do
 * sample, its files real fixtures), asks for a run and watches its progress until it is done with
 * every file captured; then opens one of the new records and searches inside its captured CSV.
 * Screenshots of each state at 1366 and 390 px go to test-results/screenshots/.
 */
import type pg from 'pg';
import { expect, test, type Page } from '@playwright/test';
import { E2E_DATA_DIR, HARVEST_ARCHIVE_URL } from '../../playwright.config.ts';
import type { HarvestSourceDetail } from '../../src/lib/server/harvest/manage.ts';
import { startLocalPortal, type CkanPackage, type LocalPortal } from '../helpers/portal/index.ts';
import { signInOverApi, signInWithWallet } from '../helpers/wallet.ts';
import { embeddedSql } from '../helpers/embedded-sql.ts';

test.use({ baseURL: HARVEST_ARCHIVE_URL });
// One archive, one story: each test goes on from what the one before left (the sources it added,
// the runs it made), so they run in order, and a failure skips the rest.
test.describe.configure({ mode: 'serial' });

let portal: LocalPortal;
test.beforeAll(async () => {
  portal = await startLocalPortal();
});
test.afterAll(async () => {
  await portal?.close();
});

const WIDTHS = [
  { name: 'escritorio', width: 1366, height: 900 },
  { name: 'movil', width: 390, height: 844 },
];

/** Full-page screenshots of the page as it is, at both widths, back at the desktop width after. */
async function screenshots(page: Page, state: string): Promise<void> {
  for (const { name, width, height } of WIDTHS) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `test-results/screenshots/cosechas-${state}-${name}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1366, height: 900 });
}

test('a moderator adds the local portal, runs it, watches it finish and searches a captured CSV', async ({ page }) => {
  test.setTimeout(180_000);
  await signInWithWallet(page);

  // Reached from the moderation queue.
  await page.goto('/moderacion');
  await page.getByRole('link', { name: 'Cosechas de catálogos' }).click();
  await expect(page).toHaveURL(/\/moderacion\/cosechas$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Cosechas de catálogos' })).toBeVisible();
  // The runs, failures and captures give times of day: the page says whose.
  await expect(page.getByText('Las horas son de Santo Domingo (UTC−4).')).toBeVisible();
  // The seed's catalogue came in as a harvest of the datos.gob.do export: its source is listed as
  // the copy it is (the export's address is not the portal's API), which is never run again, with
  // its run of 1,065 done.
  const sources = page.getByRole('region', { name: 'Fuentes de cosecha' });
  const seeded = sources.locator('[data-source]');
  await expect(seeded).toHaveCount(1);
  await expect(seeded).toContainText('exportación del 2026-09-24');
  await expect(seeded).toContainText('Copia del 24/09/2026');
  await expect(seeded.locator('[data-snapshot]')).toHaveText(/^Copia del catálogo tomada el 24\/09\/2026 y guardada con el archivo: no se vuelve a cosechar\./);
  await expect(seeded.getByRole('button')).toHaveCount(0);
  // Its settings keep the name and categories, but no schedule: it is never harvested again.
  await expect(page.locator('[data-selected]').getByLabel('Nombre', { exact: true })).toBeVisible();
  await expect(page.locator('[data-selected]').getByLabel('Frecuencia')).toHaveCount(0);
  await expect(page.locator('[data-progress-text]')).toHaveText(/^Última cosecha terminada: 1,065 documento/);
  await expect(page.locator('[data-run-count="new"]')).toHaveText('1,065');
  await screenshots(page, 'carga-inicial');

  const add = page.getByRole('region', { name: 'Añadir una fuente de cosecha' });
  // No address at all is told in Spanish by the archive, not in the browser's own language.
  const [empty] = await Promise.all([
    page.waitForResponse((response) => response.request().method() === 'POST'),
    add.getByRole('button', { name: 'Añadir fuente' }).click(),
  ]);
  expect(empty.status()).toBe(400);
  await expect(add.getByRole('alert')).toHaveText('Indique la dirección del catálogo.');
  await expect(add.getByLabel('Dirección del catálogo')).toHaveAttribute('aria-invalid', 'true');

  // An address that is not http(s) is refused, in Spanish, and comes back in the form.
  await add.getByLabel('Dirección del catálogo').fill('ftp://datos.gob.do/catalogo');
  const [refused] = await Promise.all([
    page.waitForResponse((response) => response.request().method() === 'POST'),
    add.getByRole('button', { name: 'Añadir fuente' }).click(),
  ]);
  // A 400 that says so on its status line ("400 OK" before).
  expect([refused.status(), refused.statusText()]).toEqual([400, 'Bad Request']);
  // The error stands in the form it is about, in view, not at the top of a long page.
  await expect(add.getByRole('alert')).toHaveText(/^La dirección del catálogo debe ser una URL http o https completa/);
  await expect(add.getByRole('alert')).toBeInViewport();
  await expect(add.getByLabel('Dirección del catálogo')).toHaveValue('ftp://datos.gob.do/catalogo');
  // The focus is on the field, which names the error: an alert already there at load is not read out.
  await expect(add.getByLabel('Dirección del catálogo')).toBeFocused();
  await expect(add.getByLabel('Dirección del catálogo')).toHaveAttribute('aria-invalid', 'true');
  await expect(add.getByLabel('Dirección del catálogo')).toHaveAccessibleDescription(/^La dirección del catálogo debe ser una URL http o https completa/);
  await screenshots(page, 'error');

  await add.getByLabel('Dirección del catálogo').fill(portal.urls.ckan);
  await add.getByLabel('Tipo de catálogo').selectOption('ckan');
  await add.getByLabel('Nombre (opcional)').fill('Portal de datos local');
  await add.getByLabel('Frecuencia').selectOption('semanal');
  // The portal's datasets declare no language or area, as datos.gob.do's do not: the moderator says them.
  await add.getByLabel(/^Idioma de los datos/).selectOption({ label: 'Español' });
  await add.getByLabel(/^País que cubren/).selectOption({ label: 'República Dominicana' });
  // Paused, so that the schedule (which harvests a new source within its first minute) cannot run it
  // before this test looks at it unharvested; «Cosechar ahora» runs it below.
  await add.getByLabel(/^Crearla pausada/).check();
  await add.getByRole('button', { name: 'Añadir fuente' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Fuente añadida' })).toBeVisible();
  const settings = page.locator('[data-edit-form]');
  await expect(settings.getByLabel('Idioma de los datos')).toHaveValue('es');
  await expect(settings.getByLabel('País que cubren')).toHaveValue('DOM');
  await expect(settings.getByLabel('Idioma de los datos')).toHaveAccessibleDescription(/^Solo para los conjuntos cuyo catálogo no declara su idioma/);
  await expect(sources.locator('[data-source]')).toHaveCount(2);
  const local = sources.locator('[data-source]').filter({ hasText: 'Portal de datos local' });
  await expect(local).toContainText('Semanal');
  const progress = page.locator('[data-progress-text]');
  await expect(progress).toHaveText('Todavía no se ha cosechado.');

  // Each source's buttons are named with it, so a screen reader's list of buttons tells them apart.
  await expect(page.getByRole('button', { name: 'Cosechar ahora Portal de datos local', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reanudar Portal de datos local', exact: true })).toBeVisible();
  // "Cosechar ahora": the run is queued, the server's worker runs it, the page follows it.
  await expect(page.getByText('Esta fuente todavía no se ha cosechado.')).toBeVisible();
  await local.getByRole('button', { name: 'Cosechar ahora' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Cosecha en cola' })).toBeVisible();
  // Its run has no row yet (or one «En curso»), and the page no longer says it was never harvested.
  await expect(page.getByText('Esta fuente todavía no se ha cosechado.')).toHaveCount(0);
  await expect(page.locator('[data-run-pending]:not([hidden]), [data-runs] tr[data-run]').first()).toBeVisible();
  // The moderator starts typing a new source meanwhile (before the panel's first poll, 2 s on).
  await add.getByLabel('Nombre (opcional)').fill('Escrito mientras se cosecha');
  await expect(progress).toHaveText(/^(Cosecha en cola|Cosechando|Catálogo leído. Capturando archivos)/);
  // Its badge says where the work stands, captures included, never «Terminada» before they end.
  await expect(local.locator('[data-run-badge]')).toHaveText(/^(En cola|En curso|Capturando archivos)$/);
  await expect(progress).toHaveText(/^Última cosecha terminada: \d+ documentos?\.$/, { timeout: 120_000 });
  // The work ended while they typed: no reload took their text away; the page says how to see the end.
  const ended = page.locator('[data-work-ended]');
  await expect(ended).toContainText('El trabajo de esta fuente terminó.');
  await expect(add.getByLabel('Nombre (opcional)')).toHaveValue('Escrito mientras se cosecha');
  await ended.getByRole('link', { name: 'Actualizar la página' }).click();

  // Done, the page reloaded without the stale "en cola" notice.
  await expect(page.getByRole('status').filter({ hasText: 'Cosecha en cola' })).toHaveCount(0);
  const files = portal.packages.flatMap((pkg) => pkg.resources).length;
  const run = page.locator('[data-runs] tr[data-run]');
  await expect(run).toHaveCount(1);
  await expect(run).toContainText('Terminada');
  await expect(local.locator('[data-run-badge]')).toHaveText('Terminada');
  await expect(page.locator('[data-run-count="new"]')).toHaveText(String(files));
  await expect(page.locator('[data-capture-count="done"]')).toHaveText(String(files));
  await expect(page.locator('[data-capture-count="failed"]')).toHaveText('0');
  await expect(page.getByText('Ninguna captura ha fallado.')).toBeVisible();
  await screenshots(page, 'terminada');
  // On a phone the run reads as a card, its counts named, nothing past the screen's edge.
  await page.setViewportSize({ width: 390, height: 844 });
  const runs = page.getByRole('region', { name: 'Cosechas de la fuente' });
  await expect(run.locator('[data-count="new"]')).toHaveText(`Nuevos: ${files}`, { useInnerText: true });
  await run.scrollIntoViewIfNeeded();
  for (const count of ['new', 'failed']) await expect(run.locator(`[data-count="${count}"]`)).toBeInViewport();
  expect(await runs.evaluate((region) => region.scrollWidth - region.clientWidth)).toBe(0);
  await page.setViewportSize({ width: 1366, height: 900 });
  await expect(run.locator('[data-count="new"]')).toHaveText(String(files), { useInnerText: true });

  // «Comprobar los archivos ahora»: each captured file asked of its origin again, at once.
  await page.locator('[data-check-files]').getByRole('button', { name: 'Comprobar los archivos ahora' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Comprobaciones en cola' })).toHaveText(`Comprobaciones en cola: ${files}. Si un archivo cambió en su origen, tendrá una versión nueva.`);

  // Created paused, it is resumed (its weekly run is not due: it just ran), then paused from its
  // button; paused, it stays out of the schedule; a theme map line naming no category is refused and kept.
  await local.getByRole('button', { name: 'Reanudar' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Fuente reanudada/);
  await local.getByRole('button', { name: 'Pausar' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Fuente pausada/);
  await expect(local).toContainText('Pausada');
  await expect(local.getByRole('button', { name: 'Reanudar' })).toBeVisible();
  const themes = page.getByLabel(/^Temas del catálogo/);
  await themes.fill('salud = Categoría que no existe');
  await page.getByRole('button', { name: 'Guardar cambios' }).click();
  await expect(page.locator('[data-edit-form]').getByRole('alert')).toHaveText('Línea 1 del mapa de temas: no hay ninguna categoría «Categoría que no existe».');
  await expect(themes).toHaveValue('salud = Categoría que no existe');
  // The refusal keeps the source in the address: a reload shows this source, not the first.
  const shownId = await page.locator('[data-harvest-progress]').getAttribute('data-source-id');
  await expect(page).toHaveURL(new RegExp(`/moderacion/cosechas\\?fuente=${shownId}$`));

  // One of the new records, its CSV captured by the archive: search inside it.
  await page.getByRole('link', { name: 'Ver sus registros' }).click();
  const csvRow = page.locator('tr[data-record]').filter({ has: page.getByText('CSV', { exact: true }) }).first();
  await csvRow.getByRole('link').first().click();
  await expect(page.getByText(/Capturado por el archivo desde/).first()).toBeVisible();
  const citation = page.locator('[data-citation-card]');
  await expect(citation.locator('dt:text-is("Idioma de los datos") + dd')).toHaveText('Español');
  await expect(citation.locator('dt:text-is("Cobertura geográfica") + dd').getByRole('link', { name: /^República Dominicana/ })).toBeVisible();
  await page.getByRole('button', { name: 'Buscar en el CSV' }).click();
  const panel = page.getByRole('region', { name: /^Search/ });
  await expect(panel).toBeVisible();
  const box = panel.getByRole('searchbox', { name: 'Buscador' });
  await expect(box).toBeEnabled();
  const total = (await panel.locator('[data-csv-count]').textContent()) ?? '';
  const cell = panel.locator('tbody tr').nth(1).getByRole('gridcell').first();
  const value = ((await cell.textContent()) ?? '').trim();
  expect(value).not.toBe('');
  await box.fill(value);
  await box.press('Enter');
  await expect(panel.locator('tbody tr').first()).toContainText(value);
  await expect(panel.locator('[data-csv-count]')).toHaveText(/^[\d,]+ elementos?$/);
  expect(total).toMatch(/elementos/);

  // A captured file the seed holds too (the same bytes, one CID): blocked, its record says the other
  // one still offers those bytes, since it lists it among its files. Then published again.
  const sharedPackage = portal.packages.find((pkg) => pkg.resources.length === 1 && portal.files.get(pkg.resources[0]!.id)!.path.endsWith('sisalril-pespj-d1.pdf'))!;
  await page.goto(`/moderacion/cosechas`);
  await page.getByRole('link', { name: 'Ver sus registros' }).click();
  await page.locator('tr[data-record]').filter({ hasText: sharedPackage.title }).getByRole('link').first().click();
  await expect(page.locator('[data-files] tbody tr')).toHaveCount(2);
  await expect(page.locator('[data-files-shared]')).toHaveText('La primera fila es el archivo de este registro; las demás, otros registros que guardan el mismo archivo (el mismo CID).');
  const controls = page.getByRole('region', { name: 'Moderación' });
  await controls.getByLabel('Nuevo estado').selectOption('blocked');
  await controls.getByLabel(/^Motivo/).fill('Prueba: el mismo archivo está en otro registro.');
  await controls.getByRole('button', { name: 'Cambiar estado' }).click();
  await expect(page.locator('[data-closed]')).toContainText('Este registro está bloqueado');
  await expect(page.locator('[data-shared-elsewhere]')).toHaveText('Los mismos bytes están también en otro registro que sí los ofrece (en «Archivos cargados», abajo).');
  await controls.getByLabel('Nuevo estado').selectOption('on_line');
  await controls.getByLabel(/^Motivo/).fill('Prueba terminada.');
  await controls.getByRole('button', { name: 'Cambiar estado' }).click();
  await expect(page.locator('[data-closed]')).toHaveCount(0);
});

test('the page and its routes are for moderators only', async ({ page }) => {
  const anonymous = await page.request.get('/v2/ops/harvest-sources');
  expect(anonymous.status()).toBe(401);
  const answer = await page.goto('/moderacion/cosechas');
  // Signed out, the page sends to the sign-in page.
  expect(answer?.url()).toMatch(/\/auth\/login$/);
});

test('a script with a Bearer token registers, edits, pauses, runs and deletes a source as the OpenAPI document says', async ({ playwright }) => {
  const signIn = await playwright.request.newContext();
  const token = await signInOverApi(signIn, HARVEST_ARCHIVE_URL);
  await signIn.dispose();
  // No cookie and no Origin: what curl sends.
  const client = await playwright.request.newContext({ baseURL: HARVEST_ARCHIVE_URL, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  try {
    // A catalogue that answers with an HTML page: its run fails at once, and harvests nothing.
    const created = await client.post('/v2/ops/harvest-sources', { data: { url: portal.urls.html, kind: 'ckan', name: 'Portal por la API' } });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()).body as { id: number };
    // PATCH went no further than `npm start`'s front door (405) before.
    const edited = await client.patch(`/v2/ops/harvest-sources/${id}`, { data: { paused: true, interval: 'mensual' } });
    expect(edited.status()).toBe(200);
    expect((await edited.json()).body).toMatchObject({ id, paused: true, interval: 'mensual' });
    // «Cosechar ahora» asks for nothing: no body and no Content-Type (it was a 403 «Formulario
    // enviado desde otro sitio», or a 411 with a Content-Type).
    for (const headers of [{}, { 'Content-Type': 'application/json' }] as Array<Record<string, string>>) {
      const run = await client.fetch(`/v2/ops/harvest-sources/${id}/run`, { method: 'POST', headers });
      expect(run.status(), await run.text()).toBeLessThan(300);
    }
    // A source registered by mistake is deleted as the document says (DELETE went no further than
    // `npm start`'s front door, a 405, before); one that is gone is a 404.
    const mistaken = await client.post('/v2/ops/harvest-sources', { data: { url: 'http://127.0.0.1:7/data.json', kind: 'datajson', name: 'Equivocada por la API' } });
    expect(mistaken.status()).toBe(201);
    const mistakenId = ((await mistaken.json()).body as { id: number }).id;
    const deleted = await client.delete(`/v2/ops/harvest-sources/${mistakenId}`);
    expect(deleted.status(), await deleted.text()).toBe(200);
    expect(await deleted.json()).toEqual({ code: 200, body: { id: mistakenId, deleted: true } });
    expect((await client.get(`/v2/ops/harvest-sources/${mistakenId}`)).status()).toBe(404);
    // A method no route answers is still refused.
    expect((await client.fetch(`/v2/ops/harvest-sources/${id}`, { method: 'PUT' })).status()).toBe(405);
  } finally {
    await client.dispose();
  }
});

test("on a phone, a failed run's reasons wrap within the screen, below the runs table that scrolls sideways", async ({ page }) => {
  await signInWithWallet(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/moderacion/cosechas');
  // The source the previous test registered over the API: a catalogue that answers with a web page.
  await page.getByRole('link', { name: 'Portal por la API' }).click();
  await expect(page.locator('[data-progress-text]')).toHaveText(/^La última cosecha falló tras 0 documentos: su motivo está abajo, bajo «Cosechas»\.$/, { timeout: 60_000 });
  // The latest run failed: its reasons are open already, where the progress line sends the moderator.
  const failures = page.locator('details[data-run-errors]').first();
  await expect(failures).toHaveAttribute('open', '');
  const reason = failures.locator('li').first();
  await expect(reason).toContainText('página HTML');
  const box = (await reason.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  // Nothing waits in the queue for it: the button offers a new run, and no «en cola» notice is left.
  await expect(page.locator('[data-run-button]').filter({ hasText: /En cola|Cosechando/ })).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screenshots/cosechas-fallo-movil.png', fullPage: true });
  // Had it been added with the form, the page would have said that another source reads the same site.
  await page.goto(`${page.url()}&aviso=creada`);
  await expect(page.locator('[data-same-site]')).toHaveText(
    'Otra fuente de cosecha lee el mismo sitio: «Portal de datos local». Un conjunto de datos que las dos listen será dos registros, uno por fuente; si es el mismo catálogo, pause una de ellas.',
  );

  // Two catalogues of the site added without a name: the first is named after the host, the second
  // after its address too, which wraps within the screen. Paused, so that no later run reads them.
  // A third, of another site, is only registered: the archive's source made for it is described by
  // its address, long and without a space to wrap at, as a portal's filtered package_search is.
  const host = new URL(portal.origin).host;
  const otherSite = `127.0.0.2:${new URL(portal.origin).port}`;
  const filtered = `http://${otherSite}/api/3/action/package_search?fq=organization:direccion-general-de-presupuesto-digepres`;
  for (const [url, kind, name] of [
    [portal.urls.dcatTurtle, 'dcat', host],
    [`${portal.urls.dataJson}?formato=completo&incluir=distribuciones`, 'datajson', `${host}/data.json?formato=completo&incluir=distribuciones`],
    [filtered, 'ckan', otherSite],
  ]) {
    const add = page.getByRole('region', { name: 'Añadir una fuente de cosecha' });
    await add.getByLabel('Dirección del catálogo').fill(url!);
    await add.getByLabel('Tipo de catálogo').selectOption(kind!);
    // Registered paused: the schedule does not harvest it in the minute after (nothing to undo).
    await add.getByLabel(/^Crearla pausada/).check();
    await add.getByRole('button', { name: 'Añadir fuente' }).click();
    const heading = page.getByRole('heading', { level: 2, name, exact: true });
    await expect(heading).toBeVisible();
    const named = (await heading.boundingBox())!;
    expect(named.x + named.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expect(page.getByRole('button', { name: `Reanudar ${name}`, exact: true })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Fuente añadida, pausada: la programación no la cosechará hasta que la reanude' })).toBeVisible();
    await expect(page.locator('[data-progress-text]')).toHaveText('Todavía no se ha cosechado.');
  }

  // The source the archive made for it is not public while its catalogue has brought nothing.
  await page.goto('/group/src');
  const described = page.locator('[data-group-item]', { hasText: `http://${otherSite}/api/3/action/package_search` });
  await expect(described).toHaveCount(0);
  // Listed as the catalogue's first record would list it: the list of sources and that source's page still fit the phone.
  await embeddedSql(`${E2E_DATA_DIR}-harvest`, 'update sources set awaiting_harvest = false where url = $1', [`http://${otherSite}`]);
  await page.reload();
  // The list cuts a description at 120 characters, after the site's address.
  await expect(described).toHaveCount(1);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await described.getByRole('heading', { level: 2 }).getByRole('link').click();
  await expect(page.getByText(filtered).first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: 'test-results/screenshots/fuente-cosechada-movil.png', fullPage: true });
});

test('a source added by mistake, which never brought a record, is deleted from its page with its runs; one with records offers no such button', async ({ page }) => {
  await signInWithWallet(page);
  await page.goto('/moderacion/cosechas');
  const add = page.getByRole('region', { name: 'Añadir una fuente de cosecha' });
  // Nothing listens there: its run fails, as a mistyped address's would.
  await add.getByLabel('Dirección del catálogo').fill('http://127.0.0.1:7/data.json');
  await add.getByLabel('Tipo de catálogo').selectOption('datajson');
  await add.getByLabel('Nombre (opcional)').fill('Fuente equivocada');
  await add.getByRole('button', { name: 'Añadir fuente' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Fuente añadida' })).toBeVisible();
  const mistaken = page.locator('[data-source]').filter({ hasText: 'Fuente equivocada' });
  await mistaken.getByRole('button', { name: 'Cosechar ahora' }).click();
  await expect(page.locator('[data-progress-text]')).toHaveText(/^La última cosecha falló tras 0 documentos/, { timeout: 60_000 });
  // Never among the public sources: its catalogue brought nothing, as its page tells the moderator.
  await expect(page.locator('[data-source-unlisted]')).toHaveText('Su fuente no se publica hasta que el catálogo traiga su primer registro');
  await expect(page.getByRole('link', { name: 'Ver sus registros' })).toHaveCount(0);
  const selectedUrl = page.url();
  await page.goto('/group/src?q=Fuente%20equivocada');
  await expect(page.locator('[data-list-summary]')).toBeVisible();
  await expect(page.locator('[data-group-item]')).toHaveCount(0);
  await page.goto(selectedUrl);
  const deletion = page.locator('[data-delete-source]');
  await deletion.locator('summary').click();
  await expect(deletion).toContainText('No ha traído ningún registro.');
  await page.screenshot({ path: 'test-results/screenshots/cosechas-eliminar.png', fullPage: true });
  await deletion.getByRole('button', { name: 'Eliminar «Fuente equivocada»' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Fuente eliminada, con sus cosechas.' })).toBeVisible();
  await expect(page.locator('[data-source]').filter({ hasText: 'Fuente equivocada' })).toHaveCount(0);
  // A source with records is paused instead: no button to delete it.
  await page.goto('/moderacion/cosechas');
  await page.getByRole('link', { name: 'Portal de datos local' }).click();
  await expect(page.locator('[data-delete-source]')).toHaveCount(0);
});

test('a dataset that left the catalogue is marked on its record, and its history says so in words', async ({ page }) => {
  test.setTimeout(180_000);
  await signInWithWallet(page);
  const removed = portal.packages.pop()!;
  try {
    await page.goto('/moderacion/cosechas');
    await page.getByRole('link', { name: 'Portal de datos local' }).click();
    await page.locator('[data-source]').filter({ hasText: 'Portal de datos local' }).getByRole('button', { name: 'Cosechar ahora' }).click();
    await expect(page.locator('[data-progress-text]')).toHaveText(/^Última cosecha terminada/, { timeout: 120_000 });
    await expect(page.locator('[data-run-count="withdrawn"]')).toHaveText(String(removed.resources.length));

    // The page lists them, each linked to its record.
    const withdrawn = page.locator('[data-withdrawn-records]');
    await withdrawn.locator('summary').click();
    await expect(withdrawn.locator('summary')).toHaveText(`Retirados del catálogo (${removed.resources.length})`);
    await expect(withdrawn.locator('li')).toHaveCount(removed.resources.length);
    await withdrawn.getByRole('link').first().click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText(removed.title);
    // Said at the top, where the status is, and linked to the note that explains it.
    const badge = page.locator('[data-withdrawn-badge]');
    await expect(badge).toHaveText('Retirado del catálogo');
    await badge.click();
    await expect(page.locator('#withdrawn-from-catalog')).toBeInViewport();
    await expect(page.locator('#withdrawn-from-catalog')).toHaveText(/^Retirado del catálogo el \d{2}\/\d{2}\/\d{4}/);
    // The history says the status did not change, not «online → online».
    const history = page.locator('[data-history]');
    await expect(history).toContainText('Sin cambio de estado (online)');
    await expect(history).not.toContainText('online → online');
    await page.screenshot({ path: 'test-results/screenshots/registro-retirado.png', fullPage: true });
  } finally {
    portal.packages.push(removed);
  }
});

test("a file the portal no longer serves is listed among the failed captures, with its reason and its attempts in words, and retried from there; the page shows the run's row once the catalogue is read", async ({ page }) => {
  test.setTimeout(180_000);
  await signInWithWallet(page);
  const template = portal.packages.find((pkg) => pkg.resources.length === 1)!;
  const gone: CkanPackage = {
    ...template,
    id: 'conjunto-sin-archivo',
    name: 'conjunto-sin-archivo',
    title: 'Conjunto cuyo archivo ya no está en el portal',
    resources: [{ ...template.resources[0]!, id: 'recurso-sin-archivo', url: `${portal.origin}/files/no-existe/nómina.csv` }],
  };
  // And one whose file comes slowly: its capture goes on after the catalogue has been read.
  const slowly: CkanPackage = {
    ...template,
    id: 'conjunto-lento',
    name: 'conjunto-lento',
    title: 'Conjunto cuyo archivo llega despacio',
    resources: [{ ...template.resources[0]!, id: 'recurso-lento', url: `${portal.origin}/files/recurso-lento/lento.csv` }],
  };
  portal.packages.push(gone, slowly);
  portal.files.set('recurso-lento', portal.files.get(template.resources[0]!.id)!);
  portal.slow.fileMs = 12_000;
  try {
    await page.goto('/moderacion/cosechas');
    await page.getByRole('link', { name: 'Portal de datos local' }).click();
    const runs = page.locator('[data-runs] tr[data-run]');
    const runsBefore = await runs.count();
    await page.locator('[data-source]').filter({ hasText: 'Portal de datos local' }).getByRole('button', { name: 'Cosechar ahora' }).click();
    // The catalogue read, while a file still comes in: the page is drawn again with the run's row,
    // then follows the captures; the failed captures' list, drawn before the 404, does not say none failed.
    await expect(runs).toHaveCount(runsBefore + 1, { timeout: 60_000 });
    await expect(page.locator('[data-progress-text]')).toHaveText(/^Catálogo leído\. Capturando archivos/);
    // The missing file fails (the slow portal says so in half a file's time) while the other still comes in.
    await expect(page.locator('[data-no-failed-captures]')).toHaveText('1 captura ha fallado hasta ahora: aparecerá aquí, con su motivo, cuando termine el trabajo.', { timeout: 30_000 });
    await expect(page.locator('[data-progress-text]')).toHaveText(/^Catálogo leído\. Capturando archivos/);
    portal.slow.fileMs = 0;
    await expect(page.locator('[data-progress-text]')).toHaveText(/^Última cosecha terminada: \d+ documentos\. \d+ capturas? siguen? fallando/, { timeout: 120_000 });
    await page.reload();
    const failed = page.locator('[data-failed-captures] li').filter({ hasText: gone.title });
    await expect(failed).toHaveCount(1);
    // A sentence of its own starts with a capital; one attempt is singular.
    await expect(failed).toContainText('El servidor respondió HTTP 404');
    await expect(failed).toContainText(/1 intento ·/);
    // Its address reads as written, not escaped («n%C3%B3mina»); the link keeps the escapes.
    await expect(failed.getByRole('link', { name: `${portal.origin}/files/no-existe/nómina.csv` })).toHaveAttribute('href', `${portal.origin}/files/no-existe/n%C3%B3mina.csv`);
    await expect(page.locator('[data-source]').filter({ hasText: 'Portal de datos local' })).toContainText(/ · \d+ registros/);
    // The portal serves the file again: the retry brings it in, and the run's failure says it was mended.
    portal.files.set('no-existe', portal.files.get(template.resources[0]!.id)!);
    await failed.getByRole('button', { name: `Reintentar: ${gone.title}` }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Captura en cola de nuevo.' })).toBeVisible();
    const runFailures = page.locator('details[data-run-errors]').first();
    await expect(async () => {
      await page.reload();
      await expect(runFailures.locator('[data-mended]')).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 60_000 });
    await expect(runFailures.locator('summary')).toHaveText(/^1 fallo de conjuntos o capturas, capturado después en la cosecha del /);
    await expect(runFailures.locator('summary')).toHaveClass(/text-amber-800/);
    await expect(page.locator('[data-failed-captures] li').filter({ hasText: gone.title })).toHaveCount(0);
  } finally {
    portal.slow.fileMs = 0;
    portal.packages.splice(portal.packages.indexOf(gone), 2);
    portal.files.delete('no-existe');
    portal.files.delete('recurso-lento');
  }
});

test('a captured file that is not the declared document waits for a moderator, listed with why', async ({ page }) => {
  // As a capture leaves it (`capture-job.ts`): the bytes kept, the record under review, the capture's mismatch.
  const sql = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => embeddedSql<T>(`${E2E_DATA_DIR}-harvest`, text, values);
  const [source] = await sql<{ id: number }>(`select id from harvest_sources where name = 'Portal de datos local'`);
  const cid = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku';
  const [record] = await sql<{ id: number }>(`insert into alexandrias (title, type, status, cid) values ('Nómina que resultó ser una página', 'other', 'under_review', $1) returning id`, [cid]);
  try {
    await sql(`insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key, distribution_url) values ($1, $2, 'pagina', 'pagina', $3)`, [
      record!.id,
      source!.id,
      `${portal.origin}/files/pagina/nomina.xls`,
    ]);
    await sql(`insert into captures (alexandria_id, requested_url, final_url, status, cid, size, mismatch) values ($1, $2, $2, 200, $3, 10, $4)`, [
      record!.id,
      `${portal.origin}/files/pagina/nomina.xls`,
      cid,
      'el catálogo declara XLS y el contenido es HTML o XML',
    ]);
    await signInWithWallet(page);
    await page.goto(`/moderacion/cosechas?fuente=${source!.id}`);
    const held = page.getByRole('region', { name: /^Capturados que esperan revisión/ });
    await expect(held.getByRole('heading')).toHaveText('Capturados que esperan revisión (1)');
    await expect(held).toContainText('Lo capturado no coincide con lo que declara el catálogo: el catálogo declara XLS y el contenido es HTML o XML.');
    await held.scrollIntoViewIfNeeded();
    await screenshots(page, 'esperan-revision');
    await held.getByRole('link', { name: 'Nómina que resultó ser una página' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Nómina que resultó ser una página');
    await expect(page.getByRole('region', { name: 'Moderación' })).toBeVisible();
  } finally {
    await sql('delete from alexandrias where id = $1', [record!.id]);
  }
});

test('a run started elsewhere shows on a page left open: followed while under way, and the page drawn again when it ends; a source moves to a new address', async ({ page, playwright }) => {
  test.setTimeout(180_000);
  await signInWithWallet(page);
  const signIn = await playwright.request.newContext();
  const token = await signInOverApi(signIn, HARVEST_ARCHIVE_URL);
  await signIn.dispose();
  // Another moderator's script: the page learns of its runs only by asking.
  const script = await playwright.request.newContext({ baseURL: HARVEST_ARCHIVE_URL, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  const runElsewhere = async () => {
    const id = await page.locator('[data-harvest-progress]').getAttribute('data-source-id');
    const run = await script.fetch(`/v2/ops/harvest-sources/${id}/run`, { method: 'POST' });
    expect(run.status(), await run.text()).toBeLessThan(300);
  };
  /** Set on the page as drawn: gone once the page is drawn again. */
  const markDrawn = () => page.evaluate(() => Object.assign(window, { drawnBefore: true }));
  const drawnAgain = async () => !(await page.evaluate(() => 'drawnBefore' in window));
  const runRows = page.locator('[data-runs] tbody tr');
  try {
    // A run that reads its catalogue slowly: the open page follows it in place, then shows its row.
    await page.goto('/moderacion/cosechas');
    await page.getByRole('link', { name: 'Portal de datos local' }).click();
    await expect(page.locator('[data-progress-text]')).toHaveText(/^Última cosecha terminada/);
    const before = await runRows.count();
    // Its badge, emerald for the last run, turns amber with the new one.
    const badge = page.locator('[data-run-badge]');
    await expect(badge).toHaveClass(/bg-emerald-100/);
    await markDrawn();
    // The source's row counts its records from each look while the work goes on (a count drawn
    // stale here, to tell the look's from the page's).
    const sourceId = await page.locator('[data-harvest-progress]').getAttribute('data-source-id');
    const recordsCell = page.locator(`[data-source-records="${sourceId}"]`);
    const drawnCount = await recordsCell.textContent();
    await recordsCell.evaluate((cell) => (cell.textContent = '0 registros'));
    // Under way for 20 s at least (a catalogue page asked for waits its whole delay), longer than
    // one idle look (15 s), shorter than the fetch's wait for headers (30 s).
    portal.slow.catalogueMs = 20_000;
    await runElsewhere();
    await expect(page.locator('[data-progress-text]')).toHaveText(/^(Cosecha en cola|Cosechando)/, { timeout: 40_000 });
    await expect(page.locator('[data-run-button]').filter({ hasText: /En cola|Cosechando/ })).toBeDisabled();
    await expect(page.locator('[data-run-pending]')).toHaveText('La cosecha en cola o en curso aparecerá aquí cuando termine (el recuadro de arriba muestra su avance).');
    await expect(badge).toHaveText(/^(En cola|En curso)$/);
    await expect(badge).toHaveClass(/bg-amber-100/);
    await expect(badge).not.toHaveClass(/bg-emerald-100/);
    await expect(recordsCell).toHaveText(drawnCount!);
    expect(await drawnAgain()).toBe(false);
    await page.screenshot({ path: 'test-results/screenshots/cosechas-iniciada-en-otro-lugar.png', fullPage: true });
    portal.slow.catalogueMs = 0;
    await expect(page.locator('[data-progress-text]')).toHaveText(/^Última cosecha terminada/, { timeout: 90_000 });
    await expect(runRows).toHaveCount(before + 1);
    expect(await drawnAgain()).toBe(true);

    // A source whose catalogue is a web page: each of its runs fails at once, between two looks of
    // the page (15 s apart). Its address changes in its settings: another source's catalogue is
    // refused there, on the address field, and what was typed is kept.
    await page.getByRole('link', { name: 'Portal por la API' }).click();
    const apiSourceId = await page.locator('[data-harvest-progress]').getAttribute('data-source-id');
    const runsBefore = await runRows.count();
    const address = page.locator('[data-edit-form]').getByLabel('Dirección del catálogo');
    await expect(address).toHaveValue(portal.urls.html);
    await address.fill(portal.urls.ckan);
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    const taken = `Ya existe una fuente de cosecha para ese catálogo: «Portal de datos local», en ${new URL(portal.urls.ckan).href}.`;
    await expect(page.locator('[data-edit-form]').getByRole('alert')).toHaveText(taken);
    await expect(address).toBeFocused();
    await expect(address).toHaveAttribute('aria-invalid', 'true');
    await expect(address).toHaveAccessibleDescription(new RegExp(`^${taken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await expect(address).toHaveValue(portal.urls.ckan);
    /** Starts a run of the source elsewhere, waits until it is over, then brings the moderator back to the tab (the page looks at once). */
    const runToItsEnd = async () => {
      const lastRunOnPage = await page.locator('[data-harvest-progress]').getAttribute('data-last-run');
      await runElsewhere();
      await expect
        .poll(async () => {
          const { body } = (await (await script.get(`/v2/ops/harvest-sources/${apiSourceId}`)).json()) as { body: HarvestSourceDetail };
          return body.activeRun === null && String(body.lastRun?.id) !== lastRunOnPage ? body.lastRun?.status : 'under way';
        }, { timeout: 30_000 })
        .toBe('failed');
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    };
    // A run that ends while the refused form holds what was typed: told, not drawn again, and the
    // link to see it leads back to this source (the refused form's page has no «fuente» in its address).
    await markDrawn();
    await runToItsEnd();
    const ended = page.locator('[data-work-ended]');
    await expect(ended).toContainText('El trabajo de esta fuente terminó.');
    await expect(ended.getByRole('link', { name: 'Actualizar la página' })).toHaveAttribute('href', new RegExp(`[?&]fuente=${apiSourceId}(&|$)`));
    expect(await drawnAgain()).toBe(false);
    await expect(address).toHaveValue(portal.urls.ckan);

    await address.fill(`${portal.urls.html}/nueva`);
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Cambios guardados' })).toBeVisible();
    await expect(page.locator('[data-selected]').locator(`a[href="${portal.urls.html}/nueva"]`)).toBeVisible();
    await expect(runRows).toHaveCount(runsBefore + 1);
    // A run that begins and ends between two looks of a page left as it was: the page is drawn again with its row.
    await markDrawn();
    await runToItsEnd();
    await expect(runRows).toHaveCount(runsBefore + 2, { timeout: 20_000 });
    expect(await drawnAgain()).toBe(true);
    // Back where it was, for whatever reads the portal's sources after this.
    await address.fill(portal.urls.html);
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Cambios guardados' })).toBeVisible();
  } finally {
    portal.slow.catalogueMs = 0;
    await script.dispose();
  }
});
