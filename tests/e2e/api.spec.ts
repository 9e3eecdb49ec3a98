import { expect, test } from '@playwright/test';

test('every REST example of /docs answers, in the envelope, to any origin', async ({ page, request }) => {
  await page.goto('/docs');
  await expect(page.getByRole('heading', { level: 1, name: 'API abierta del archivo' })).toBeVisible();
  const examples = await page.locator('[data-rest-example]').evaluateAll((links) => links.map((link) => link.getAttribute('href')!));
  expect(examples.length).toBeGreaterThanOrEqual(7);
  for (const path of examples) {
    const response = await request.get(path, { headers: { Origin: 'https://otro-portal.example' } });
    expect(response.status(), path).toBe(200);
    expect(response.headers()['access-control-allow-origin'], path).toBe('*');
    expect(response.headers()['access-control-allow-credentials'], path).toBeUndefined();
    const json = await response.json();
    if (path.startsWith('/alexandrias')) expect(Array.isArray(json)).toBe(true);
    else expect(Array.isArray(JSON.parse(json.body)), path).toBe(true);
  }
  await page.screenshot({ path: 'test-results/screenshots/docs.png', fullPage: true });
});

test('the REST routes answer real statuses, and the OpenAPI document describes them', async ({ request }) => {
  expect((await request.get('/v1/api/ministerios/getAll')).status()).toBe(404);
  // An address the API lacks is a JSON 404 a program can read, whatever its method, not the HTML page.
  for (const method of ['GET', 'POST']) {
    const missing = await request.fetch('/v2/open-data/ministerios/getAll', { method, ...(method === 'POST' ? { data: {} } : {}) });
    expect(missing.status()).toBe(404);
    expect(missing.headers()['content-type']).toMatch(/^application\/json/);
    expect(await missing.json()).toEqual({ code: 404, message: 'La API del archivo no tiene la ruta /v2/open-data/ministerios/getAll: sus rutas están descritas en /openapi.json y explicadas en /docs.' });
  }
  const tooMany = await request.get('/v2/open-data/alexandrias/getAll?limit=1000');
  expect(tooMany.status()).toBe(400);
  expect(await tooMany.json()).toMatchObject({ code: 400, message: 'limit no puede pasar de 100.' });
  expect((await request.get('/v1/services/filecoin/xyz')).status()).toBe(400);
  const preflight = await request.fetch('/v2/open-data/categories/getAll', { method: 'OPTIONS' });
  expect(preflight.status()).toBe(204);
  const openapi = await (await request.get('/openapi.json')).json();
  expect(openapi.openapi).toBe('3.1.0');
  expect(Object.keys(openapi.paths)).toContain('/v2/open-data/alexandrias/getAll');
});

test('/docs names every operation of the harvest API the OpenAPI document describes, method and path', async ({ page, request }) => {
  const openapi = (await (await request.get('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  const described = Object.entries(openapi.paths)
    .filter(([path]) => path.startsWith('/v2/ops/harvest-sources') || path.startsWith('/v2/ops/jobs/'))
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
  expect(described).toContain('DELETE /v2/ops/harvest-sources/{id}');
  await page.goto('/docs');
  const listed = await page.locator('[data-harvest-operations] li p.font-mono').allTextContents();
  expect(listed.sort()).toEqual(described.sort());
  await expect(page.getByRole('heading', { level: 2, name: 'Cosechas de catálogos (moderadores)' })).toBeVisible();
});

test('/docs names every moderation operation the OpenAPI document describes', async ({ page, request }) => {
  const openapi = (await (await request.get('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  const described = Object.entries(openapi.paths)
    .filter(([path]) => /^\/v2\/ops\/\w+\/\{id\}\/status$/.test(path))
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
  expect(described).toHaveLength(3);
  await page.goto('/docs');
  const listed = await page.locator('[data-moderation-operations] li p.font-mono').allTextContents();
  expect(listed.sort()).toEqual(described.sort());
  await expect(page.getByRole('heading', { level: 2, name: 'Moderación (moderadores)' })).toBeVisible();
});

test('every GraphQL example of /docs answers through the built server, by POST and by GET', async ({ page, request, baseURL }) => {
  await page.goto('/docs');
  const queries = await page.locator('[data-graphql-example]').allTextContents();
  expect(queries.length).toBeGreaterThanOrEqual(4);
  for (const query of queries) {
    const response = await request.post('/graphql', { data: { query }, headers: { Accept: 'application/json' } });
    expect(response.status(), query).toBe(200);
    const json = await response.json();
    expect(json.errors, query).toBeUndefined();
    expect(json.data, query).toBeTruthy();
  }
  const viaGet = await request.get(`/graphql?query=${encodeURIComponent('{ categories(limit: 1) { title } }')}`, { headers: { Accept: 'application/json' } });
  expect((await viaGet.json()).data.categories).toHaveLength(1);
  const tooDeep = await request.post('/graphql', {
    data: { query: '{ categories { alexandrias { category { alexandrias { category { alexandrias { category { alexandrias { category { title } } } } } } } } } }' },
    headers: { Accept: 'application/json' },
  });
  expect((await tooDeep.json()).errors?.[0]?.message).toMatch(/anida/);
  // A query sent as plain text (a bare `fetch` string) is told, in Spanish, how to send it; as GraphQL text it runs.
  const asText = await request.post('/graphql', { data: '{"query":"{ __typename }"}', headers: { 'Content-Type': 'text/plain', Accept: 'application/json', Origin: baseURL! } });
  expect([asText.status(), (await asText.json()).message]).toEqual([
    415,
    'Envíe la consulta como JSON (Content-Type: application/json) o como texto GraphQL (Content-Type: application/graphql).',
  ]);
  // With Yoga's CORS headers, as its other answers: a page of the origin can read the refusal.
  expect(asText.headers()['access-control-allow-origin']).toBe(baseURL);
  const asGraphql = await request.post('/graphql', { data: '{ __typename }', headers: { 'Content-Type': 'application/graphql', Accept: 'application/json', Origin: baseURL! } });
  expect((await asGraphql.json()).data).toEqual({ __typename: 'Query' });
});

test("the DCAT catalogue's own IRIs lead to the documents that describe them (303), a record's to its page", async ({ request }) => {
  const catalogue = await request.get('/catalog.jsonld');
  const text = await catalogue.text();
  const dataset = /"@id":\s*"([^"]+\/catalog\/dataset\/\d+)"/.exec(text)![1]!;
  const path = new URL(dataset).pathname;
  const id = path.split('/').pop();
  for (const iri of [path, `${path}/distribution`, path.replace('/dataset/', '/record/')]) {
    const answer = await request.get(iri, { maxRedirects: 0 });
    expect(answer.status(), iri).toBe(303);
    expect(new URL(answer.headers().location!).pathname, iri).toBe(`/registro/${id}`);
    expect((await request.get(iri)).status(), iri).toBe(200);
  }
  const turtle = await request.get('/catalog', { maxRedirects: 0, headers: { Accept: 'text/turtle' } });
  expect([turtle.status(), new URL(turtle.headers().location!).pathname]).toEqual([303, '/catalog.ttl']);
  expect(new URL((await request.get('/catalog', { maxRedirects: 0 })).headers().location!).pathname).toBe('/catalog.jsonld');
  const nothing = await request.get('/catalog/otra/cosa', { maxRedirects: 0 });
  expect(nothing.status()).toBe(404);
  expect(await nothing.text()).toContain('El catálogo no nombra nada');
});
