/**
 * The search modal (SPEC §2 'Search modal', §4, §5, §8, §9) in Chromium against the seeded
 * catalogue: opened from the header, it searches on Enter only, lists records, ministries and
 * categories, says when nothing matches, clears its results 1 s after a link is followed, closes
 * on Escape and 'Cerrar', and shows a signed-in wallet its latest uploads.
 */
import { expect, test, type Page } from '@playwright/test';
import { signInWithWallet } from '../helpers/wallet.ts';

const HINT = 'Escriba lo que busca y presione ENTER';

function launcher(page: Page) {
  return page.getByRole('banner').getByRole('link', { name: 'Buscar', exact: true });
}

async function openSearch(page: Page) {
  // The first page of a session shows the splash for 500 ms (SPEC §9); screenshots wait it out.
  await expect(page.locator('.splash')).toBeHidden();
  await launcher(page).click();
  const dialog = page.getByRole('dialog', { name: 'Buscar en el archivo' });
  await expect(dialog).toBeVisible();
  // The modal is imported and mounted on click (SearchLauncher.astro): the effect that focuses its
  // text box also starts listening for Escape, so keys are pressed only once the focus is there.
  await expect(dialog.getByRole('searchbox', { name: 'Buscar' })).toBeFocused();
  return dialog;
}

async function searchFor(page: Page, text: string) {
  const dialog = page.getByRole('dialog');
  const box = dialog.getByRole('searchbox', { name: 'Buscar' });
  await box.fill(text);
  await box.press('Enter');
}

function section(page: Page, heading: string) {
  return page.getByRole('dialog').getByRole('region', { name: heading, exact: true });
}

test('without JavaScript the search button is a link to the results page', async ({ page }) => {
  await page.goto('/dashboard');
  await expect(launcher(page)).toHaveAttribute('href', '/buscar');
});

test('searches on Enter only and lists records, ministries and categories', async ({ page }) => {
  const searches: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/v2/open-data/')) searches.push(request.url());
  });
  await page.goto('/dashboard');
  const dialog = await openSearch(page);
  const box = dialog.getByRole('searchbox', { name: 'Buscar' });
  await expect(box).toBeFocused();
  await expect(dialog.getByRole('status')).toHaveText(HINT);

  // Typing alone does not search.
  await box.fill('salud');
  await page.waitForTimeout(300);
  expect(searches.filter((url) => url.includes('title='))).toEqual([]);
  await expect(dialog.getByRole('status')).toHaveText(HINT);

  await box.press('Enter');
  const records = section(page, 'Buscador');
  const recordLinks = records.getByRole('list').getByRole('link');
  await expect(recordLinks.first()).toBeVisible();
  expect(await recordLinks.count()).toBeLessThanOrEqual(5);
  // A screen reader hears what came back (the status is not left empty once results are in).
  await expect(dialog.getByRole('status')).toHaveText(/^[1-5] documentos?, \d+ instituci(ón|ones)$/);
  await expect(dialog.getByRole('status')).toHaveClass('sr-only');
  // Every result links to its record's page: by CID when it has a file, by id otherwise (issue #20).
  for (const href of await recordLinks.evaluateAll((links) => links.map((link) => link.getAttribute('href')))) {
    expect(href).toMatch(/^(\/single\/src\/[a-z0-9]+\?assetId=\d+|\/registro\/\d+)$/);
  }
  await expect(records.getByRole('link', { name: 'ver todos los resultados' })).toHaveAttribute('href', '/buscar?q=salud');
  // The SPEC §7 calls, as spelled there.
  expect(searches.some((url) => /\/v2\/open-data\/alexandrias\/getAll\?title=salud&limit=5$/.test(url))).toBe(true);
  expect(searches.some((url) => /\/v2\/open-data\/departments\/getAll\?name=salud&limit=5$/.test(url))).toBe(true);
  expect(searches.some((url) => url.endsWith('/v2/open-data/categories/getAll'))).toBe(true);

  const departments = section(page, 'Ministerios o instituciónes');
  const departmentLinks = departments.getByRole('link');
  await expect(departmentLinks.first()).toBeVisible();
  expect(await departmentLinks.count()).toBeLessThanOrEqual(5);
  await expect(departmentLinks.first()).toHaveAttribute('href', /^\/collection\/dep\/\d+$/);
  await expect(departments.getByRole('link', { name: /salud/i }).first()).toBeVisible();

  const categories = section(page, 'Categorias');
  await expect(categories.getByRole('link', { name: /^Salud/ })).toHaveAttribute('href', /^\/collection\/cat\/\d+$/);
  await expect(categories.getByRole('link')).toHaveCount(1);

  // Every record shows its format and status badges.
  await expect(records.getByRole('listitem').first().getByText(/^(PDF|CSV|XLS|XLSX|ODS|Otro)$/)).toBeVisible();
  await expect(records.getByRole('listitem').first().getByText(/^(under review|online|blocked|broken)$/)).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/search-modal-desktop.png' });

  // Nothing matches: the spec's hint, and every category to browse instead.
  await searchFor(page, 'qqxzzyw');
  await expect(dialog.getByText('Results not found')).toHaveCount(2);
  await expect(records.getByRole('list')).toHaveCount(0);
  await expect(categories.getByText('Ninguna categoría coincide')).toBeVisible();
  expect(await categories.getByRole('link').count()).toBeGreaterThan(5);
  await page.screenshot({ path: 'test-results/screenshots/search-modal-not-found.png' });

  // An empty query goes back to the prompt.
  await searchFor(page, '   ');
  await expect(dialog.getByRole('status')).toHaveText(HINT);
});

