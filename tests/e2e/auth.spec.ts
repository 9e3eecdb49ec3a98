import { expect, test } from '@playwright/test';
import { CLOSED_ARCHIVE_URL } from '../../playwright.config.ts';

import { injectWallet, SHORT, signInOverApi, wallet } from '../helpers/wallet.ts';

test('a wallet signs in for real, stays signed in after a reload, and signs out', async ({ page }) => {
  await injectWallet(page);
  // A `next` that names another host (issue #16: open redirect) is not followed.
  await page.goto('/auth/login?next=//evil.example/phish');
  await expect(page.getByRole('heading', { level: 1, name: 'Bienvenido a Archivo Abierto' })).toBeVisible();
  await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();

  await expect(page).toHaveURL(/\/dashboard$/);
  const account = page.locator('[data-account]');
  await expect(account).toHaveText(SHORT);
  expect(SHORT).toHaveLength(15);

  await page.reload();
  await expect(account).toHaveText(SHORT);
  // Signed in, the sign-in page leads home.
  await page.goto('/auth');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.screenshot({ path: 'test-results/screenshots/signed-in.png' });

  // A link to /logout (from any site) only offers the button: the session goes on (issue #16).
  await page.goto('/logout');
  await expect(page.getByRole('heading', { level: 1, name: 'Cerrar sesión' })).toBeVisible();
  expect((await page.request.get('/auth/get-user')).status()).toBe(200);
  await page.screenshot({ path: 'test-results/screenshots/logout-page.png' });
  await page.goto('/dashboard');
  await expect(account).toHaveText(SHORT);

  await page.getByRole('button', { name: 'Cerrar sesión' }).click();
  await expect(page).toHaveURL(/\/auth\/login/);
  await expect(page.getByRole('status')).toHaveText('Ha cerrado la sesión.');
  await page.goto('/dashboard');
  await expect(page.getByRole('link', { name: 'Iniciar sesión' })).toBeVisible();
  await expect(account).toBeHidden();
  // The session is over on the server too.
  const after = await page.request.get('/auth/get-user');
  expect(after.status()).toBe(401);
});

test('without a wallet extension, the alert sends to install one and login stops', async ({ page, context }) => {
  await page.goto('/auth/login');
  let alerted = '';
  page.once('dialog', (dialog) => {
    alerted = dialog.message();
    void dialog.accept();
  });
  // The wallet's site opens in a new tab; this machine has no internet, so the test answers for it.
  await context.route('https://metamask.io/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>MetaMask</title>' }));
  const popup = context.waitForEvent('page');
  await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();
  const tab = await popup;
  await tab.waitForLoadState();
  expect(tab.url()).toBe('https://metamask.io/download/');
  expect(alerted).toContain('MetaMask');
  await expect(page).toHaveURL(/\/auth\/login$/);
  await expect(page.getByRole('button', { name: 'Sign in with Magic Connect' })).toBeEnabled();
});

test('a wallet that yields no account shows the spec error, and the button comes back', async ({ page }) => {
  await injectWallet(page, { accounts: [] });
  await page.goto('/auth/login');
  await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();
  await expect(page.getByRole('alert')).toHaveText('500: connection not valid');
  await expect(page.getByRole('button', { name: 'Sign in with Magic Connect' })).toBeEnabled();
  // The first page of a visit shows the splash for half a second: the picture is of the page.
  await expect(page.locator('.splash')).toBeHidden({ timeout: 2000 });
  await page.screenshot({ path: 'test-results/screenshots/login-error.png' });
});

test('the password reset validates, waits, and answers the same for everyone', async ({ page }) => {
  await page.goto('/auth/forgot-password');
  const email = page.getByLabel('Correo electrónico');
  await page.getByRole('button', { name: 'Enviar' }).click();
  await expect(page.getByText('Email is required')).toBeVisible();
  await email.fill('no-es-correo');
  await page.getByRole('button', { name: 'Enviar' }).click();
  await expect(page.getByText('Wrong email format')).toBeVisible();
  await email.fill('datos@one.gob.do');
  await page.getByRole('button', { name: 'Enviar' }).click();
  await expect(page.getByRole('button', { name: 'Please wait...' })).toBeDisabled();
  await expect(page.getByRole('status')).toHaveText('Sent password reset. Please check your email');
  await page.screenshot({ path: 'test-results/screenshots/forgot-password.png' });
});

test('without JavaScript the password reset form answers on its page, and keeps what was typed', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/auth/forgot-password');
  const email = page.getByLabel('Correo electrónico');
  await email.fill('no-es-correo');
  await page.getByRole('button', { name: 'Enviar' }).click();
  // Its page again, not the API's JSON: the reason, and the address to correct.
  await expect(page.getByRole('alert')).toHaveText('Wrong email format');
  await expect(email).toHaveValue('no-es-correo');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveAccessibleDescription('Wrong email format');
  await email.fill('datos@one.gob.do');
  await page.getByRole('button', { name: 'Enviar' }).click();
  await expect(page.getByRole('status')).toHaveText('Sent password reset. Please check your email');
  await context.close();
});

test('the auth endpoints answer 400 and 401 as the spec says', async ({ request }) => {
  expect((await request.post('/auth/login', { data: {} })).status()).toBe(400);
  expect((await request.post('/auth/login', { data: { message: 'x', signature: `0x${'1'.repeat(130)}`, provider: 'metamask' } })).status()).toBe(400);
  const forged = Buffer.from(`${wallet.address.toLowerCase()}-metamask`).toString('base64');
  const unauthorized = await request.get('/auth/get-user', { headers: { Authorization: `Bearer ${forged}` } });
  expect(unauthorized.status()).toBe(401);
  expect(await unauthorized.json()).toMatchObject({ code: 401 });
  expect((await request.get('/auth/nonce')).status()).toBe(200);
  expect((await request.get('/auth/otra-cosa', { maxRedirects: 0 })).headers().location).toBe('/auth/login');
});

