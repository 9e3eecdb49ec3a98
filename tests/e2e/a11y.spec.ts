/**
 * Accessibility (issue #20, "Keyboard, contrast, words"), in Chromium against the seeded archive,
 * at 390 px (a phone) and 1366 px (a laptop):
 * - axe (WCAG 2.0/2.1 A and AA) on every page a reader opens, in the light and the dark theme:
 *   zero violations;
 * - the header's menus close on Escape and give the focus back to their button;
 * - the upload wizard keeps the focus inside, brings a refused step's error into view, has one
 *   'Close', and its buttons stay put from one step to the next;
 * - 'Subir Archivo' signed out says why it leads to the sign-in page;
 * - a phone without a wallet is told what works there instead of an alert and a dead tab;
 * - no splash covers a rendered page; the HTML arrives compressed;
 * - a reader who asked for less motion gets scrolls that jump and charts drawn at once.
 * Screenshots go to test-results/screenshots/a11y-*.png (kept out of git).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { signInWithWallet, wallet } from '../helpers/wallet.ts';

const SIZES = [
  { name: '390', width: 390, height: 844 },
  { name: '1366', width: 1366, height: 900 },
] as const;
const THEMES = ['light', 'dark'] as const;

const recordWithFile = async () => `/${(await cidOf(await fs.readFile(path.join(fixturePath('files/csv'), 'salario-minimo-hacienda-2000-2025.csv')))).cid}`;

/** A catalogue record the archive holds no file of: the first one a collection links to. */
async function recordWithoutFile(page: Page): Promise<string> {
  await page.goto('/collection/cat/1');
  const link = page.locator('main a[href^="/registro/"]').first();
  await expect(link).toBeVisible();
  return (await link.getAttribute('href'))!;
}

/** The box lies wholly inside a screen `width` wide. */
async function expectWithinScreen(box: Locator, width: number): Promise<void> {
  await expect(box).toBeVisible();
  const { x, width: boxWidth } = (await box.boundingBox())!;
  expect(x).toBeGreaterThanOrEqual(0);
  expect(x + boxWidth).toBeLessThanOrEqual(width);
}

/** Every page a reader opens, by name; some paths are found on the running archive. */
async function pagesToCheck(page: Page): Promise<Array<{ name: string; path: string }>> {
  return [
    { name: 'dashboard', path: '/dashboard' },
    { name: 'inicio', path: '/' },
    { name: 'buscar', path: '/buscar?q=salud' },
    { name: 'grupo-src', path: '/group/src' },
    { name: 'grupo-dep', path: '/group/dep' },
    { name: 'grupo-cat', path: '/group/cat' },
    { name: 'coleccion', path: '/collection/cat/1' },
    { name: 'registro-con-archivo', path: await recordWithFile() },
    { name: 'registro-sin-archivo', path: await recordWithoutFile(page) },
    { name: 'login', path: '/auth/login' },
    { name: 'recuperar', path: '/auth/forgot-password' },
    { name: 'faq', path: '/general/faq' },
    { name: 'docs', path: '/docs' },
    { name: 'contacto', path: '/contacto' },
    { name: 'desaparecidos', path: '/desaparecidos' },
    { name: 'preservacion', path: '/preservacion' },
    { name: 'contribuciones', path: `/contribuciones/${wallet.address.toLowerCase()}` },
    { name: '404', path: '/esta/pagina/no-existe' },
  ];
}

test('axe finds no WCAG 2.1 A/AA violation on any page, at both widths, in both themes', async ({ page }) => {
  test.setTimeout(600_000);
  const pages = await pagesToCheck(page);
  const found: string[] = [];
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      for (const visited of pages) {
        await page.goto(visited.path);
        await expect(page.locator('html')).toHaveClass(theme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
        // Islands hydrated (charts, search): what a reader meets once the page has settled.
        await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
        const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
        for (const violation of results.violations) {
          const targets = violation.nodes.slice(0, 3).map((node) => `${node.target.join(' ')}${node.any[0]?.message ? ` (${node.any[0].message})` : ''}`);
          found.push(`${visited.name} ${size.name}px ${theme}: ${violation.id} ×${violation.nodes.length}: ${targets.join(' | ')}`);
        }
      }
    }
  }
  expect(found, found.join('\n')).toEqual([]);
});

