import { expect, test } from '@playwright/test';

test('robots.txt lets crawlers in and tells them where the sitemap is', async ({ request, baseURL }) => {
  const response = await request.get('/robots.txt');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toMatch(/^text\/plain/);
  const body = await response.text();
  expect(body).toContain('User-agent: *');
  expect(body).toContain('Allow: /');
  expect(body).toContain(`Sitemap: ${new URL('/sitemap.xml', baseURL).href}`);
});

test('the sitemap is valid XML listing every collection and every record', async ({ page, request, baseURL }) => {
  const response = await request.get('/sitemap.xml');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toBe('application/xml; charset=utf-8');
  expect(response.headers()['cache-control']).toBe('public, max-age=3600');
  const xml = await response.text();

  // The browser's own XML parser: what a crawler would read, or the error it would hit.
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'application/xml');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: doc.documentElement.localName,
      namespace: doc.documentElement.namespaceURI,
      urls: [...doc.getElementsByTagName('url')].map((url) => ({
        loc: url.getElementsByTagName('loc')[0]?.textContent ?? '',
        lastmod: url.getElementsByTagName('lastmod')[0]?.textContent ?? '',
      })),
    };
  }, xml);
  expect(parsed.error).toBeNull();
  expect(parsed.root).toBe('urlset');
  expect(parsed.namespace).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');

  const origin = new URL(baseURL!).origin;
  const paths = parsed.urls.map(({ loc }) => {
    const url = new URL(loc);
    expect(url.origin).toBe(origin);
    return url.pathname + url.search;
  });
  expect(new Set(paths).size).toBe(paths.length);
  // Dated, but for a watch page nothing has changed yet (no 1970 in its place).
  const undated = parsed.urls.filter(({ lastmod }) => lastmod === '').map(({ loc }) => new URL(loc).pathname);
  for (const path of undated) expect(['/desaparecidos', '/preservacion', '/docs', '/general/faq']).toContain(path);
  // The archive's own pages, each of which answers.
  const own = ['/dashboard', '/group/src', '/group/dep', '/group/cat', '/docs', '/general/faq'];
  expect(paths).toEqual(expect.arrayContaining(own));
  for (const path of own) expect((await request.get(path, { maxRedirects: 0 })).status(), path).toBe(200);
  expect(parsed.urls.filter(({ lastmod }) => lastmod !== '').every(({ lastmod }) => !Number.isNaN(Date.parse(lastmod)))).toBe(true);

  // Every record of the seed at its canonical URL (issue #20): the 11 real files by CID, the 1,065
  // datasets of the catalogue without a file by id.
  const records = paths.filter((path) => path.startsWith('/single/src/baf'));
  expect(records).toHaveLength(11);
  for (const path of records) expect(path).toMatch(/^\/single\/src\/baf[a-z2-7]+\?assetId=\d+$/);
  expect(paths.filter((path) => /^\/registro\/\d+$/.test(path))).toHaveLength(1_065);
  for (const entity of ['dep', 'cat', 'src']) {
    expect(paths.some((path) => new RegExp(`^/collection/${entity}/\\d+$`).test(path))).toBe(true);
  }
  expect(paths.filter((path) => path.startsWith('/collection/cat/'))).toHaveLength(11);

  // While everything fits in one file, the first numbered file holds the same list.
  const first = await request.get('/sitemap-1.xml');
  expect(first.status()).toBe(200);
  expect((await first.text()).match(/<loc>/g)).toHaveLength(paths.length);
});

test('a sitemap file that does not exist is a 404', async ({ request }) => {
  expect((await request.get('/sitemap-999.xml')).status()).toBe(404);
  expect((await request.get('/sitemap-0.xml')).status()).toBe(404);
  expect((await request.get('/sitemap-uno.xml')).status()).toBe(404);
});

test('pages built ahead link to themselves and to the feed at the address that serves them, not the build machine', async ({ page, baseURL }) => {
  // Built before any server knew its address, they used to say http://localhost:4321/docs/.
  for (const path of ['/docs', '/general/faq']) {
    await page.goto(path);
    const canonical = page.locator('link[rel="canonical"]');
    await expect(canonical).toHaveAttribute('href', path);
    const resolved = await canonical.evaluate((link: HTMLLinkElement) => link.href);
    expect(resolved).toBe(new URL(path, baseURL).href);
    const feed = await page.locator('link[rel="alternate"][type="application/atom+xml"]').first().evaluate((link: HTMLLinkElement) => link.href);
    expect(new URL(feed).origin).toBe(new URL(baseURL!).origin);
  }
});
