/**
 * Pricing GraphQL by what the archive holds (issue #22) admits the original front end's documents;
 * it must still refuse every hostile GraphQL document of the reliability corpus
 * (tests/reliability/corpus/api.ts), judged as the hostile suite judges them. Here they are sent
 * to the GraphQL handler itself, served on 127.0.0.1 over the seeded archive with its sizes read,
 * from a client address of their own each (the suite's own addresses), on every engine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlHandler } from '../../src/lib/server/graphql/index.ts';
import { API_CASES } from '../reliability/corpus/api.ts';
import { expectationOf, type CorpusContext, type HostileCase } from '../reliability/corpus/types.ts';
import { visitorAddress } from '../reliability/support/archive-client.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

/**
 * The GraphQL cases, but the NUL one: the /graphql endpoint refuses a NUL before its handler
 * (src/pages/graphql.ts), and the hostile suite sends it there.
 */
const GRAPHQL_CASES = API_CASES.filter((hostile) => /graphql/.test(hostile.name) && hostile.bullet !== 'nul');

describe.each(testEngines())('hostile GraphQL documents on %s, priced by what the archive holds', (engine) => {
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
      const answer = await yoga.fetch(new Request(`http://127.0.0.1${incoming.url}`, { method: incoming.method, headers, body }), {
        clientAddress: incoming.socket.remoteAddress,
      });
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
  });

  it.each(GRAPHQL_CASES.map((hostile, index) => [hostile.name, hostile, index] as [string, HostileCase, number]))('refuses %s', async (_name, hostile, index) => {
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
