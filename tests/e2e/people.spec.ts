/**
 * Reaching people (issue #9), in Chromium: 'Escríbenos' stores a message the moderators read, a
 * filled honeypot stores nothing; the FAQ, the notifications, the theme kept across visits, the
 * splash on a session's first page, and the version in the footer.
 */
import fs from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { signInWithWallet, wallet } from '../helpers/wallet.ts';

test('"Escríbenos" sends a message that appears in the moderators\' inbox; the honeypot path stores nothing', async ({ page }) => {
  const subject = `Documento que falta ${Date.now()}`;
  const trap = `Oferta irresistible ${Date.now()}`;
  await page.goto('/dashboard');
  await page.getByRole('link', { name: 'Escríbenos' }).click();
  const dialog = page.getByRole('dialog', { name: 'Escríbenos' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Para')).toBeDisabled();

  // Both fields are required: nothing is sent while one is empty.
  let posted = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/contacto')) posted += 1;
  });
  await dialog.getByRole('button', { name: 'Enviar' }).click();
  // The browser says why in Spanish, whatever its own language, with the server's words.
  await expect(dialog.getByLabel('Asunto')).toHaveJSProperty('validationMessage', 'Escriba el asunto.');
  await dialog.getByLabel('Asunto').fill(subject);
  await expect(dialog.getByLabel('Asunto')).toHaveJSProperty('validationMessage', '');
  await dialog.getByRole('button', { name: 'Enviar' }).click();
  await expect(dialog.getByLabel('Mensaje')).toHaveJSProperty('validationMessage', 'Escriba el mensaje.');
  expect(posted).toBe(0);

  await dialog.getByLabel('Mensaje').fill('Falta el presupuesto de 2019 del Ministerio de Educación (<b>MINERD</b>).');
  await page.screenshot({ path: 'test-results/screenshots/contact.png' });
  await dialog.getByRole('button', { name: 'Enviar' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Mensaje enviado. Gracias por escribirnos.');
  await expect(dialog.getByRole('button', { name: 'Enviar' })).toBeDisabled();
  expect(posted).toBe(1);
  await dialog.getByRole('button', { name: 'Cerrar' }).click();

  // A robot ticks the hidden box: the same answer, nothing kept.
  await page.reload();
  await page.getByRole('link', { name: 'Escríbenos' }).click();
  await dialog.getByLabel('Asunto').fill(trap);
  await dialog.getByLabel('Mensaje').fill('Compre ya.');
  await dialog.locator('input[name=botcheck]').evaluate((box: HTMLInputElement) => (box.checked = true));
  await dialog.getByRole('button', { name: 'Enviar' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Mensaje enviado. Gracias por escribirnos.');

  await signInWithWallet(page, wallet);
  await page.goto('/moderacion/mensajes');
  const inbox = page.locator('[data-inbox]');
  await expect(inbox).toContainText(subject);
  // Shown as text, never as markup.
  await expect(inbox).toContainText('(<b>MINERD</b>)');
  await expect(inbox).not.toContainText(trap);
});

test('without JavaScript the contact page works as a plain form', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/contacto');
  const main = page.getByRole('main');
  await main.getByLabel('Asunto').fill('Sin JavaScript');
  await main.getByLabel('Mensaje').fill('Este mensaje llega sin scripts.');
  await main.getByRole('button', { name: 'Enviar' }).click();
  await expect(main.getByRole('status').first()).toHaveText('Mensaje enviado. Gracias por escribirnos.');
  // Refused by the server (a subject of blanks passes the browser's «required»): the page says why
  // and gives back what was typed.
  await main.getByLabel('Asunto').fill('   ');
  await main.getByLabel('Mensaje').fill('Este mensaje no se pierde.');
  await main.getByRole('button', { name: 'Enviar' }).click();
  await expect(main.getByRole('alert')).toHaveText('Escriba el asunto.');
  await expect(main.getByLabel('Mensaje')).toHaveValue('Este mensaje no se pierde.');
  await expect(main.getByLabel('Asunto')).toHaveValue('   ');
  await context.close();
});

test('without JavaScript, the dashboard shows every tab and each chart as its numbers, and what needs a script says so or is not offered', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 800 } });
  const page = await context.newPage();
  await page.goto('/dashboard');
  const sources = page.getByRole('region', { name: 'Fuentes' });
  // Every source's panel, one after the other, with its numbers as a table; no dead tab strip, no blank chart.
  await expect(sources.getByRole('tablist')).toBeHidden();
  const panels = sources.getByRole('tabpanel');
  expect(await panels.count()).toBeGreaterThan(1);
  for (const panel of await panels.all()) {
    await expect(panel).toBeVisible();
    await expect(panel.getByRole('table')).toBeVisible();
    await expect(panel.getByRole('row', { name: /^PDF \d+$/ })).toBeVisible();
    await expect(panel.locator('[data-chart-canvas]')).toBeHidden();
  }
  const contribute = page.getByRole('region', { name: 'Subir Archivo' });
  // A <noscript>'s words, rendered without scripts: Playwright's text locators skip <noscript>, the rendered text does not.
  await expect(contribute).toContainText('Subir un archivo necesita JavaScript: la cartera firma la contribución en su navegador.', { useInnerText: true });
  await page.screenshot({ path: 'test-results/screenshots/sin-js-panel.png', fullPage: true });

  await page.goto('/auth/login');
  await expect(page.getByRole('main')).toContainText('Iniciar sesión necesita JavaScript: la cartera firma el mensaje de inicio de sesión en su navegador.', { useInnerText: true });
  await expect(page.getByRole('button', { name: 'Sign in with Magic Connect' })).toBeHidden();

  // A record page (the seed's PDF, by its CID): its copy and verify buttons would do nothing; its download still works.
  const { cid } = await cidOf(await fs.readFile(fixturePath('files/pdf/sisalril-pespj-d1.pdf')));
  await page.goto(`/${cid}`);
  const scripted = page.locator('button[data-copy], [data-verify] button');
  expect(await scripted.count()).toBeGreaterThan(1);
  for (const button of await scripted.all()) await expect(button).toBeHidden();
  await expect(page.getByRole('link', { name: /Descargar/ }).first()).toBeVisible();
  // A CSV's mini-search and the theme switch would do nothing either.
  const csv = await cidOf(await fs.readFile(fixturePath('files/csv/salario-minimo-hacienda-2000-2025.csv')));
  await page.goto(`/${csv.cid}`);
  expect(await page.locator('[data-csv-toggle], [data-theme-toggle]').count()).toBe(2);
  await expect(page.locator('[data-csv-toggle]')).toBeHidden();
  await expect(page.locator('[data-theme-toggle]')).toBeHidden();
  await context.close();
});

