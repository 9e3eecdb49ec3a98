/**
 * Pricing GraphQL by what the archive holds and reading Strapi's conventions leniently (issue #22)
 * admit the original front end's requests; they must still refuse every hostile GraphQL document
 * and REST read of the reliability corpus (tests/reliability/corpus), judged as the hostile suite
 * judges them. Here they are sent to the GraphQL handler and the REST recipes themselves, served
 * on 127.0.0.1 over the seeded archive, from a client address of their own each (the suite's own
 * addresses), on every engine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlHandler } from '../../src/lib/server/graphql/index.ts';
import { alexandriasGetAll, categoriesGetAll, namedGetAll, overviewGetAll, V1_ENTITIES, type ApiRequest } from '../../src/lib/server/api/endpoints.ts';
import { rest } from '../../src/lib/server/api/rest.ts';
import { strapiList } from '../../src/lib/server/api/strapi.ts';
import { API_CASES } from '../reliability/corpus/api.ts';
import { readCases } from '../reliability/corpus/reads.ts';
import { expectationOf, type CorpusContext, type HostileCase } from '../reliability/corpus/types.ts';
import { visitorAddress } from '../reliability/support/archive-client.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

/**
 * The GraphQL cases, but the NUL one: the /graphql endpoint refuses a NUL before its handler
 * (src/pages/graphql.ts), and the hostile suite sends it there.
 */
const GRAPHQL_CASES = API_CASES.filter((hostile) => /graphql/.test(hostile.name) && hostile.bullet !== 'nul');

/** The REST reads the server below routes (the corpus's other reads are pages and the gateway). */
const REST_ROUTES: Record<string, (request: ApiRequest) => Promise<Response>> = {
  '/alexandrias': (request) => strapiList('alexandrias', request),
  '/v2/open-data/alexandrias/getAll': alexandriasGetAll,
  '/v2/open-data/sources/getAll': (request) => namedGetAll('src', request),
  '/v2/open-data/departments/getAll': (request) => namedGetAll('dep', request),
  '/v2/open-data/categories/getAll': categoriesGetAll,
  ...Object.fromEntries(Object.entries(V1_ENTITIES).map(([plural, entity]) => [`/v1/api/${plural}/getAll`, (request: ApiRequest) => overviewGetAll(entity, request)])),
};
/**
 * The corpus's reads of those routes, but NUL bytes in them (the middleware refuses those before
 * any route) and other methods than GET (Astro answers those, as the route files export only GET).
 */
const REST_CASES = (await readCases()).filter((hostile) => /\b(REST|Strapi|v1)\b/.test(hostile.name) && hostile.bullet !== 'nul' && hostile.bullet !== 'method');

describe.each(testEngines())('hostile GraphQL documents and REST reads on %s, with the original\'s conventions accepted', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  let server: http.Server;
  let context: CorpusContext;

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    const yoga = createGraphqlHandler(async () => seeded.db, { logging: false });
    // Each request reaches the handler with its client's address, as the /graphql endpoint passes it.
    server = http.createServer(async (incoming, outgoing) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const body = incoming.method === 'GET' || incoming.method === 'HEAD' ? undefined : Buffer.concat(chunks);
      const headers = Object.entries(incoming.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value] as [string, string]] : []));
      const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
      const route = REST_ROUTES[url.pathname];
      const answer = route
        ? await rest(() => route({ db: seeded.db, url, origin: url.origin }))
        : await yoga.fetch(new Request(url, { method: incoming.method, headers, body }), { clientAddress: incoming.socket.remoteAddress });
      outgoing.writeHead(answer.status, Object.fromEntries(answer.headers));
      outgoing.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The GraphQL cases read nothing else of the suite's context.
    context = { origin } as CorpusContext;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await seeded?.destroy();
  });

  it('has the corpus cases to send', () => {
    expect(GRAPHQL_CASES.length).toBeGreaterThan(30);
    expect(REST_CASES.filter((hostile) => hostile.name.includes('Strapi')).length).toBeGreaterThan(20);
  });

  it.each([...GRAPHQL_CASES, ...REST_CASES].map((hostile, index) => [hostile.name, hostile, index] as [string, HostileCase, number]))('refuses %s', async (_name, hostile, index) => {
    const outcome = await hostile.send(context, visitorAddress(101, index));
    const expected = expectationOf(hostile);
    const statuses = Array.isArray(expected.status) ? expected.status : [expected.status];
    expect(statuses, outcome.body.slice(0, 300)).toContain(outcome.status);
    for (const text of expected.includes ?? []) expect(outcome.body).toContain(text);
    for (const text of expected.excludes ?? []) expect(outcome.body).not.toContain(text);
    if (expected.graphqlCode) {
      const parsed = JSON.parse(outcome.body || '{}') as { errors?: Array<{ extensions?: { code?: string } }> };
      expect(parsed.errors?.[0]?.extensions?.code).toBe(expected.graphqlCode);
    }
  });
});
