import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  alexandriasGetAll,
  categoriesGetAll,
  filecoinStatus,
  namedGetAll,
  overviewGetAll,
  strapiAlexandrias,
  type ApiRequest,
} from '../../src/lib/server/api/endpoints.ts';
import { rest } from '../../src/lib/server/api/rest.ts';
import { alexandrias } from '../../src/lib/server/db/schema.ts';
import { TooManyRequestsError } from '../../src/lib/server/http/errors.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const ORIGIN = 'https://archivo.test';
const WALLET = '0x71c7656ec7ab88b098defb751b7401b5f6d8976f';

describe.each(testEngines())('the REST API on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const call = async (recipe: (request: ApiRequest) => Promise<Response>, path: string) => {
    const response = await rest(() => recipe({ db: seeded.db, url: new URL(path, ORIGIN), origin: ORIGIN }));
    return { status: response.status, json: (await response.json()) as { code: number; body?: unknown; message?: string }, headers: response.headers };
  };
  const list = (json: { body?: unknown }) => JSON.parse(json.body as string) as Array<Record<string, unknown>>;

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    const ids = (await seeded.db.select({ id: alexandrias.id }).from(alexandrias).orderBy(alexandrias.id).limit(7)).map((row) => row.id);
    for (const [index, id] of ids.entries()) {
      await seeded.db.update(alexandrias).set({ walletAddress: WALLET, createdAt: new Date(Date.UTC(2026, 0, 1 + index)) }).where(eq(alexandrias.id, id));
    }
  });
  afterAll(() => seeded?.destroy());

  it("lists a wallet's latest uploads, newest first, in the {code, body} envelope", async () => {
    const { status, json, headers } = await call(alexandriasGetAll, `/v2/open-data/alexandrias/getAll?limit=5&wallet_address=${WALLET.toUpperCase().replace('0X', '0x')}&sort=createdAt:-1`);
    expect(status).toBe(200);
    expect(json.code).toBe(200);
    expect(typeof json.body).toBe('string');
    const assets = list(json);
    expect(assets).toHaveLength(5);
    const dates = assets.map((asset) => String(asset.createdAt));
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(assets[0]).toMatchObject({ wallet_address: WALLET, _id: assets[0]!.id });
    expect(headers.get('access-control-allow-origin')).toBe('*');
  });

  it('finds assets by title with the search engine, without minding case or accents', async () => {
    const assets = list((await call(alexandriasGetAll, '/v2/open-data/alexandrias/getAll?title=CONSTRUCCION&limit=5')).json);
    expect(assets.length).toBeGreaterThan(0);
    // Title matches come first, then description matches; a group lends its records by its name
    // only, and no source, institution or category of the seed is named for construction.
    expect(/construcci[oó]n/i.test(String(assets[0]!.title))).toBe(true);
    for (const asset of assets) expect(`${String(asset.title)} ${String(asset.description ?? '')}`).toMatch(/construcci[oó]n/i);
    // A word still being typed is found by plain containment.
    const partial = list((await call(alexandriasGetAll, '/v2/open-data/alexandrias/getAll?title=construcc&limit=5')).json);
    expect(partial.some((asset) => /construcci[oó]n/i.test(String(asset.title)))).toBe(true);
    const withFile = assets.find((asset) => asset.cid);
    expect(withFile?.file).toMatchObject({ url: `${ORIGIN}/ipfs/${withFile?.cid}` });
  });

  it('tells «ñ» from «n» when names and titles are matched by what they contain, accents aside', async () => {
    const titles = async (text: string) =>
      (((await call(strapiAlexandrias, `/alexandrias?title_contains=${encodeURIComponent(text)}&_limit=100`)).json as unknown) as Array<{ title: string }>).map((asset) => asset.title);
    const withEnye = await titles('año');
    expect(withEnye.length).toBeGreaterThan(0);
    for (const title of withEnye) expect(title).toMatch(/añ/i);
    expect(await titles('AÑO')).toEqual(withEnye);
    // «ano» is inside «ciudadanos» and «dominicanos», never «año».
    const keepingEnye = (title: string) => title.toLowerCase().replaceAll('ñ', '\u0001').normalize('NFD').replace(/[\u0300-\u036f]/g, '').replaceAll('\u0001', 'ñ');
    const withoutEnye = await titles('ano');
    expect(withoutEnye.length).toBeGreaterThan(0);
    for (const title of withoutEnye) expect(keepingEnye(title)).toContain('ano');
    // Accents other than the tilde of «ñ» are still aside: «educacion» finds «Educación».
    expect((await titles('educacion')).some((title) => /educación/i.test(title))).toBe(true);
    const names = list((await call((r) => namedGetAll('dep', r), '/v2/open-data/departments/getAll?name=A%C3%B1o&limit=100')).json).map((department) => String(department.name));
    for (const name of names) expect(name).toMatch(/añ/i);
  });

  it('orders a title search as sort asks: the same best matches, by title or date either way', async () => {
    const ids = async (sort: string) => list((await call(alexandriasGetAll, `/v2/open-data/alexandrias/getAll?title=salud&limit=8&sort=${sort}`)).json);
    const byRelevance = list((await call(alexandriasGetAll, '/v2/open-data/alexandrias/getAll?title=salud&limit=8')).json);
    const [up, down, newest] = await Promise.all([ids('title:1'), ids('title:-1'), ids('createdAt:-1')]);
    expect(up).toHaveLength(8);
    expect(new Set(up.map((a) => a.id))).toEqual(new Set(byRelevance.map((a) => a.id)));
    expect(down.map((a) => a.id)).toEqual([...up].reverse().map((a) => a.id));
    const titles = up.map((a) => String(a.title));
    expect(titles).not.toEqual(byRelevance.map((a) => String(a.title)));
    const dates = newest.map((a) => Date.parse(String(a.createdAt)));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });

  it('searches departments and sources by name, and lists categories', async () => {
    const departments = list((await call((r) => namedGetAll('dep', r), '/v2/open-data/departments/getAll?name=estadistica&limit=5')).json);
    expect(departments.map((d) => d.name)).toContain('Oficina Nacional de Estadística (ONE)');
    expect(departments[0]).toHaveProperty('desciption');
    const sources = list((await call((r) => namedGetAll('src', r), '/v2/open-data/sources/getAll?name=portal')).json);
    expect(sources[0]).toMatchObject({ name: 'Portal de Datos Abiertos de la República Dominicana', url: 'https://datos.gob.do' });
    const categories = list((await call(categoriesGetAll, '/v2/open-data/categories/getAll')).json);
    expect(categories).toHaveLength(11);
    expect(categories.find((c) => c.title === 'Salud')).toMatchObject({ alexandriasCount: expect.any(Number) });
  });

  it('pages a name search in one order: every match once, in the order one long page gives them', async () => {
    const page = async (start: number, limit: number) =>
      list((await call((r) => namedGetAll('dep', r), `/v2/open-data/departments/getAll?name=salud&_start=${start}&_limit=${limit}`)).json).map((d) => d.id as number);
    const all = await page(0, 100);
    // Search hits (by words or likeness) and names that merely contain «salud»: more than two pages of 2.
    expect(all.length).toBeGreaterThan(4);
    expect(new Set(all).size).toBe(all.length);
    const paged: number[] = [];
    for (let start = 0; start < all.length + 2; start += 2) paged.push(...(await page(start, 2)));
    expect(paged).toEqual(all);
  });

  it('gives the overview tabs, largest first', async () => {
    const tabs = list((await call((r) => overviewGetAll('cat', r), '/v1/api/categories/getAll?limit=5')).json);
    expect(tabs).toHaveLength(5);
    expect(tabs[0]?.title).toBe('Gestión Pública');
    const counts = tabs.map((tab) => Number(tab.alexandriasCount));
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
  });

  it("answers the admin host's Strapi listing as a plain array", async () => {
    const { status, json } = await call(strapiAlexandrias, `/alexandrias?wallet_address=${WALLET}&_limit=3&_sort=createdAt:desc`);
    expect(status).toBe(200);
    const assets = json as unknown as Array<{ createdAt: string }>;
    expect(assets).toHaveLength(3);
    const next = (await call(strapiAlexandrias, `/alexandrias?wallet_address=${WALLET}&_limit=3&_start=3&_sort=createdAt:desc`)).json as unknown as Array<{ createdAt: string }>;
    expect(next[0]!.createdAt < assets[2]!.createdAt).toBe(true);
  });

  it('tells the pins and deals of a CID', async () => {
    const [file] = await seeded.db.select({ cid: alexandrias.cid }).from(alexandrias).where(sql`${alexandrias.cid} is not null`).limit(1);
    const { status, json } = await call((r) => filecoinStatus(r, file!.cid!), `/v1/services/filecoin/${file!.cid}`);
    expect(status).toBe(200);
    // Spelled as the original's storage provider answered, which SPEC §4's rule ('Pinned') compares against.
    expect(json.body).toMatchObject({ pins: [{ status: 'Pinned', provider: 'local' }], deals: [] });
  });

  it('refuses bad parameters with a real status and a clear Spanish message', async () => {
    const cases: Array<[(r: ApiRequest) => Promise<Response>, string, number, RegExp]> = [
      [alexandriasGetAll, '/x?limit=500', 400, /no puede pasar de 100/],
      [alexandriasGetAll, '/x?limit=abc', 400, /número entero/],
      [alexandriasGetAll, '/x?limit=0', 400, /al menos 1/],
      [alexandriasGetAll, '/x?limit=0x10', 400, /número entero/],
      [alexandriasGetAll, '/x?limit=1e1', 400, /número entero/],
      [alexandriasGetAll, '/x?limit=5.0', 400, /número entero/],
      [alexandriasGetAll, '/x?wallet_address=pepe', 400, /dirección de cartera/],
      [alexandriasGetAll, '/x?sort=precio:-1', 400, /sort debe ser/],
      [strapiAlexandrias, '/x?_start=-1', 400, /negativo/],
      [strapiAlexandrias, '/x?_sort=DROP', 400, /^_sort no válido: "DROP"/],
      [(r) => filecoinStatus(r, 'no-es-un-cid'), '/x', 400, /CID no es válido/],
      [(r) => filecoinStatus(r, 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'), '/x', 404, /no conoce este CID/],
    ];
    for (const [recipe, path, status, message] of cases) {
      const answer = await call(recipe, path);
      expect(answer.status, path).toBe(status);
      expect(answer.json.code).toBe(status);
      expect(answer.json.message).toMatch(message);
    }
  });

  it('ignores parameters it does not know', async () => {
    expect((await call(alexandriasGetAll, '/x?limit=2&foo=bar')).status).toBe(200);
  });

  it('answers its errors as every endpoint does: field issues, the error\'s own headers, any origin, never cached', async () => {
    const invalid = await call(alexandriasGetAll, '/x?limit=500');
    expect(invalid.json).toEqual({ code: 400, message: invalid.json.message, issues: [{ field: 'limit', message: invalid.json.message }] });
    expect(invalid.headers.get('access-control-allow-origin')).toBe('*');
    expect(invalid.headers.get('cache-control')).toBe('no-store');

    // A rate limit's Retry-After reaches the client through the envelope too.
    const limited = await rest(() => Promise.reject(new TooManyRequestsError(42)));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('42');
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    expect(await limited.json()).toMatchObject({ code: 429 });

    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = await rest(() => Promise.reject(new Error('relation "secreta" does not exist')));
    logged.mockRestore();
    expect(broken.status).toBe(500);
    const body = (await broken.json()) as { code: number; message: string };
    expect(body.code).toBe(500);
    expect(body.message).not.toContain('secreta');
  });
});
