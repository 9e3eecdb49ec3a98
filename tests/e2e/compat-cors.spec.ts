/**
 * The original front end ran on another origin than its API (issue #22). A page served by a tiny
 * server of the test's own on 127.0.0.1 (another origin than the archive's `localhost`) reads the
 * archive in Chromium as the original did: GraphQL by POST with JSON (a preflight), the storage
 * status with the API-marketplace headers (a preflight), the open-data and Strapi-style REST reads,
 * their errors, and a category icon. What changes state or reads a person's data stays closed to it.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';

let server: http.Server;
let pageOrigin: string;

test.beforeAll(async () => {
  server = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="es"><head><title>Otro portal</title></head><body><h1>Otro portal</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** What a cross-origin `fetch` in the page got: its status and body, or the error that stopped it. */
interface Read {
  status?: number;
  body?: string;
  error?: string;
}

test('a page on another origin reads GraphQL, the REST reads and their errors, as the original front end did', async ({ page, baseURL }) => {
  await page.goto(pageOrigin);
  await expect(page.getByRole('heading', { name: 'Otro portal' })).toBeVisible();
  expect(new URL(baseURL!).origin).not.toBe(pageOrigin);

  const read = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    page.evaluate(
      async ({ url, init }): Promise<Read> => {
        try {
          const response = await fetch(url, init);
          return { status: response.status, body: await response.text() };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { url: new URL(path, baseURL).href, init },
    );

  // GraphQL as the original posts it: JSON, no variables (the side bar's categories, every page's).
  const sideBar = await read('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      query: '{ categoriesConnection { groupBy { id { key connection { values { id title icon { url } } aggregate { count totalCount } } } } } }',
    }),
  });
  expect(sideBar.error).toBeUndefined();
  expect(sideBar.status).toBe(200);
  const groups = JSON.parse(sideBar.body!).data.categoriesConnection.groupBy.id as Array<{ connection: { values: Array<{ icon: { url: string } }> } }>;
  expect(groups).toHaveLength(11);

  // A category's icon is a real SVG the other origin can show.
  const iconUrl = groups[0]!.connection.values[0]!.icon.url;
  const iconWidth = await page.evaluate(
    (src) =>
      new Promise<number>((resolve) => {
        const image = new Image();
        image.onload = () => resolve(image.naturalWidth);
        image.onerror = () => resolve(0);
        image.src = src;
      }),
    new URL(new URL(iconUrl).pathname, baseURL).href,
  );
  expect(iconWidth).toBeGreaterThan(0);

  // The timeline: `source` and `wallet` are plain texts.
  const timeline = await read('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ imports(limit: 5, sort: "updatedAt:desc", where: {}) { id source documents wallet status } }' }),
  });
  const imports = JSON.parse(timeline.body!).data.imports as Array<{ source: unknown; wallet: unknown }>;
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.every((row) => typeof row.source === 'string' && typeof row.wallet === 'string')).toBe(true);

  // The storage status, with the headers the original's API-marketplace client adds.
  const record = await read('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ alexandrias(limit: 1, where: { type: "pdf" }) { cid } }' }),
  });
  const cid = JSON.parse(record.body!).data.alexandrias[0].cid as string;
  const marketplace = { 'x-rapidapi-host': 'archivo.example', 'x-rapidapi-key': 'clave-del-cliente' };
  const storage = await read(`/v1/services/filecoin/${cid}`, { headers: marketplace });
  expect(storage.error).toBeUndefined();
  expect(storage.status).toBe(200);
  expect(JSON.parse(storage.body!).body.pins[0].status).toBe('Pinned');
  const latest = await read('/v2/open-data/alexandrias/getAll?wallet_address=0x71c7656ec7ab88b098defb751b7401b5f6d8976f&limit=5&sort=createdAt:-1', { headers: marketplace });
  expect(latest.status).toBe(200);

  // The open-data envelope and the admin host's Strapi answers.
  for (const [path, check] of [
    ['/v2/open-data/departments/getAll?_start=0&_limit=15', (json: any) => expect(JSON.parse(json.body)).toHaveLength(15)],
    ['/v2/open-data/categories/getAll', (json: any) => expect(JSON.parse(json.body)).toHaveLength(11)],
    ['/v1/api/sources/getAll?limit=5', (json: any) => expect(JSON.parse(json.body)).toHaveLength(5)],
    ['/departments', (json: any) => expect(json.length).toBe(100)],
    ['/departments?_start=0&_limit=15', (json: any) => expect(json).toHaveLength(15)],
    ['/sources?_start=0&_limit=15', (json: any) => expect(json.length).toBeGreaterThan(0)],
    ['/alexandrias?_limit=0&_start=1&_sort=desc', (json: any) => expect(json).toHaveLength(100)],
    ['/alexandrias?type=pdf&_limit=0&_start=1&_sort=desc', (json: any) => expect(json.every((item: { type: string }) => item.type === 'pdf')).toBe(true)],
    ['/imports?_start=1&_limit=5&_sort=aletheias', (json: any) => expect(Array.isArray(json)).toBe(true)],
    ['/imports/count', (json: any) => expect(typeof json).toBe('number')],
  ] as const) {
    const answer = await read(path);
    expect(answer.error, path).toBeUndefined();
    expect(answer.status, path).toBe(200);
    check(JSON.parse(answer.body!));
  }
  const department = JSON.parse((await read('/departments?_limit=1')).body!)[0] as { id: number };
  const one = await read(`/departments/${department.id}`);
  expect(JSON.parse(one.body!)).toMatchObject({ id: department.id, name: expect.any(String) });

  // Errors are readable too: the client reads the refusal instead of failing with a CORS error.
  for (const [path, status] of [
    ['/departments/999999', 404],
    ['/alexandrias?type=docx', 400],
    ['/v1/api/ministerios/getAll', 404],
    ['/v2/open-data/no-existe', 404],
    ['/v1/services/filecoin/no-es-un-cid', 400],
  ] as const) {
    const answer = await read(path, { headers: marketplace });
    expect(answer.error, path).toBeUndefined();
    expect(answer.status, path).toBe(status);
  }
  const refusedQuery = await read('/graphql', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ nfts { id } }' }) });
  expect(refusedQuery.error).toBeUndefined();
  expect(JSON.parse(refusedQuery.body!).errors[0].message).toMatch(/no tiene el campo «nfts»/);
});