test('/faq and /login, the addresses people type, lead to the pages that answer them', async ({ request }) => {
  const faq = await request.get('/faq', { maxRedirects: 0 });
  expect([faq.status(), faq.headers().location]).toEqual([301, '/general/faq']);
  expect((await request.get('/faq?pregunta=cid', { maxRedirects: 0 })).headers().location).toBe('/general/faq?pregunta=cid');
  const login = await request.get('/login?next=%2Fprofile', { maxRedirects: 0 });
  expect([login.status(), login.headers().location]).toEqual([301, '/auth/login?next=%2Fprofile']);
});

test('the FAQ answers the essentials, with structured data', async ({ page }) => {
  await page.goto('/general/faq');
  await expect(page.getByRole('heading', { level: 1, name: 'Preguntas frecuentes' })).toBeVisible();
  for (const question of ['¿Qué es un CID?', '¿Cómo contribuyo un documento?', '¿En qué se basa legalmente el archivo?']) {
    await expect(page.getByRole('heading', { name: question })).toBeVisible();
  }
  await page.getByText('¿Cómo compruebo que un archivo no fue alterado?').click();
  await expect(page.getByText(/el botón «Verificar»/)).toBeVisible();
  await page.getByText('¿En qué se basa legalmente el archivo?').click();
  await expect(page.getByText(/Ley General 200-04/)).toBeVisible();
  const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}');
  expect(jsonLd['@type']).toBe('FAQPage');
  expect(jsonLd.mainEntity.length).toBeGreaterThanOrEqual(6);
  await page.screenshot({ path: 'test-results/screenshots/faq.png', fullPage: true });
});

test('notifications, the version, no splash over a rendered page, and a theme that is kept', async ({ page }) => {
  // The first page of a session arrives rendered: no "Loading ..." covers it (issue #20).
  await page.goto('/dashboard');
  await expect(page.locator('.splash')).toHaveCount(0);
  await expect(page.locator('html')).not.toHaveClass(/show-splash/);
  await page.goto('/group/src');
  await expect(page.locator('html')).not.toHaveClass(/show-splash/);

  const asked: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/v2/account/notifications') asked.push(request.url());
  });
  // The dropdown's script runs when it opens (`toggle`): it is waited for, so that what follows checks its work.
  const toggled = page.locator('details[data-notifications]').evaluate((element) => new Promise((resolve) => element.addEventListener('toggle', resolve, { once: true })));
  await page.getByRole('group').filter({ has: page.getByText('Notificaciones') }).locator('summary').click();
  await toggled;
  await expect(page.getByText('Welcome', { exact: true })).toBeVisible();
  // Signed out, there is no one to tell of a decision: the welcome alone, and nothing asked of the server.
  await expect(page.locator('[data-account-notifications]')).toBeHidden();
  await expect(page.locator('[data-account-notifications-status]')).toBeEmpty();
  expect(asked).toEqual([]);
  await expect(page.locator('[data-version]')).toHaveText('Versión 1.3.0');

  const toggle = page.getByRole('button', { name: 'Cambiar tema claro u oscuro' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.screenshot({ path: 'test-results/screenshots/dark.png' });
  await page.getByRole('button', { name: 'Cambiar tema claro u oscuro' }).click();
  await page.reload();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
});

test('on a phone, the signed-in header keeps every control on screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await signInWithWallet(page, wallet);
  const header = page.getByRole('navigation', { name: 'Principal' });
  for (const control of [header.getByRole('link', { name: 'Archivo Abierto' }), header.locator('[data-account]'), header.getByText('Menú')]) {
    const box = (await control.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await page.screenshot({ path: 'test-results/screenshots/header-phone.png' });
  // At 360 px, the width of many phones, the search, theme, notifications, account and menu
  // controls still share one row under the name.
  await page.setViewportSize({ width: 360, height: 800 });
  const controls = [header.locator('[data-search-open]'), header.locator('[data-theme-toggle]'), header.locator('[data-notifications] summary'), header.locator('[data-account]'), header.locator('[data-mega-menu] summary')];
  const middles = await Promise.all(controls.map(async (control) => { const box = (await control.boundingBox())!; return box.y + box.height / 2; }));
  for (const middle of middles) expect(Math.abs(middle - middles[0]!)).toBeLessThanOrEqual(4);
});
