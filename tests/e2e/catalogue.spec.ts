import { expect, test, type Page } from '@playwright/test';

const PORTAL = 'Portal de Datos Abiertos de la República Dominicana';

async function openPortalCollection(page: Page) {
  await page.goto('/group/src');
  // Long names are cut to 50 characters in lists; the full name is the link's title.
  await page.getByTitle(PORTAL).getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: PORTAL })).toBeVisible();
}

test('the dashboard shows every card of the spec with the seeded numbers', async ({ page }) => {
  await page.goto('/dashboard');
  const contribute = page.getByRole('region', { name: 'Subir Archivo' });
  await expect(contribute).toContainText('airdrop');
  await expect(contribute.getByRole('link', { name: 'Subir Archivo' })).toHaveAttribute('href', '/auth/login');

  const deposited = page.getByRole('region', { name: 'Archivos Depositados' });
  // The tooltip counts what is still under review, out of the total.
  await expect(deposited.locator('tr[data-format="csv"] td[title]')).toHaveAttribute('title', /^1[.,]063 sin procesar de 1[.,]068$/);

  await expect(page.getByRole('region', { name: 'Achievements' })).toContainText('Todavía no hay contribuciones publicadas');
  await expect(page.getByRole('region', { name: 'Biblioteca' }).getByRole('listitem')).toHaveCount(5);

  const categories = page.getByRole('region', { name: 'Categorias' });
  await expect(categories.getByRole('tab')).toHaveCount(5);
  await expect(categories.getByRole('tab', { selected: true })).toHaveText('Gestión Pública');
  await categories.getByRole('tab', { name: 'Economía' }).click();
  const panel = categories.getByRole('tabpanel');
  await expect(panel).toContainText('Economía');
  await expect(panel.getByRole('link', { name: /^Ver Economía/ })).toBeVisible();
  // The chart of a tab is drawn when the tab opens.
  await expect(panel.locator('canvas[data-drawn="true"]')).toHaveCount(1);

  // Sources' tabs are told apart by what ends their names, so it is not cut.
  const sources = page.getByRole('region', { name: 'Fuentes' });
  for (const name of ['Sitio web de la ONE', 'Sitio web de la SISALRIL', 'Sitio web del CNSS']) {
    await expect(sources.getByRole('tab', { name, exact: true })).toHaveText(name);
  }

  await page.screenshot({ path: 'test-results/screenshots/dashboard-full.png', fullPage: true });
});

for (const [entity, title, seeAll] of [
  ['src', 'Fuentes', 'Ver todas las Fuentes'],
  ['dep', 'Ministerios o instituciones', 'Ver todos los Ministerios'],
  ['cat', 'Categorias', 'Ver todas las Categorias'],
] as const) {
  test(`the group ${entity} lists its 10 most recently updated items`, async ({ page }) => {
    await page.goto(`/group/${entity}`);
    await expect(page).toHaveTitle(`${title} · Archivo Abierto`);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    const items = page.getByRole('list', { name: title }).getByRole('listitem');
    expect(await items.count()).toBeLessThanOrEqual(10);
    expect(await items.count()).toBeGreaterThan(0);
    await page.locator('[data-group-switcher] summary').click();
    await expect(page.getByRole('link', { name: seeAll })).toHaveAttribute('aria-current', 'page');
    await page.screenshot({ path: `test-results/screenshots/group-${entity}.png`, fullPage: true });
  });
}

test('an unknown group is a 404', async ({ page }) => {
  const response = await page.goto('/group/ministerios');
  expect(response?.status()).toBe(404);
});