test('the preflight admits JSON and the marketplace headers for reads, and nothing that changes state', async ({ request }) => {
  const headers = { Origin: 'https://app.aletheiadata.example', 'Access-Control-Request-Headers': 'content-type,x-rapidapi-host,x-rapidapi-key' };
  for (const [path, method] of [
    ['/graphql', 'POST'],
    ['/v1/services/filecoin/bafkreiem5lszrzjavnid7gdplmxb2w77sn6wo27qg2jnxxffduuwgxk53a', 'GET'],
    ['/v2/open-data/alexandrias/getAll', 'GET'],
    ['/departments/1', 'GET'],
  ] as const) {
    const preflight = await request.fetch(path, { method: 'OPTIONS', headers: { ...headers, 'Access-Control-Request-Method': method } });
    expect(preflight.status(), path).toBe(204);
    expect(preflight.headers()['access-control-allow-origin'], path).toBe('*');
    expect(preflight.headers()['access-control-allow-methods'], path).toContain(method);
    expect(preflight.headers()['access-control-allow-headers']?.toLowerCase(), path).toContain('x-rapidapi-key');
    expect(preflight.headers()['access-control-allow-credentials'], path).toBeUndefined();
  }
  for (const path of ['/v2/ops/assets/add', '/auth/login', '/auth/get-user']) {
    const preflight = await request.fetch(path, { method: 'OPTIONS', headers: { ...headers, 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.headers()['access-control-allow-origin'], path).toBeUndefined();
  }
});

test('a page on another origin downloads a file by ranges and conditions, and reads the catalogue, exports and feeds', async ({ page, baseURL }) => {
  const { cid } = await cidOf(await fs.readFile(fixturePath('files', 'csv/licencias-construccion-mivhed-2022-2025.csv')));
  await page.goto(pageOrigin);
  const results = await page.evaluate(
    async ({ base, cid }) => {
      const read = async (path: string, headers: Record<string, string> = {}) => {
        try {
          const response = await fetch(new URL(path, base), { headers });
          const body = await response.text();
          return { status: response.status, length: body.length, etag: response.headers.get('ETag'), range: response.headers.get('Content-Range') };
        } catch (error) {
          return { error: String(error) };
        }
      };
      // A suffix range and a condition are not CORS-safelisted: each needs the preflight to admit it.
      const tail = await read(`/ipfs/${cid}`, { Range: 'bytes=-5' });
      const whole = await read(`/ipfs/${cid}`);
      const again = 'etag' in whole && whole.etag ? await read(`/ipfs/${cid}`, { 'If-None-Match': whole.etag }) : { error: 'sin ETag' };
      const documents = await Promise.all(['/catalog.jsonld', '/catalog.ttl', '/export/catalogo.csv', '/export/catalogo.json', '/feeds/cambios.atom', '/openapi.json'].map((path) => read(path, { 'If-Modified-Since': 'Sat, 01 Jan 2000 00:00:00 GMT' })));
      return { tail, again, documents };
    },
    { base: baseURL!, cid },
  );
  expect(results.tail).toMatchObject({ status: 206, length: 5, etag: `"${cid}"`, range: expect.stringMatching(/^bytes \d+-\d+\/\d+$/) });
  expect(results.again).toMatchObject({ status: 304 });
  for (const document of results.documents) expect(document).toMatchObject({ status: 200, length: expect.any(Number) });
});

test('a page on another origin cannot upload, sign in or read the signed-in user', async ({ page, request, baseURL }) => {
  await page.goto(pageOrigin);
  const attempts = await page.evaluate(async (api) => {
    const outcome = async (send: () => Promise<Response>) => {
      try {
        const response = await send();
        return `leído ${response.status}`;
      } catch {
        return 'bloqueado';
      }
    };
    const form = new FormData();
    form.set('asset', JSON.stringify({ title: 'Desde otro sitio' }));
    form.set('fileUploaded', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'datos.csv');
    return {
      // A form post needs no preflight: it reaches the archive, which refuses it (below), and its answer stays unreadable.
      upload: await outcome(() => fetch(`${api}/v2/ops/assets/add`, { method: 'POST', body: form })),
      login: await outcome(() => fetch(`${api}/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"account":"0x0","provider":"metamask"}' })),
      // The original's base64 "token": refused on purpose (DECISIONS: SIWE and opaque tokens).
      user: await outcome(() => fetch(`${api}/auth/get-user`, { headers: { Authorization: `Bearer ${btoa('0x71c7656ec7ab88b098defb751b7401b5f6d8976f-metamask')}` } })),
    };
  }, new URL(baseURL!).origin);
  expect(attempts).toEqual({ upload: 'bloqueado', login: 'bloqueado', user: 'bloqueado' });

  // What the archive itself answers those requests from another origin.
  const upload = await request.post('/v2/ops/assets/add', {
    multipart: { asset: JSON.stringify({ title: 'Desde otro sitio' }) },
    headers: { Origin: pageOrigin },
  });
  expect(upload.status()).toBe(403);
  expect(upload.headers()['access-control-allow-origin']).toBeUndefined();
  const user = await request.get('/auth/get-user', { headers: { Origin: pageOrigin, Authorization: `Bearer ${Buffer.from('0x71c7656ec7ab88b098defb751b7401b5f6d8976f-metamask').toString('base64')}` } });
  expect(user.status()).toBe(401);
  expect(user.headers()['access-control-allow-origin']).toBeUndefined();
});

test('/docs explains what of the original API is accepted, what differs, and how an API client signs in', async ({ page }) => {
  await page.goto('/docs#compatibilidad');
  const section = page.getByRole('region', { name: 'Compatibilidad con la API original' });
  await expect(section).toBeVisible();
  await expect(section.getByRole('heading', { name: 'Se acepta como en el original' })).toBeVisible();
  await expect(section.getByRole('heading', { name: 'Qué cambia y por qué' })).toBeVisible();
  await expect(section).toContainText('_limit=-1');
  await expect(section).toContainText('POST /auth/login');
  await expect(section).toContainText('nftsConnection');
});