test("axe finds no WCAG 2.1 A/AA violation on the moderators' pages, nor in the upload wizard open, in both themes", async ({ page }) => {
  test.setTimeout(180_000);
  await signInWithWallet(page);
  const found: string[] = [];
  const check = async (name: string) => {
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    for (const violation of results.violations) {
      const targets = violation.nodes.slice(0, 3).map((node) => `${node.target.join(' ')}${node.any[0]?.message ? ` (${node.any[0].message})` : ''}`);
      found.push(`${name}: ${violation.id} ×${violation.nodes.length}: ${targets.join(' | ')}`);
    }
  };
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    // The harvest page with its progress panel (the seed's run) and the runs table.
    for (const path of ['/moderacion', '/moderacion/cosechas']) {
      await page.goto(path);
      await check(`${path} ${theme}`);
    }
    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Subir Archivo' }).click();
    await expect(page.getByRole('dialog', { name: 'Subir Archivo' })).toBeVisible();
    await check(`asistente ${theme}`);
  }
  expect(found, found.join('\n')).toEqual([]);
});

test('every link that opens a new tab says so to a screen reader, and cannot reach back into the page', async ({ page }) => {
  await signInWithWallet(page);
  const pages = [...(await pagesToCheck(page)), { name: 'moderacion', path: '/moderacion' }, { name: 'cosechas', path: '/moderacion/cosechas' }];
  const found: string[] = [];
  const checked = new Map<string, number>();
  for (const visited of pages) {
    await page.goto(visited.path);
    const links = await page.locator('a[target="_blank"]').evaluateAll((anchors) =>
      anchors.map((anchor) => ({ href: anchor.getAttribute('href'), text: anchor.textContent!.replace(/\s+/g, ' ').trim(), rel: (anchor.getAttribute('rel') ?? '').split(/\s+/) })),
    );
    checked.set(visited.name, links.length);
    for (const link of links) {
      if (!link.text.endsWith('(se abre en una pestaña nueva)')) found.push(`${visited.name}: «${link.text}» → ${link.href} no avisa de la pestaña nueva`);
      if (!link.rel.includes('noopener')) found.push(`${visited.name}: ${link.href} sin noopener`);
    }
  }
  expect(found, found.join('\n')).toEqual([]);
  // Not vacuous: a record's source link and its provenance, the source links of a table's rows.
  expect(checked.get('registro-con-archivo'), JSON.stringify([...checked])).toBeGreaterThanOrEqual(2);
  expect(checked.get('coleccion'), JSON.stringify([...checked])).toBeGreaterThanOrEqual(1);
  await page.goto(await recordWithFile());
  await expect(page.locator('[data-view-at-source]')).toHaveAccessibleName(/^Ver en la fuente .* \(se abre en una pestaña nueva\)$/);
});

test('the menu, the wallet menu and the notifications close on Escape (giving the focus back to their button), on a click outside or when the focus leaves, and open within the screen', async ({ page }) => {
  await signInWithWallet(page);
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto('/dashboard');
    const menu = page.locator('[data-mega-menu]');
    const menuButton = menu.locator('summary');
    await menuButton.focus();
    await page.keyboard.press('Enter');
    await expect(menu).toHaveAttribute('open', '');
    await expect(menu.getByRole('link', { name: 'Panel' })).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(menu.getByRole('link').first()).toBeFocused();
    await page.screenshot({ path: `test-results/screenshots/a11y-menu-${size.name}.png` });
    await page.keyboard.press('Escape');
    await expect(menu).not.toHaveAttribute('open', '');
    await expect(menuButton).toBeFocused();

    const walletMenu = page.locator('details[data-signed-in]');
    const walletButton = walletMenu.locator('summary');
    await walletButton.focus();
    await page.keyboard.press('Enter');
    await expect(walletMenu).toHaveAttribute('open', '');
    await expectWithinScreen(walletMenu.locator(':scope > div'), size.width);
    await page.keyboard.press('Escape');
    await expect(walletMenu).not.toHaveAttribute('open', '');
    await expect(walletButton).toBeFocused();

    // The bell is not at the header's right edge: its panel once hung 128 px off a phone's left side.
    const notifications = page.locator('details[data-notifications]');
    const bell = notifications.locator('summary');
    await bell.focus();
    await page.keyboard.press('Enter');
    await expect(notifications).toHaveAttribute('open', '');
    await expectWithinScreen(notifications.locator(':scope > div'), size.width);
    await page.screenshot({ path: `test-results/screenshots/a11y-notifications-${size.name}.png` });
    await page.keyboard.press('Escape');
    await expect(notifications).not.toHaveAttribute('open', '');
    await expect(bell).toBeFocused();

    // Each menu also closes when a click lands outside it, or the focus leaves it.
    for (const opened of [notifications, walletMenu, menu]) {
      await opened.locator('summary').click();
      await expect(opened).toHaveAttribute('open', '');
      await page.getByRole('main').click({ position: { x: 5, y: 5 } });
      await expect(opened).not.toHaveAttribute('open', '');
    }
    await bell.click();
    await expect(notifications).toHaveAttribute('open', '');
    // From its last link (a decision's), or its button when it lists none, Tab leaves it, and it closes.
    const links = notifications.locator(':scope > div a');
    await expect(notifications.locator('[data-account-notifications-status]')).not.toBeEmpty();
    if ((await links.count()) > 0) await links.last().focus();
    else await bell.focus();
    await page.keyboard.press('Tab');
    await expect(notifications.locator(':focus')).toHaveCount(0);
    await expect(notifications).not.toHaveAttribute('open', '');
    await menuButton.click();
    await expect(menu).toHaveAttribute('open', '');
    await menu.getByRole('link').last().focus();
    await page.keyboard.press('Tab');
    await expect(menu).not.toHaveAttribute('open', '');

    // A group page's 'Ver todas' menu, from one of its links too.
    await page.goto('/group/dep');
    const switcher = page.locator('details[data-group-switcher]');
    await switcher.locator('summary').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await expect(switcher.getByRole('link').first()).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(switcher).not.toHaveAttribute('open', '');
    await expect(switcher.locator('summary')).toBeFocused();
  }
});