test('a collection pages through its records with real URLs', async ({ page }) => {
  await openPortalCollection(page);
  await expect(page.getByRole('navigation', { name: 'Ruta de navegación' })).toContainText('Home');
  await expect(page.getByRole('navigation', { name: 'Ruta de navegación' }).getByRole('link', { name: 'Fuentes' })).toBeVisible();

  const table = page.getByRole('table', { name: `Registros de ${PORTAL}` });
  await expect(table.getByRole('columnheader')).toHaveText(['Nombre', 'Departamento', 'Formato', 'Ultimo Cambio', 'Estatus', 'Action']);
  await expect(table.getByRole('row')).toHaveCount(11);
  // Harvested datasets have no archived file yet: their names lead to their page by id (issue #20),
  // and the action to the source.
  const first = table.getByRole('row').nth(1);
  await expect(first.getByRole('cell').first().getByRole('link')).toHaveAttribute('href', /^\/registro\/\d+$/);
  await expect(first.getByRole('link', { name: 'Ver en la fuente' })).toHaveAttribute('href', /^https:\/\/datos\.gob\.do\/dataset\//);
  // The rows' actions are told apart by their record's title (the catalogue repeats a few titles),
  // and say where they open: a screen reader lists links out of their rows.
  const actionNames = await table.getByRole('link', { name: /^Ver en la fuente/ }).evaluateAll((links) => links.map((link) => link.getAttribute('aria-label')));
  expect(actionNames).toHaveLength(10);
  expect(new Set(actionNames).size).toBeGreaterThan(5);
  await expect(first.getByRole('link', { name: /^Ver en la fuente/ })).toHaveAccessibleName(/^Ver en la fuente: \S.* \(se abre en una pestaña nueva\)$/);
  await expect(first.getByRole('cell').nth(3)).toHaveText(/^\d{2}\/\d{2}\/\d{4}$/);
  await expect(first).toContainText('under review');

  const pagination = page.getByRole('navigation', { name: 'Paginación' });
  await expect(pagination.getByText('Anterior')).toHaveAttribute('aria-disabled', 'true');
  await expect(pagination.getByText('…')).toHaveCount(1);
  await pagination.getByRole('link', { name: 'Siguiente' }).click();
  await expect(page).toHaveURL(/\?page=2$/);
  await expect(pagination.locator('[aria-current="page"]')).toHaveText('2');
  await expect(page.getByText(/^11–20 de 1[.,]065$/)).toBeVisible();

  await pagination.getByRole('link', { name: 'Página 107' }).click();
  await expect(page).toHaveURL(/\?page=107$/);
  await expect(table.getByRole('row')).toHaveCount(6);
  await expect(pagination.getByText('Siguiente')).toHaveAttribute('aria-disabled', 'true');
  await page.screenshot({ path: 'test-results/screenshots/collection-last-page.png', fullPage: true });

  // Past the end: still a 404, but the page names the list's length and links its last page.
  expect((await page.goto(page.url().replace('page=107', 'page=108')))?.status()).toBe(404);
  await expect(page.locator('[data-last-page]')).toHaveText('Esa página no existe: la lista tiene 107 páginas. Ir a la página 107');
  await page.getByRole('link', { name: 'Ir a la página 107' }).click();
  await expect(page).toHaveURL(/\?page=107$/);
  await expect(table.getByRole('row')).toHaveCount(6);
});

test('a page number past the end of a search or a group links back to its last page, keeping the query and the view', async ({ page }) => {
  expect((await page.goto('/buscar?q=salario+m%C3%ADnimo&format=csv&page=400'))?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Página no encontrada' })).toBeVisible();
  const back = page.locator('[data-last-page] a');
  await expect(back).toHaveAttribute('href', /^\/buscar\?q=salario\+m%C3%ADnimo&format=csv(&page=\d+)?$/);
  await back.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Resultados de «salario mínimo»' })).toBeVisible();

  // However long the number: past the end, not the first page shown as if asked for.
  for (const past of ['50', '123456789012']) {
    expect((await page.goto(`/group/cat?page=${past}`))?.status()).toBe(404);
    await expect(page.locator('[data-last-page]')).toContainText('la lista tiene 2 páginas.');
  }
  await page.getByRole('link', { name: 'Ir a la página 2' }).click();
  await expect(page).toHaveURL(/\/group\/cat\?page=2$/);
  await expect(page.getByRole('navigation', { name: 'Paginación' }).locator('[aria-current="page"]')).toHaveText('2');

  // An unknown page elsewhere says nothing of pages.
  expect((await page.goto('/esta/pagina/no-existe'))?.status()).toBe(404);
  await expect(page.locator('[data-last-page]')).toHaveCount(0);
});

test('a record of the seed shows its storage, tables and dataset panel', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/group/cat');
  await page.getByRole('link', { name: 'Salud', exact: true }).click();
  const table = page.getByRole('table', { name: 'Registros de Salud' });
  await table.getByRole('link', { name: /Informe estadístico de la Superintendencia/ }).first().click();
  await expect(page).toHaveURL(/\/single\/src\/baf[a-z0-9]+\?assetId=\d+$/);

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Informe estadístico de la Superintendencia de Salud y Riesgos Laborales');
  await expect(page.locator('[data-record-status]')).toHaveText('online');
  await expect(page.locator('[data-storage-status]')).toHaveText('Pinned');
  await expect(page.locator('[data-deals]')).toHaveText('Esta información no está disponible');
  await expect(page.getByRole('region', { name: 'Archivos cargados' })).toContainText('sisalril-pespj-d1.pdf');
  await expect(page.getByRole('region', { name: 'Pruebas cargados' })).toContainText('Este registro no tiene pruebas cargadas.');
  await expect(page.getByText(/No existe captura de pantalla/)).toBeVisible();

  const panel = page.getByRole('complementary', { name: 'Dataset' });
  await expect(panel.getByRole('link', { name: 'Abrir PDF' })).toHaveAttribute('href', /^\/ipfs\/baf/);
  await expect(panel.getByRole('link', { name: 'Descargar' })).toBeVisible();
  // Time held still: 'COPIED' lasts its second however long the checks take on a busy machine.
  await page.clock.install();
  await panel.getByRole('button', { name: 'Copiar CID' }).click();
  await expect(panel.getByRole('button', { name: 'COPIED' })).toBeVisible();
  // Said in English, as the spec names it, and told to a screen reader from a live region.
  await expect(panel.getByRole('button', { name: 'COPIED' }).locator('[data-copy-label]')).toHaveAttribute('lang', 'en');
  await expect(panel.getByRole('status').filter({ hasText: 'COPIED' })).toHaveAttribute('lang', 'en');
  const cid = (await page.locator('[data-cid]').textContent())?.trim();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(cid);
  await page.clock.runFor(1000);
  await expect(panel.getByRole('button', { name: 'Copiar CID' })).toBeVisible();

  const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
  expect(jsonLd['@type']).toBe('Dataset');
  // A shared link previews with the page's own address and the archive's card.
  const canonical = await page.locator('link[rel="canonical"]').getAttribute('href');
  await expect(page.locator('meta[property="og:url"]')).toHaveAttribute('content', canonical!);
  const image = (await page.locator('meta[property="og:image"]').getAttribute('content'))!;
  expect(image).toMatch(/^https?:\/\/.+\/og-archivo-abierto\.png$/);
  const card = await page.request.get(new URL(new URL(image).pathname, page.url()).href);
  expect(card.status()).toBe(200);
  expect(card.headers()['content-type']).toBe('image/png');
  await page.screenshot({ path: 'test-results/screenshots/record.png', fullPage: true });

  // The same record at /{cid}, and the department page without its own column.
  expect((await page.goto(`/${cid}`))?.status()).toBe(200);
  await page.getByRole('link', { name: 'Superintendencia de Salud y Riesgos Laborales (SISALRIL)' }).first().click();
  const departmentTable = page.getByRole('table');
  await expect(departmentTable.getByRole('columnheader')).toHaveText(['Nombre', 'Formato', 'Ultimo Cambio', 'Estatus', 'Action']);
});

test('an institution with no records says so', async ({ page }) => {
  // The official list's bodies that publish nothing yet come last in the list of departments.
  await page.goto('/group/dep');
  const last = await page.getByRole('navigation', { name: 'Paginación' }).getByRole('link').filter({ hasText: /^\d+$/ }).last().textContent();
  await page.goto(`/group/dep?page=${last}`);
  const empty = page.getByRole('list', { name: 'Ministerios o instituciones' }).getByRole('listitem').filter({ has: page.getByTitle('0 registros') }).last();
  await empty.getByRole('heading').getByRole('link').click();
  await expect(page.getByText('No hay registros disponibles para esta categoria')).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/collection-empty.png', fullPage: true });
});

test("an institution's page offers its own change feed, to readers and to feed readers", async ({ page, request }) => {
  await page.goto('/group/dep');
  await page.getByRole('list', { name: 'Ministerios o instituciones' }).getByRole('listitem').first().getByRole('heading').getByRole('link').click();
  const id = /\/collection\/dep\/(\d+)/.exec(page.url())![1];
  const feed = page.getByRole('link', { name: 'Cambios de esta institución (Atom)' });
  await expect(feed).toHaveAttribute('href', `/feeds/instituciones/${id}.atom`);
  await expect(page.locator(`link[rel="alternate"][type="application/atom+xml"][href$="/feeds/instituciones/${id}.atom"]`)).toHaveCount(1);
  expect((await request.get(`/feeds/instituciones/${id}.atom`)).status()).toBe(200);
  // Its records' heading reads as words: «Registros 1–10 de …», not «Registros1–10».
  await expect(page.getByRole('heading', { level: 2, name: /^Registros \d/ })).toBeVisible();
});

test('unknown records and collections are real 404s', async ({ page }) => {
  expect((await page.goto('/single/src/bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'))?.status()).toBe(404);
  expect((await page.goto('/collection/dep/999999'))?.status()).toBe(404);
  expect((await page.goto('/collection/dep/abc'))?.status()).toBe(404);
  expect((await page.goto('/no-es-un-cid'))?.status()).toBe(404);
  // Someone who followed a stale link can search from there.
  const search = page.getByRole('search');
  await search.getByRole('searchbox', { name: 'Buscar documentos' }).fill('salario mínimo');
  await search.getByRole('button', { name: 'Buscar' }).click();
  await expect(page).toHaveURL(/\/buscar\?q=salario\+m%C3%ADnimo$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Resultados de «salario mínimo»' })).toBeVisible();
});

test('the menu navigates and the scroll-to-top button appears after 200 px', async ({ page }) => {
  await page.goto('/dashboard');
  const top = page.getByRole('button', { name: 'Volver arriba' });
  await expect(top).toBeHidden();
  await page.mouse.wheel(0, 400);
  await expect(top).toBeVisible();
  await top.click();
  await expect(top).toBeHidden();

  await page.getByText('Menú').click();
  await page.getByRole('link', { name: 'Ver todas las Categorias' }).first().click();
  await expect(page).toHaveURL(/\/group\/cat$/);
  await expect(page.locator('details[data-mega-menu]')).not.toHaveAttribute('open');
});

test('a copy the browser refuses says so, on the button and to a screen reader', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) } });
  });
  await page.goto('/registro/1066');
  const panel = page.getByRole('complementary', { name: 'Dataset' });
  await page.clock.install();
  await panel.getByRole('button', { name: 'Copiar CID' }).click();
  await expect(panel.getByRole('button', { name: 'No se pudo copiar' })).toBeVisible();
  await expect(panel.getByRole('status')).toContainText('el navegador no dio acceso al portapapeles');
  await expect(panel.getByRole('status')).not.toHaveAttribute('lang', 'en');
});

test('an institution with nothing filed yet is kept out of the sitemap, and its page asks not to be indexed', async ({ page, request }) => {
  const sitemap = await (await request.get('/sitemap.xml')).text();
  const listed = new Set([...sitemap.matchAll(/\/collection\/dep\/(\d+)</g)].map((match) => Number(match[1])));
  // The catalogue's 260 publishers, 100 at a time: some have published nothing.
  const all: Array<{ id: number }> = [];
  for (let start = 0; start < 1_000; start += 100) {
    const page = (await (await request.get(`/departments?_limit=100&_start=${start}`)).json()) as Array<{ id: number }>;
    all.push(...page);
    if (page.length < 100) break;
  }
  const empty = all.find((department) => !listed.has(department.id));
  expect(empty, 'una institución de la carga inicial sin registros').toBeDefined();
  await page.goto(`/collection/dep/${empty!.id}`);
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
  await page.goto(`/collection/dep/${[...listed][0]}`);
  await expect(page.locator('meta[name="robots"]')).toHaveCount(0);
});
