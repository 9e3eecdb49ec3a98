/**
 * What one client may make the GraphQL API do (issue #16, items 7 and 11): many aliased root
 * fields, text filters priced as the scans they are, expensive documents rationed per client
 * address, and no GraphiQL page loading scripts from a CDN on the archive's origin. The original
 * front end's documents (../shared/contracts) must all keep passing these limits.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isNotNull, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, categories, rateLimits } from '../../src/lib/server/db/schema.ts';
import { createGraphqlHandler, EXPENSIVE_ALLOWANCE, MAX_ALIASES, MAX_ROOT_FIELDS } from '../../src/lib/server/graphql/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const ORIGIN = 'http://archivo.test';
const CONTRACTS = path.resolve(import.meta.dirname, '../../../shared/contracts/original-client-graphql.json');
/** The codes of the limits this file is about: a contract document must never get one. */
const LIMIT_CODES = ['QUERY_TOO_DEEP', 'QUERY_TOO_COSTLY', 'QUERY_TOO_WIDE', 'TOO_MANY_REQUESTS'];

interface Answer {
  status: number;
  headers: Headers;
  ms: number;
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/** The original client's documents, with their `${...}` placeholders filled as the client would. */
function contractDocuments(values: { id: number; cid: string }): Array<{ where: string; query: string }> {
  const { queries } = JSON.parse(readFileSync(CONTRACTS, 'utf8')) as { queries: Array<{ file: string; line: number; query: string }> };
  return queries.map((entry) => ({
    where: `${entry.file}:${entry.line}`,
    query: entry.query
      .replaceAll('${(page - 1) * 10}', '10')
      .replaceAll('${entityName}', 'category')
      .replaceAll('${entity}', 'pdf')
      .replaceAll('${id}', String(values.id))
      .replaceAll('${cid}', values.cid),
  }));
}

/** `count` aliases of a filtered count: the shape of the audit's 19 KB document when `count` is 250. */
const aliasedTextCounts = (count: number) =>
  `{ ${Array.from({ length: count }, (_, n) => `a${n}: alexandriasConnection(where: { title_contains: "a${n}" }) { aggregate { count } }`).join(' ')} }`;

describe.each(testEngines())('GraphQL limits on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const yoga = createGraphqlHandler(async () => seeded.db);

  async function gql(query: string, clientAddress = '198.51.100.1'): Promise<Answer> {
    const started = performance.now();
    const response = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ query }),
      }),
      { clientAddress },
    );
    const body = (await response.json()) as object;
    return { status: response.status, headers: response.headers, ms: performance.now() - started, ...body };
  }

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  it('refuses the 250 aliased filtered counts at once, before any query, in Spanish', async () => {
    const query = aliasedTextCounts(250);
    expect(query.length).toBeGreaterThan(18_000);
    const answer = await gql(query, '198.51.100.10');
    expect(answer.status).toBe(400);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0]!.extensions?.code).toBe('QUERY_TOO_WIDE');
    expect(answer.errors![0]!.message).toBe(
      `La consulta pide 250 campos en su primer nivel (alias incluidos) y el máximo es ${MAX_ROOT_FIELDS}. Divídala en varias consultas.`,
    );
    // Refused by validation: no scan ran (250 of them take over a second even on the seed).
    expect(answer.ms).toBeLessThan(1_000);
  });

  it('caps root fields and aliases even when each is cheap', async () => {
    const roots = (count: number) => `{ ${Array.from({ length: count }, (_, n) => `c${n}: category(id: ${n + 1}) { id }`).join(' ')} }`;
    expect((await gql(roots(MAX_ROOT_FIELDS))).errors).toBeUndefined();
    const wide = await gql(roots(MAX_ROOT_FIELDS + 1));
    expect(wide.status).toBe(400);
    expect(wide.errors?.map((error) => error.extensions?.code)).toEqual(['QUERY_TOO_WIDE']);

    // Aliases below the root multiply what the answer carries, not what the database does.
    const leaves = (count: number) => `{ alexandrias(limit: 100) { ${Array.from({ length: count }, (_, n) => `t${n}: title`).join(' ')} } }`;
    expect((await gql(leaves(MAX_ALIASES))).errors).toBeUndefined();
    const aliased = await gql(leaves(MAX_ALIASES + 1));
    expect(aliased.status).toBe(400);
    expect(aliased.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
      ['QUERY_TOO_WIDE', `La consulta usa ${MAX_ALIASES + 1} alias y el máximo es ${MAX_ALIASES}. Divídala en varias consultas.`],
    ]);
  });

  it('prices a text filter as a scan of the records, and a count the running counts know as one query', async () => {
    const scans = await gql(aliasedTextCounts(MAX_ROOT_FIELDS), '198.51.100.11');
    expect(scans.status).toBe(400);
    expect(scans.errors?.map((error) => error.extensions?.code)).toEqual(['QUERY_TOO_COSTLY']);
    expect(scans.errors![0]!.message).toMatch(/^La consulta es demasiado costosa: [\d,]+ puntos, y el máximo es 5,000\..*filtros de texto/);

    const counted = `{ ${Array.from({ length: MAX_ROOT_FIELDS }, (_, n) => `c${n}: alexandriasConnection(where: { category: ${n + 1}, type: "pdf" }) { aggregate { count } }`).join(' ')} }`;
    const answer = await gql(counted, '198.51.100.11');
    expect(answer.errors).toBeUndefined();
    expect(Object.keys(answer.data!)).toHaveLength(MAX_ROOT_FIELDS);
  });

  it('prices an order no index serves, and a far offset, as scans too', async () => {
    for (const window of ['sort: "title:asc"', 'sort: "createdAt:asc"', 'start: 2000000000', 'sort: $sort']) {
      const variables = window.includes('$sort') ? '($sort: String)' : '';
      const query = `query${variables} { ${Array.from({ length: MAX_ROOT_FIELDS }, (_, n) => `a${n}: alexandrias(${window}, limit: 1) { id }`).join(' ')} }`;
      const answer = await gql(query, '198.51.100.12');
      expect(answer.status, window).toBe(400);
      expect(answer.errors?.map((error) => error.extensions?.code), window).toEqual(['QUERY_TOO_COSTLY']);
    }
    // The indexed orders and near pages stay cheap.
    const cheap = `{ ${Array.from({ length: MAX_ROOT_FIELDS }, (_, n) => `a${n}: alexandrias(sort: "updatedAt:desc", start: ${n * 10}, limit: 1) { id }`).join(' ')} }`;
    expect((await gql(cheap, '198.51.100.12')).errors).toBeUndefined();
  });

  it('lets every document of the original front end through the limits, without spending its allowance', async () => {
    const [record] = await seeded.db.select({ cid: alexandrias.cid }).from(alexandrias).where(isNotNull(alexandrias.cid)).limit(1);
    const [category] = await seeded.db.select({ id: categories.id }).from(categories).limit(1);
    const documents = contractDocuments({ id: category!.id, cid: record!.cid! });
    expect(documents.length).toBeGreaterThan(40);
    const client = '198.51.100.12';
    for (const document of documents) {
      const answer = await gql(document.query, client);
      const codes = (answer.errors ?? []).map((error) => error.extensions?.code);
      expect(codes.filter((code) => LIMIT_CODES.includes(code ?? '')), `${document.where}: ${JSON.stringify(answer.errors)}`).toEqual([]);
      expect(answer.status, document.where).not.toBe(429);
    }
    // None of them was expensive enough to be rationed.
    expect(await seeded.db.select().from(rateLimits).where(like(rateLimits.key, `%${client}%`))).toEqual([]);
  });

  it('rations expensive documents per client address, with a 429 and Retry-After, and answers other clients', async () => {
    // About 3,100 points (thirty records, each with its category's hundred records) for three indexed queries: quick to test, priced as heavy.
    const expensive = '{ alexandrias(limit: 30) { id category { alexandrias(limit: 100) { id } } } }';
    const greedy = '203.0.113.20';
    // The allowance is counted in fixed windows: start where the whole test fits in one (a window
    // ending half-way through would start the count again, and the last request would pass).
    const windowMs = EXPENSIVE_ALLOWANCE.windowSeconds * 1000;
    const left = windowMs - (Date.now() % windowMs);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    for (let n = 0; n < EXPENSIVE_ALLOWANCE.max; n += 1) {
      const answer = await gql(expensive, greedy);
      expect(answer.errors, `request ${n + 1}`).toBeUndefined();
    }
    const refused = await gql(expensive, greedy);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(EXPENSIVE_ALLOWANCE.windowSeconds);
    expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['TOO_MANY_REQUESTS']);
    expect(refused.errors![0]!.message).toMatch(/^Demasiadas consultas costosas desde su dirección/);
    expect(refused.data ?? null).toBeNull();

    // The same client's cheap documents, and every other client, are still answered.
    expect((await gql('{ categories(limit: 1) { id } }', greedy)).errors).toBeUndefined();
    const other = await gql(expensive, '203.0.113.21');
    expect(other.status).toBe(200);
    expect(other.errors).toBeUndefined();
    expect(other.data!.alexandrias.length).toBeGreaterThan(0);
  });

  it('sends a browser to the documentation instead of a GraphiQL page loading scripts from a CDN', async () => {
    const browser = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const page = await yoga.fetch(new Request(`${ORIGIN}/graphql`, { headers: browser }), { clientAddress: '198.51.100.13' });
    const html = await page.text();
    expect(html).not.toMatch(/unpkg|jsdelivr|cdnjs|<script[^>]+src=["']?(https?:)?\/\//i);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/docs#graphql');

    // A query in the address is still answered, as JSON, in a browser too.
    const query = encodeURIComponent('{ categories(limit: 1) { title } }');
    const answer = await yoga.fetch(new Request(`${ORIGIN}/graphql?query=${query}`, { headers: browser }), { clientAddress: '198.51.100.13' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/json/);
    expect(((await answer.json()) as any).data.categories).toHaveLength(1);
  });
});