test('form fields show a focus ring of 2 px', async ({ page }) => {
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/contacto');
    // The subject field (the first one is the disabled recipient).
    const field = page.locator('main').locator('input:enabled[required]').first();
    await field.click();
    await expect(field).toBeFocused();
    const outline = await field.evaluate((element) => {
      const style = getComputedStyle(element);
      return { style: style.outlineStyle, width: style.outlineWidth };
    });
    expect(outline).toEqual({ style: 'solid', width: '2px' });
  }
});

test("a dashboard tab's focus ring is drawn inside it, where its scrolling list does not clip it", async ({ page }) => {
  await page.goto('/dashboard');
  const tab = page.getByRole('region', { name: 'Fuentes' }).getByRole('tab', { selected: true });
  await tab.focus();
  await page.keyboard.press('ArrowRight');
  const focused = page.getByRole('region', { name: 'Fuentes' }).getByRole('tab', { selected: true });
  await expect(focused).toBeFocused();
  const ring = await focused.evaluate((element) => {
    const style = getComputedStyle(element);
    return { style: style.outlineStyle, width: style.outlineWidth, inside: Number.parseFloat(style.outlineOffset) <= -Number.parseFloat(style.outlineWidth) };
  });
  expect(ring).toEqual({ style: 'solid', width: '2px', inside: true });
  await focused.screenshot({ path: 'test-results/screenshots/a11y-tab-focus.png' });
});

test('on a phone, a dashboard tab chosen by key is brought wholly into its scrolling strip; Home and End reach both ends', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto('/dashboard');
  const region = page.getByRole('region', { name: 'Fuentes' });
  const strip = region.getByRole('tablist');
  const tabs = region.getByRole('tab');
  // The strip is wider than the phone: the case this is about.
  expect(await strip.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  const whollyShown = (tab: typeof tabs) =>
    tab.evaluate((element) => {
      const shown = element.parentElement!.getBoundingClientRect();
      const box = element.getBoundingClientRect();
      return box.left >= shown.left - 1 && box.right <= shown.right + 1;
    });
  await region.getByRole('tab', { selected: true }).focus();
  await page.keyboard.press('End');
  await expect(tabs.last()).toBeFocused();
  await expect(tabs.last()).toHaveAttribute('aria-selected', 'true');
  expect(await whollyShown(tabs.last())).toBe(true);
  await page.keyboard.press('Home');
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
  expect(await whollyShown(tabs.first())).toBe(true);
  const count = await tabs.count();
  for (let step = 1; step < count; step += 1) {
    await page.keyboard.press('ArrowRight');
    const selected = region.getByRole('tab', { selected: true });
    await expect(selected).toBeFocused();
    expect(await whollyShown(selected), `pestaña ${step + 1}`).toBe(true);
  }
  await strip.screenshot({ path: 'test-results/screenshots/a11y-tab-strip-375.png' });
});

