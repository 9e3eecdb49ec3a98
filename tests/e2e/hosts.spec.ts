/**
 * What a request's `Host` may decide (issue #16): nothing. Odd values are refused before the
 * adapter builds a URL from them (one used to stop the process), names that are not the
 * archive's get a 400, and the archive's own aliases are served with the configured public URLs.
 * Sent with node:http, which, unlike fetch, lets a test write any Host it likes.
 */
import http from 'node:http';
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 4399);
/** The configured public origin: the address the server was started on (playwright.config.ts). */
const PUBLIC = `http://localhost:${PORT}`;

function send(path: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers = { Host: host, ...options.headers };
    const request = http.request({ host: '127.0.0.1', port: PORT, path, method: options.method ?? 'GET', headers, setHost: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

test('a Host with credentials or a path is refused, and the server goes on serving', async () => {
  for (const host of ['x@y', 'a@b', 'evil.example/moderacion?']) {
    for (const path of ['/', '/dashboard', '/favicon.svg']) {
      const answer = await send(path, host);
      expect(answer.status, `${host} ${path}`).toBe(400);
      expect(answer.body).toContain('Cabecera Host no válida');
    }
  }
  expect((await send('/dashboard', `localhost:${PORT}`)).status).toBe(200);
});

test('a name that is not the archive gets a 400, never its own URLs in our answers', async () => {
  for (const path of ['/robots.txt', '/sitemap.xml', '/catalog.ttl', '/export/catalogo.csv', '/openapi.json']) {
    const answer = await send(path, 'evil.example');
    expect(answer.status, path).toBe(400);
    expect(answer.body).not.toContain('http://evil.example');
  }
});

test("the archive's loopback aliases are served, with the configured public URLs", async () => {
  const robots = await send('/robots.txt', `127.0.0.1:${PORT}`);
  expect(robots.status).toBe(200);
  expect(robots.body).toContain(`Sitemap: ${PUBLIC}/sitemap.xml`);
  const catalogue = await send('/catalog.ttl', `127.0.0.1:${PORT}`);
  expect(catalogue.status).toBe(200);
  expect(catalogue.body).toContain(`<${PUBLIC}/`);
  expect(catalogue.body).not.toContain(`127.0.0.1:${PORT}`);
});

test("the archive's own forms are accepted behind a proxy that ends TLS, others' are not", async () => {
  // The browser is on https://, the proxy talks http:// to the archive: the sign-out form's Origin
  // is https:// while the request the adapter sees is http:// (Astro's own check refused it).
  const form = (origin: string) => ({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '0', Origin: origin }, body: '' });
  expect((await send('/logout', `localhost:${PORT}`, form(`https://localhost:${PORT}`))).status).toBe(303);
  expect((await send('/logout', `localhost:${PORT}`, form('https://evil.example'))).status).toBe(403);
});

test('an address refused before any route is a page to a browser, and JSON to everything else', async ({ page }) => {
  // A NUL (refused by the middleware) and a «%» that forms no character (refused before the adapter).
  for (const [path, says] of [
    ['/buscar?q=%00', 'El texto contiene un carácter nulo (NUL), que no se admite.'],
    ['/buscar?q=%E0%A4', 'La dirección tiene un «%» que no forma un carácter (escriba «%25» para un «%»).'],
  ] as const) {
    const answer = await page.goto(`${PUBLIC}${path}`);
    expect(answer?.status(), path).toBe(400);
    expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await expect(page.getByRole('heading', { level: 1, name: 'La dirección no es válida' })).toBeVisible();
    await expect(page.getByText(says)).toBeVisible();
    await page.getByRole('link', { name: 'Ir al inicio' }).click();
    // The home page is the dashboard.
    await expect(page).toHaveURL(`${PUBLIC}/dashboard`);
    await page.goto(`${PUBLIC}${path}`);
    await page.screenshot({ path: `test-results/screenshots/rechazo-${path.endsWith('00') ? 'nul' : 'porcentaje'}.png` });
    // A script, curl or the API's client asks for JSON, or for anything: the same words in JSON.
    for (const accept of ['application/json', '*/*']) {
      const api = await send(path, `localhost:${PORT}`, { headers: { Accept: accept } });
      expect(api.status).toBe(400);
      expect(JSON.parse(api.body)).toEqual({ code: 400, message: says });
    }
  }
  // A browser sent with a Host the archive does not answer to is led back to its configured address.
  const elsewhere = await send('/', 'evil.example', { headers: { Accept: 'text/html' } });
  expect(elsewhere.status).toBe(400);
  expect(elsewhere.body).toContain(`<a href="${PUBLIC}/">Ir al inicio</a>`);
});

test('an old link escaped in Windows-1252 is sent to the same address in UTF-8, never to another site', async ({ page }) => {
  const moved = await send('/buscar?q=educaci%F3n', `localhost:${PORT}`);
  expect([moved.status, moved.headers.location]).toEqual([301, '/buscar?q=educaci%C3%B3n']);
  // A browser following it searches for the word as it was meant.
  await page.goto(`${PUBLIC}/buscar?q=educaci%F3n`);
  await expect(page).toHaveURL(`${PUBLIC}/buscar?q=educaci%C3%B3n`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('educación');
  // Only a path of this site: «//otro.example» would be another host, and UTF-8 cut short is no Windows-1252.
  for (const path of ['//evil.example/%F3', '/\\evil.example/%F3', '/buscar?q=%E0%A4']) {
    const refused = await send(path, `localhost:${PORT}`, { headers: { Accept: 'application/json' } });
    expect([refused.status, refused.headers.location], path).toEqual([400, undefined]);
  }
  // A change is never redirected: its body would be lost on the way.
  expect((await send('/contacto?q=%F3', `localhost:${PORT}`, { method: 'POST', headers: { Accept: 'application/json' } })).status).toBe(400);
});

/** Writes `request` as it is on a connection of its own, and reads everything the server answers until it closes. */
function rawExchange(request: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(PORT, '127.0.0.1', () => socket.end(request));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

test('a request too large to read is refused in Spanish, as a page, and the server goes on serving', async ({ page }) => {
  // A pasted search of some 24 KB: past the 16 KB of headers Node reads (Chromium sends it whole).
  const answer = await page.goto(`${PUBLIC}/buscar?q=${encodeURIComponent('presupuesto '.repeat(2_000))}`);
  expect(answer?.status()).toBe(431);
  expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
  expect(answer?.headers()['content-security-policy']).toContain("default-src 'none'");
  await expect(page.getByRole('heading', { level: 1, name: 'La petición es demasiado grande' })).toBeVisible();
  await expect(page.getByText('Su dirección y sus cabeceras (las cookies incluidas) pasan de 16 KB. Acorte la dirección')).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/rechazo-demasiado-grande.png' });
  await page.getByRole('link', { name: 'Buscar en el archivo' }).click();
  await expect(page).toHaveURL(`${PUBLIC}/buscar`);
  // One header that alone passes the limit, from any client: the same status and words.
  const header = await send('/dashboard', `localhost:${PORT}`, { headers: { 'X-Relleno': 'a'.repeat(20_000) } });
  expect(header.status).toBe(431);
  expect(header.body).toContain('Su dirección y sus cabeceras (las cookies incluidas) pasan de 16 KB.');
  // A HEAD gets the status and headers alone, no page after them.
  const head = await rawExchange(`HEAD /dashboard HTTP/1.1\r\nHost: localhost:${PORT}\r\nX-Relleno: ${'a'.repeat(20_000)}\r\n\r\n`);
  expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  expect(head).toMatch(/\r\nContent-Length: [1-9]\d*\r\n/);
  expect(head.endsWith('\r\n\r\n')).toBe(true);
  // Not HTTP at all: a 400 in Spanish.
  const garbage = await rawExchange('HOLA QUE TAL\r\n\r\n');
  expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  expect(garbage).toContain('<h1>La petición no es válida</h1>');
  expect(garbage).toContain('La petición no es HTTP válido.');
  expect((await send('/dashboard', `localhost:${PORT}`)).status).toBe(200);
});