test('text longer than the API takes is cut to it at a space, and the search still answers', async ({ page }) => {
  const refused: string[] = [];
  const titles: string[] = [];
  page.on('response', (response) => {
    if (!response.url().includes('/v2/open-data/')) return;
    if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    const title = new URL(response.url()).searchParams.get('title');
    if (title !== null) titles.push(title);
  });
  await page.goto('/dashboard');
  const dialog = await openSearch(page);
  const box = dialog.getByRole('searchbox', { name: 'Buscar' });
  // Pasted: 300 characters of one word, more than the API takes.
  await box.focus();
  await page.keyboard.insertText('q'.repeat(300));
  await box.press('Enter');
  await expect(dialog.getByText('Results not found')).toHaveCount(2);
  // Pasted: words past the limit, the 200th character inside one. Cut there, «salu» would find nothing.
  await box.fill('salud '.repeat(40));
  await box.press('Enter');
  await expect(section(page, 'Buscador').getByRole('list').getByRole('link').first()).toBeVisible();
  expect(refused).toEqual([]);
  expect(titles).toEqual(['q'.repeat(200), 'salud '.repeat(33).trim()]);
});

test('following a result opens the record, and the results clear 1 s later', async ({ page }) => {
  await page.goto('/dashboard');
  const dialog = await openSearch(page);
  const firstRecord = section(page, 'Buscador').getByRole('list').getByRole('link').first();

  // First the record page answers 204 No Content, so the browser stays here and the modal can be
  // watched: the results are still there just after the click, and gone a second later.
  const recordPages = /\/(single\/src|registro)\//;
  await page.route(recordPages, (route) => route.fulfill({ status: 204 }));
  await searchFor(page, 'salud');
  await expect(firstRecord).toBeVisible();
  await firstRecord.click();
  const clickedAt = Date.now();
  await expect(firstRecord).toBeVisible();
  await expect(dialog.getByRole('status')).toHaveText(HINT, { timeout: 3000 });
  expect(Date.now() - clickedAt).toBeGreaterThanOrEqual(800);
  await expect(dialog.getByRole('searchbox')).toHaveValue('');
  await expect(section(page, 'Buscador').getByRole('list')).toHaveCount(0);

  // Then for real: the record page opens.
  await page.unroute(recordPages);
  await searchFor(page, 'salud');
  const title = ((await firstRecord.locator('span').first().textContent()) ?? '').trim();
  await firstRecord.click();
  await page.waitForURL(/\/(single\/src\/[a-z0-9]+\?assetId=\d+|registro\/\d+)$/);
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
});