test('the upload wizard keeps the focus inside, shows its errors, has one Close and buttons that stay put', async ({ page }) => {
  await signInWithWallet(page);
  for (const size of SIZES) {
    for (const theme of THEMES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme: theme });
      await page.goto('/dashboard');
      await page.getByRole('link', { name: 'Subir Archivo' }).click();
      const dialog = page.getByRole('dialog', { name: 'Subir Archivo' });
      await expect(dialog).toBeVisible();
      const next = dialog.getByRole('button', { name: 'Siguiente' });
      const close = dialog.getByRole('button', { name: 'Close' });
      await expect(close).toHaveCount(1);

      // Tab from the last control comes back to the first, Shift+Tab the other way.
      await next.focus();
      await page.keyboard.press('Tab');
      await expect(close).toBeFocused();
      await page.keyboard.press('Shift+Tab');
      await expect(next).toBeFocused();
      for (let press = 0; press < 12; press++) {
        await page.keyboard.press('Tab');
        expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
      }

      // A refused step: the first invalid field focused, in view, its error announced.
      const at = await next.boundingBox();
      await next.click();
      const title = dialog.getByLabel('Título del documento');
      await expect(title).toBeFocused();
      await expect(title).toBeInViewport();
      await expect(dialog.getByRole('alert').first()).toHaveText('Title is required');
      // The spec's English message is said as English.
      await expect(dialog.getByRole('alert').first()).toHaveAttribute('lang', 'en');
      if (theme === 'light') await page.screenshot({ path: `test-results/screenshots/a11y-upload-errors-${size.name}.png` });
      await title.fill('Estructura orgánica de ProDominicana 2023');
      await dialog.locator('label').filter({ has: page.getByRole('radio', { name: /^PDF/ }) }).click();
      await next.click();
      await expect(dialog.getByRole('heading', { name: 'Detalles' })).toBeVisible();
      // The buttons have not moved.
      expect(await next.boundingBox()).toEqual(at);
      const previous = dialog.getByRole('button', { name: 'Anterior' });
      await expect(previous).toBeEnabled();
      await expect(close).toHaveCount(1);
      await page.screenshot({ path: `test-results/screenshots/a11y-upload-step-2-${size.name}-${theme}.png` });
      await close.click();
      await expect(dialog).toBeHidden();
      await expect(page.getByRole('link', { name: 'Subir Archivo' })).toBeFocused();
    }
  }
});

test("'Subir Archivo' signed out says why it leads to the sign-in page", async ({ page }) => {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto('/dashboard');
      const link = page.getByRole('link', { name: 'Subir Archivo' });
      await expect(link).toHaveAttribute('href', '/auth/login');
      await expect(link).toHaveAccessibleDescription(/hay que iniciar sesión/);
      await expect(page.locator('[data-upload-sign-in-note]')).toBeVisible();
      await page.locator('section[aria-labelledby="contribuir"]').screenshot({ path: `test-results/screenshots/a11y-upload-card-${size.name}-${theme}.png` });
    }
  }
});

test('a phone without a wallet is told what works there, with no alert and no new tab', async ({ browser }) => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    locale: 'es-DO',
    userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36',
  });
  const page = await context.newPage();
  let dialogs = 0;
  page.on('dialog', (dialog) => {
    dialogs += 1;
    void dialog.dismiss();
  });
  let tabs = 0;
  context.on('page', () => (tabs += 1));
  try {
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto('/auth/login');
      const notice = page.locator('[data-no-wallet-here]');
      await expect(notice).toBeVisible();
      await expect(notice).toContainText('Este navegador no tiene una cartera.');
      const origin = new URL(page.url());
      await expect(notice.getByRole('link', { name: 'Abrir esta página en la app MetaMask' })).toHaveAttribute('href', `https://metamask.app.link/dapp/${origin.host}/auth/login`);
      await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();
      await expect(notice).toBeFocused();
      await expect(page).toHaveURL(/\/auth\/login$/);
      await page.screenshot({ path: `test-results/screenshots/a11y-login-phone-${theme}.png`, fullPage: true });
    }
    expect(dialogs).toBe(0);
    expect(tabs).toBe(0);
  } finally {
    await context.close();
  }
});

test('no splash covers the first, already rendered page of a session', async ({ page }) => {
  await page.goto('/dashboard', { waitUntil: 'domcontentloaded' });
  const covering = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')].filter((element) => {
      const style = getComputedStyle(element);
      if (style.position !== 'fixed' || style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
      const box = element.getBoundingClientRect();
      return box.width * box.height >= 0.8 * window.innerWidth * window.innerHeight;
    }).length,
  );
  expect(covering).toBe(0);
  await expect(page.locator('main')).toBeVisible();
});

