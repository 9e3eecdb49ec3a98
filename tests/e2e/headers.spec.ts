/**
 * Security headers (issue #10) on every kind of HTML page, rendered or built ahead: a CSP whose
 * scripts are hashed (never 'unsafe-inline'), no framing, no sniffing, a careful referrer; the
 * session cookie HttpOnly, SameSite and Secure behind HTTPS; and no CSP violation in real use.
 */
import fs from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { signedProof } from '../helpers/siwe.ts';
import { otherWallet, signInOverApi } from '../helpers/wallet.ts';

const PAGES = ['/dashboard', '/group/dep', '/collection/cat/1', '/buscar?q=salud', '/docs', '/general/faq', '/auth/login', '/contacto', '/no-existe'];

test('every HTML page carries the security headers, its CSP without unsafe-inline scripts', async ({ request }) => {
  for (const path of PAGES) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.headers()['content-type'], path).toMatch(/^text\/html/);
    const headers = response.headers();
    const csp = headers['content-security-policy'] ?? '';
    const scriptSrc = csp.split(';').map((part) => part.trim()).find((part) => part.startsWith('script-src')) ?? '';
    expect(scriptSrc, path).toMatch(/^script-src 'self'/);
    expect(scriptSrc, path).not.toContain('unsafe-inline');
    expect(scriptSrc, path).not.toContain('unsafe-eval');
    expect(csp, path).toContain("frame-ancestors 'none'");
    expect(csp, path).toContain("object-src 'none'");
    expect(headers['x-content-type-options'], path).toBe('nosniff');
    expect(headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
    expect(headers['x-frame-options'], path).toBe('DENY');
  }
});

test('the session cookie is HttpOnly and SameSite, and Secure when the archive is reached over HTTPS', async ({ request, baseURL }) => {
  const host = new URL(baseURL!).host;
  for (const proto of ['http', 'https']) {
    const { nonce } = (await (await request.get('/auth/nonce')).json()) as { nonce: string };
    // Not the main test wallet: its sign-ins in the neighbouring specs count against one per-minute limit.
    const proof = await signedProof(otherWallet, { nonce, domain: host, uri: baseURL! });
    const response = await request.post('/auth/login', {
      data: { ...proof, provider: 'metamask' },
      headers: { 'X-Forwarded-Proto': proto, Origin: baseURL! },
    });
    expect(response.status()).toBe(200);
    const cookie = response.headersArray().find((header) => header.name.toLowerCase() === 'set-cookie')?.value ?? '';
    expect(cookie).toMatch(/archivo_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    if (proto === 'https') expect(cookie).toMatch(/Secure/i);
    else expect(cookie).not.toMatch(/Secure/i);
  }
});

test('a page the same for everyone may be kept a minute by any cache, but not as answered to a signed-in user', async ({ request, baseURL }) => {
  const anonymous = await request.get('/dashboard');
  expect(anonymous.headers()['cache-control']).toBe('public, max-age=60');
  expect(anonymous.headers()['vary'] ?? '').toMatch(/\bCookie\b/);
  // Not the main test wallet: its sign-ins in the neighbouring specs count against one per-minute limit.
  const bearer = { Authorization: `Bearer ${await signInOverApi(request, baseURL!, otherWallet)}` };
  for (const path of ['/dashboard', '/buscar?q=salud', '/group/dep']) {
    const signedIn = await request.get(path, { headers: bearer });
    expect(signedIn.status(), path).toBe(200);
    expect(signedIn.headers()['cache-control'], path).toBe('private, no-cache');
  }
  // Files are the same for everyone: still kept for a year, by any cache.
  const { cid } = await cidOf(await fs.readFile(fixturePath('files/csv/licencias-construccion-mivhed-2022-2025.csv')));
  const file = await request.get(`/ipfs/${cid}`, { headers: bearer });
  expect(file.status()).toBe(200);
  expect(file.headers()['cache-control']).toMatch(/^public, max-age=31536000/);
});

test('pages with scripts, charts, islands and workers run without a single CSP violation', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto('/dashboard');
  await page.mouse.wheel(0, 2000);
  await page.locator('canvas').first().waitFor({ state: 'attached' });
  await page.goto('/auth/login');
  await page.goto('/general/faq');
  await page.getByRole('link', { name: 'Buscar' }).first().click();
  await page.waitForTimeout(300);
  const csv = await (await page.request.get('/alexandrias?type=csv&_limit=1&status=on_line')).json();
  await page.goto(`/single/src/${csv[0].cid}`);
  await page.getByRole('button', { name: 'Buscar en el CSV' }).click();
  await expect(page.getByRole('searchbox', { name: 'Buscador' })).toBeEnabled();
  expect(violations).toEqual([]);
});