test('closes on Escape and with Cerrar, keeps focus inside, and remembers the last search', async ({ page }) => {
  await page.goto('/dashboard');
  let dialog = await openSearch(page);
  const box = dialog.getByRole('searchbox', { name: 'Buscar' });

  // Focus goes round inside the dialog: back from the text box to the last category, and on again.
  const lastCategory = section(page, 'Categorias').getByRole('link').last();
  await expect(lastCategory).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await expect(lastCategory).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(box).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Cerrar' })).toBeFocused();

  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(launcher(page)).toBeFocused();

  dialog = await openSearch(page);
  await searchFor(page, 'salud');
  await expect(section(page, 'Buscador').getByRole('list').getByRole('link').first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Cerrar' }).click();
  await expect(dialog).toBeHidden();

  dialog = await openSearch(page);
  await expect(dialog.getByRole('searchbox')).toHaveValue('salud');
  await expect(section(page, 'Buscador').getByRole('list').getByRole('link').first()).toBeVisible();
});

test('a failed search is only logged: no hint, no results, loading stops', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto('/dashboard');
  await page.route('**/v2/open-data/alexandrias/getAll**', (route) => route.abort());
  await page.route('**/v2/open-data/departments/getAll**', (route) => route.fulfill({ status: 500, body: '{}' }));
  const dialog = await openSearch(page);
  await searchFor(page, 'salud');
  await expect.poll(() => errors.length).toBeGreaterThanOrEqual(2);
  await expect(dialog.getByRole('status')).toHaveText('');
  await expect(dialog.getByText('Loading ...')).toHaveCount(0);
  await expect(dialog.getByText('Results not found')).toHaveCount(0);
  await expect(section(page, 'Ministerios o instituciónes')).toHaveCount(0);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the modal fits a 390 px screen', async ({ page }) => {
    await page.goto('/dashboard');
    // The header keeps its search button within the screen.
    await expect(page.locator('.splash')).toBeHidden();
    await expect(launcher(page)).toBeInViewport({ ratio: 1 });
    await page.screenshot({ path: 'test-results/screenshots/search-modal-390-header.png', clip: { x: 0, y: 0, width: 390, height: 160 } });
    const dialog = await openSearch(page);
    await page.screenshot({ path: 'test-results/screenshots/search-modal-390-empty.png' });
    await searchFor(page, 'salud');
    await expect(section(page, 'Buscador').getByRole('list').getByRole('link').first()).toBeVisible();
    const width = await dialog.evaluate((element) => element.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: 'test-results/screenshots/search-modal-390.png' });
  });
});

test('a signed-in wallet sees its latest uploads, also in the dark theme', async ({ page }) => {
  await signInWithWallet(page);
  await page.getByRole('button', { name: 'Cambiar tema claro u oscuro' }).click();
  const dialog = await openSearch(page);
  const latest = section(page, 'Últimos archivos cargados');
  await expect(latest.getByRole('heading', { name: 'Últimos archivos cargados' })).toBeVisible();
  // Other specs may have uploaded with this wallet before: either state is right.
  await expect(latest.getByText('User has no uploads').or(latest.getByRole('listitem').first())).toBeVisible();
  const uploads = await latest.getByRole('listitem').count();
  expect(uploads).toBeLessThanOrEqual(5);
  await searchFor(page, 'salud');
  await expect(section(page, 'Buscador').getByRole('list').getByRole('link').first()).toBeVisible();
  await expect(dialog).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/search-modal-signed-in-dark.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/screenshots/search-modal-390-signed-in-dark.png' });
  await latest.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/screenshots/search-modal-390-signed-in-dark-latest.png' });
});

test("on a phone, Back closes the search and stays on the page; Back from a result's page comes back to it", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/group/dep');
  await page.goto('/dashboard');
  let dialog = await openSearch(page);
  await searchFor(page, 'salud');
  await expect(section(page, 'Buscador').getByRole('list').getByRole('link').first()).toBeVisible();
  await page.goBack();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/dashboard$/);
  // Closed by Back, it still remembers what was typed; closed by Escape, it leaves no entry behind,
  // even pressed twice at once (a key held down).
  dialog = await openSearch(page);
  await expect(dialog.getByRole('searchbox')).toHaveValue('salud');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goBack();
  await expect(page).toHaveURL(/\/group\/dep$/);
  await page.goForward();
  await expect(page).toHaveURL(/\/dashboard$/);

  // A result followed replaces the search's entry: Back from the record leads to the dashboard itself.
  await openSearch(page);
  await searchFor(page, 'salud');
  await section(page, 'Buscador').getByRole('list').getByRole('link').first().click();
  await page.waitForURL(/\/(single\/src\/[a-z0-9]+\?assetId=\d+|registro\/\d+)$/);
  await page.goBack();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('dialog')).toBeHidden();
  await page.goBack();
  await expect(page).toHaveURL(/\/group\/dep$/);
});