test('signed in, an unknown path leads home, but a missing record is still a 404', async ({ page }) => {
  await injectWallet(page);
  await page.goto('/auth/login');
  await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/esta/ruta/no-existe');
  await expect(page).toHaveURL(/\/dashboard$/);
  const missing = await page.goto('/single/src/bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku');
  expect(missing?.status()).toBe(404);
});

test('with ARCHIVE_REQUIRE_LOGIN, every path but /auth/* waits for a session', async ({ page }) => {
  await injectWallet(page);
  const robots = await page.request.get(`${CLOSED_ARCHIVE_URL}/robots.txt`);
  expect(await robots.text()).toBe('User-agent: *\nDisallow: /\n');
  for (const path of ['/dashboard', '/group/src', '/', '/sitemap.xml']) {
    await page.goto(`${CLOSED_ARCHIVE_URL}${path}`);
    await expect(page).toHaveURL(`${CLOSED_ARCHIVE_URL}/auth/login`);
  }
  await page.getByRole('button', { name: 'Sign in with Magic Connect' }).click();
  await expect(page).toHaveURL(`${CLOSED_ARCHIVE_URL}/dashboard`);
  await expect(page.getByRole('heading', { name: 'Archivos Depositados' })).toBeVisible();
  await page.goto(`${CLOSED_ARCHIVE_URL}/group/cat`);
  await expect(page.getByRole('heading', { level: 1, name: 'Categorias' })).toBeVisible();
});

test('with ARCHIVE_REQUIRE_LOGIN, a client signed in with Authorization: Bearer reaches pages and the API', async ({ playwright }) => {
  // Sign in over the API as the README shows: a nonce, a signed SIWE message, an accessToken.
  const signIn = await playwright.request.newContext({ baseURL: CLOSED_ARCHIVE_URL });
  const accessToken = await signInOverApi(signIn, CLOSED_ARCHIVE_URL);
  await signIn.dispose();

  // Another client, without the cookie the sign-in set: only the header says who it is.
  const client = await playwright.request.newContext({ baseURL: CLOSED_ARCHIVE_URL });
  const bearer = { Authorization: `Bearer ${accessToken}` };
  const anonymous = await client.get('/dashboard', { maxRedirects: 0 });
  expect(anonymous.status()).toBe(302);
  expect(anonymous.headers().location).toBe('/auth/login');

  const dashboard = await client.get('/dashboard', { headers: bearer, maxRedirects: 0 });
  expect(dashboard.status()).toBe(200);
  expect(await dashboard.text()).toContain('Archivos Depositados');
  // Behind a login nothing is for a shared cache, which would hand it to anyone.
  expect(dashboard.headers()['cache-control']).toBe('private, no-cache');
  const api = await client.get('/v2/open-data/alexandrias/getAll?limit=1', { headers: bearer, maxRedirects: 0 });
  expect(api.status()).toBe(200);
  expect(api.headers()['cache-control']).toBe('private, max-age=60');
  expect(await api.json()).toMatchObject({ code: 200 });
  const me = await client.get('/auth/get-user', { headers: bearer, maxRedirects: 0 });
  expect(me.status()).toBe(200);
  expect((await me.json()).user.account).toBe(wallet.address.toLowerCase());
  // A wrong API path is a 404 for an API client, not a redirect to the dashboard's HTML.
  const missing = await client.get('/v2/open-data/nada', { headers: { ...bearer, Accept: 'application/json' }, maxRedirects: 0 });
  expect(missing.status()).toBe(404);
  await client.dispose();
});

test('a stored session the server no longer knows signs the header out', async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem(
      'archivo-abierto:auth:v1',
      JSON.stringify({ accessToken: 'caducado', user: { id: 'eA==', account: '0x0000000000000000000000000000000000000001', provider: 'metamask' } }),
    );
  });
  await page.goto('/dashboard');
  await expect(page.getByRole('link', { name: 'Iniciar sesión' })).toBeVisible();
  await expect(page.locator('[data-account]')).toBeHidden();
  expect(await page.evaluate(() => localStorage.getItem('archivo-abierto:auth:v1'))).toBeNull();
});

test('registering takes the same signed proof, and the names', async ({ request }) => {
  const { nonce } = await (await request.get('/auth/nonce')).json();
  const { signInMessage } = await import('../../src/lib/domain/siwe-message.ts');
  const now = new Date();
  const message = signInMessage({
    domain: new URL(test.info().project.use.baseURL!).host,
    address: wallet.address,
    statement: 'Inicio de sesion en Archivo Abierto con esta cartera.',
    uri: test.info().project.use.baseURL!,
    chainId: 11155111,
    nonce,
    issuedAt: now.toISOString(),
  });
  const signature = await wallet.signMessage(message);
  const response = await request.post('/auth/register', { data: { message, signature, provider: 'metamask', firstname: 'Ana', lastname: 'Pérez' } });
  expect(response.status()).toBe(200);
  const { accessToken, user } = await response.json();
  expect(user.account).toBe(wallet.address.toLowerCase());
  const me = await request.get('/auth/get-user', { headers: { Authorization: `Bearer ${accessToken}` } });
  expect((await me.json()).user).toEqual(user);
  // The same proof twice: its nonce is spent.
  expect((await request.post('/auth/register', { data: { message, signature, provider: 'metamask' } })).status()).toBe(401);
});