test('a reader who asked for less motion gets scrolls that jump and charts drawn at once', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const backToTop = page.getByRole('button', { name: 'Volver arriba' });
  /** The positions the page passes through on its way back to the top, the top itself left out. */
  const stopsOnTheWayUp = async () => {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect(backToTop).toBeVisible();
    await page.evaluate(() => {
      const stops: number[] = [];
      Object.assign(window, { stops });
      window.addEventListener('scroll', () => stops.push(window.scrollY), { passive: true });
    });
    await backToTop.click();
    await page.waitForFunction(() => window.scrollY === 0);
    return page.evaluate(() => (window as unknown as { stops: number[] }).stops.filter((y) => y > 0).length);
  };

  // Without the setting the way up glides through positions between the bottom and the top.
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await page.goto('/dashboard');
  expect(await stopsOnTheWayUp()).toBeGreaterThan(0);

  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto('/dashboard');
  expect(await stopsOnTheWayUp()).toBe(0);

  // A chart grows for a second when it is drawn; with the setting it is whole from the start.
  const categories = page.getByRole('region', { name: 'Categorias' });
  await categories.scrollIntoViewIfNeeded();
  const chart = categories.locator('canvas[data-drawn="true"]');
  await expect(chart).toHaveCount(1);
  const drawn = await chart.screenshot();
  await page.waitForTimeout(1500);
  expect((await chart.screenshot()).equals(drawn)).toBe(true);
});

test('the HTML, styles and exports arrive compressed; the /ipfs/ gateway sends bytes as they are', async ({ page, request }) => {
  const html = await request.get('/dashboard', { headers: { 'accept-encoding': 'br, gzip' } });
  expect(html.headers()['content-encoding']).toBe('br');
  expect(html.headers().vary).toMatch(/Accept-Encoding/i);
  expect(await html.text()).toContain('<html lang="es">');

  const gzip = await request.get('/dashboard', { headers: { 'accept-encoding': 'gzip' } });
  expect(gzip.headers()['content-encoding']).toBe('gzip');

  await page.goto('/dashboard');
  const stylesheet = await page.locator('link[rel="stylesheet"]').first().getAttribute('href');
  expect(stylesheet).toBeTruthy();
  const css = await request.get(stylesheet!, { headers: { 'accept-encoding': 'gzip, br' } });
  expect(css.headers()['content-encoding']).toBe('br');

  const cid = (await recordWithFile()).slice(1);
  const file = await request.get(`/ipfs/${cid}`, { headers: { 'accept-encoding': 'gzip, br' } });
  expect(file.status()).toBe(200);
  expect(file.headers()['content-encoding']).toBeUndefined();
  const range = await request.get(`/ipfs/${cid}`, { headers: { 'accept-encoding': 'gzip, br', range: 'bytes=0-99' } });
  expect(range.status()).toBe(206);
  expect(range.headers()['content-encoding']).toBeUndefined();
  expect((await range.body()).length).toBe(100);
});

test('at 320 px (a laptop zoomed to 400 %) no page scrolls sideways and the header keeps every control whole', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  for (const path of ['/dashboard', '/buscar?q=salud', '/group/dep', '/registro/1066', '/general/faq', '/docs']) {
    await page.goto(path);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(320);
    const menu = page.locator('header summary').filter({ hasText: 'Menú' });
    const box = (await menu.boundingBox())!;
    expect(box.x + box.width, path).toBeLessThanOrEqual(320);
  }
});

test("the spec's English labels are marked English, so a screen reader says them as English", async ({ page }) => {
  await page.goto('/buscar?q=salud');
  // Status badges of the results and the status filter.
  const badges = page.locator('[data-status]');
  expect(await badges.count()).toBeGreaterThan(0);
  for (const badge of await badges.all()) await expect(badge).toHaveAttribute('lang', 'en');
  await expect(page.locator('[data-facet="status"] a span[lang="en"]').first()).toBeVisible();
  // A long institution name in the filters: cut to fit, whole to a pointer and to a screen reader.
  const long = page.locator('[data-facet="dep"] a').filter({ hasText: 'Ministerio de Salud Pública y Asistencia' });
  await expect(long).toContainText('…');
  await expect(long).toHaveAccessibleName(/^Ministerio de Salud Pública y Asistencia Social \(MISPAS\)/);
  await expect(long.locator('[title]')).toHaveAttribute('title', 'Ministerio de Salud Pública y Asistencia Social (MISPAS)');
  // The record page: its status, storage, deals and the dataset panel; the history's statuses.
  await page.goto('/registro/1066');
  await expect(page.locator('[data-record-status] span[lang="en"]')).toHaveText('online');
  await expect(page.locator('[data-storage-status]')).toHaveAttribute('lang', 'en');
  await expect(page.getByRole('heading', { name: 'Dataset' })).toHaveAttribute('lang', 'en');
  // And nothing else of the page is: it stays Spanish.
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.locator('main h1')).not.toHaveAttribute('lang', 'en');
});
