/**
 * Hostile GraphQL queries (deep, wide, costly, malformed, injected), sign-in attempts with forged
 * or stale proofs, contact messages and moderation requests that must be refused, and floods
 * that the rate limits must stop.
 */
import { randomBytes } from 'node:crypto';
import { signedProof } from '../../helpers/siwe.ts';
import { testWallet } from '../support/archive-client.ts';
import { SQL_PAYLOADS } from './reads.ts';
import { get, gql, head, post, postJson, raw } from './send.ts';
import type { CorpusContext, HostileCase, Outcome } from './types.ts';

const BAD_INPUT = { status: 200, graphqlCode: 'BAD_USER_INPUT' } as const;

/** `alexandrias { category { alexandrias { category … } } }`, `levels` fields deep. */
function nested(levels: number): string {
  let query = 'id';
  for (let level = 0; level < levels - 1; level += 1) query = level % 2 === 0 ? `category { ${query} }` : `alexandrias(limit: 1) { ${query} }`;
  return `{ alexandrias(limit: 1) { ${query} } }`;
}

const graphqlCases: HostileCase[] = [
  // Nested selection sets, under and over the parser's 5,000-token limit (2 tokens a level). First
  // of the GraphQL cases on purpose: the parser's stack need is largest before the JIT has
  // optimised it, which is when a real attacker's first request finds it.
  ...[2400, 10_000, 1000, 1500, 2000].map(
    (levels): HostileCase => ({
      name: `graphql: ${levels.toLocaleString('en')} nested selection sets (${(levels * 5).toLocaleString('en')} bytes)`,
      bullet: 'graphql',
      expect: 400,
      send: (context, address) => gql(context, address, `${'{ a '.repeat(levels)}${'}'.repeat(levels)}`),
    }),
  ),
  { name: 'graphql: 11 levels deep', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, nested(11)) },
  { name: 'graphql: 200 levels deep', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, nested(200)) },
  { name: 'graphql: 3,000 aliases', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, `{ ${Array.from({ length: 3000 }, (_, n) => `a${n}: __typename`).join(' ')} }`) },
  {
    name: 'graphql: 60 aliases of 100 records each',
    bullet: 'graphql',
    expect: 400,
    send: (context, address) => gql(context, address, `{ ${Array.from({ length: 60 }, (_, n) => `a${n}: alexandrias(limit: 100) { id title }`).join(' ')} }`),
  },
  // Alias floods of the audit (issue #16): cheap-looking counts that each scan the records.
  {
    name: 'graphql: 250 aliased filtered counts (alias flood)',
    bullet: 'graphql',
    expect: { status: 400, maxMs: 2000 },
    send: (context, address) =>
      gql(context, address, `{ ${Array.from({ length: 250 }, (_, n) => `a${n}: alexandriasConnection(where: {title_contains: "a${n}"}) { aggregate { count } }`).join(' ')} }`),
  },
  {
    name: 'graphql: 25 aliased filtered counts (priced as scans)',
    bullet: 'graphql',
    expect: { status: 400, maxMs: 2000 },
    send: (context, address) =>
      gql(context, address, `{ ${Array.from({ length: 25 }, (_, n) => `a${n}: alexandriasConnection(where: {title_contains: "a${n}"}) { aggregate { count } }`).join(' ')} }`),
  },
  { name: 'graphql: nested lists of 100 × 100', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, '{ categories(limit: 100) { alexandrias(limit: 100) { id department { alexandrias(limit: 100) { id } } } } }') },
  {
    name: 'graphql: groupBy with the rows of every group',
    bullet: 'graphql',
    expect: [200, 400],
    send: async (context, address) => {
      const answer = await gql(context, address, '{ alexandriasConnection(limit: 100) { groupBy { department { key connection { values { id title } groupBy { category { key connection { values { id } } } } } } } } }');
      // Refused by the cost rule (400) or by the resolver (a GraphQL error); never run in full.
      return answer.status === 200 && !answer.body.includes('"errors"') ? { ...answer, status: 299 } : answer;
    },
  },
  { name: 'graphql: a fragment that spreads itself', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, '{ alexandrias { ...A } } fragment A on Alexandria { id ...A }') },
  {
    name: 'graphql: 30 fragments each spreading the next twice (2^30 fields)',
    bullet: 'graphql',
    expect: { status: 400, maxMs: 5000 },
    send: (context, address) => {
      const fragments = Array.from({ length: 30 }, (_, n) => `fragment F${n} on Alexandria { id ${n < 29 ? `category { alexandrias(limit: 1) { ...F${n + 1} ...F${n + 1} } }` : 'title'} }`);
      return gql(context, address, `{ alexandrias(limit: 1) { ...F0 } } ${fragments.join(' ')}`);
    },
  },
  { name: 'graphql: 2,000 directives on one field', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, `{ __typename ${'@skip(if: false) '.repeat(2000)}}`) },
  { name: 'graphql: 1,000 operations in one document', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, Array.from({ length: 1000 }, (_, n) => `query q${n} { __typename }`).join(' ')) },
  { name: 'graphql: a batch of 100 queries', bullet: 'graphql', expect: 400, send: (context, address) => postJson(context, address, '/graphql', Array.from({ length: 100 }, () => ({ query: '{ alexandrias(limit: 100) { id } }' })), { Accept: 'application/graphql-response+json' }) },
  // graphql-js refuses these at execution, so yoga answers 200 with the error: a refusal all the same.
  { name: 'graphql: a mutation', bullet: 'graphql', expect: { status: [200, 400], includes: ['"errors"'] }, send: (context, address) => gql(context, address, 'mutation { deleteAlexandria(id: 1) { id } }') },
  { name: 'graphql: a subscription', bullet: 'graphql', expect: { status: [200, 400], includes: ['"errors"'] }, send: (context, address) => gql(context, address, 'subscription { alexandrias { id } }') },
  { name: 'graphql: a mutation over GET', bullet: 'graphql', expect: [400, 405], send: (context, address) => gql(context, address, 'mutation { x }', { get: true }) },
  { name: 'graphql: no query', bullet: 'graphql', expect: 400, send: (context, address) => postJson(context, address, '/graphql', { variables: {} }, { Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: query that is a number', bullet: 'graphql', expect: 400, send: (context, address) => postJson(context, address, '/graphql', { query: 123 }, { Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: variables that are a string', bullet: 'graphql', expect: 400, send: (context, address) => postJson(context, address, '/graphql', { query: '{ __typename }', variables: 'x' }, { Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: unknown operationName', bullet: 'graphql', expect: 400, send: (context, address) => postJson(context, address, '/graphql', { query: 'query a { __typename }', operationName: 'b' }, { Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: unknown field', bullet: 'graphql', expect: 400, send: (context, address) => gql(context, address, '{ users { account } }') },
  { name: 'graphql: JSON nested 45,000 arrays deep', bullet: 'graphql', expect: [200, 400], send: (context, address) => post(context, address, '/graphql', `{"query":"{ __typename }","variables":{"x":${'['.repeat(45_000)}${']'.repeat(45_000)}}}`, { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: body of 200 kB', bullet: 'oversized', expect: 413, send: (context, address) => gql(context, address, `{ __typename } # ${'x'.repeat(200_000)}`) },
  { name: 'graphql: a body that is not JSON', bullet: 'truncated', expect: 400, send: (context, address) => post(context, address, '/graphql', '{"query": "{ alexandrias { id', { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: POST as text/plain', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, '/graphql', '{ __typename }', { 'Content-Type': 'text/plain', Accept: 'application/graphql-response+json' }) },
  // yoga takes url-encoded POSTs; the API only reads public data, so it does no harm.
  { name: 'graphql: POST as a form', bullet: 'contentType', expect: [200, 400, 415], send: (context, address) => post(context, address, '/graphql', 'query=%7B__typename%7D', { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/graphql-response+json' }) },
  { name: 'graphql: a NUL byte in the document', bullet: 'nul', expect: 400, send: (context, address) => gql(context, address, '{ __typename }\u0000') },
  { name: 'graphql: invalid UTF-8 in the body', bullet: 'utf8', expect: 400, send: (context, address) => post(context, address, '/graphql', Buffer.concat([Buffer.from('{"query":"{ alexandrias { id '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' } }"}')]), { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json' }) },
  { name: 'limit: graphql alexandrias(limit: 101)', bullet: 'limit', expect: BAD_INPUT, send: (context, address) => gql(context, address, '{ alexandrias(limit: 101) { id } }') },
  { name: 'limit: graphql alexandrias(limit: 2147483647)', bullet: 'limit', expect: BAD_INPUT, send: (context, address) => gql(context, address, '{ alexandrias(limit: 2147483647) { id } }') },
  { name: 'limit: graphql limit past 32 bits', bullet: 'limit', expect: 400, send: (context, address) => gql(context, address, '{ alexandrias(limit: 99999999999) { id } }') },
  { name: 'limit: graphql limit as a variable of 1e9', bullet: 'limit', expect: [200, 400], send: async (context, address) => expectBadInput(await gql(context, address, 'query ($n: Int) { alexandrias(limit: $n) { id } }', { variables: { n: 1_000_000_000 } })) },
  { name: 'limit: graphql start -1', bullet: 'limit', expect: BAD_INPUT, send: (context, address) => gql(context, address, '{ alexandrias(start: -1) { id } }') },
  { name: 'limit: graphql nested alexandrias(limit: 1000)', bullet: 'limit', expect: [200, 400], send: async (context, address) => expectBadInput(await gql(context, address, '{ categories(limit: 1) { alexandrias(limit: 1000) { id } } }')) },
  { name: 'limit: graphql id past 32 bits', bullet: 'limit', expect: 200, send: (context, address) => gql(context, address, '{ alexandria(id: "99999999999") { id } }') },
  { name: 'limit: graphql where.source past 32 bits', bullet: 'limit', expect: 200, send: (context, address) => gql(context, address, '{ alexandrias(where: { source: 99999999999 }) { id } }') },
  { name: 'cid: graphql where.cid not a CID', bullet: 'cid', expect: 200, send: (context, address) => gql(context, address, '{ alexandrias(where: { cid: "no es un cid" }) { id } }') },
];

/** A refusal in the body of a 200 (a resolver's GraphQL error) or a 400: either is a refusal. */
function expectBadInput(answer: Outcome): Outcome {
  const refused = answer.status === 400 || answer.body.includes('"BAD_USER_INPUT"') || answer.body.includes('QUERY_TOO_COSTLY');
  return refused ? answer : { ...answer, status: 299 };
}

/** Text filters of GraphQL: each given SQL, and a NUL byte. */
const GRAPHQL_TEXT = [
  ['alexandrias', 'title_contains'],
  ['alexandrias', 'cid'],
  ['alexandrias', 'wallet_address'],
  ['sources', 'name_contains'],
  ['departments', 'name_contains'],
  ['categories', 'title_contains'],
  ['imports', 'wallet'],
] as const;

const graphqlFilterCases: HostileCase[] = GRAPHQL_TEXT.flatMap(([list, key]) => [
  ...SQL_PAYLOADS.map(
    (payload): HostileCase => ({
      name: `sql: graphql ${list}(where: { ${key} }) = ${payload}`,
      bullet: 'sql',
      expect: { status: 200, maxMs: 4000 },
      send: async (context, address) => {
        const answer = await gql(context, address, `query ($where: JSON) { ${list}(where: $where, limit: 5) { id } }`, { variables: { where: { [key]: payload } } });
        return answer.body.includes('"errors"') ? { ...answer, status: 299 } : answer;
      },
    }),
  ),
  {
    name: `nul: graphql ${list}(where: { ${key} }) with a NUL byte`,
    bullet: 'nul',
    expect: 400,
    send: (context, address) => gql(context, address, `query ($where: JSON) { ${list}(where: $where, limit: 5) { id } }`, { variables: { where: { [key]: 'ab\u0000cd' } } }),
  },
]);
graphqlFilterCases.push(
  { name: 'sql: graphql sort injected', bullet: 'sql', expect: BAD_INPUT, send: (context, address) => gql(context, address, '{ alexandrias(sort: "title; DROP TABLE alexandrias") { id } }') },
  { name: 'sql: graphql where key injected', bullet: 'sql', expect: BAD_INPUT, send: (context, address) => gql(context, address, 'query ($w: JSON) { alexandrias(where: $w) { id } }', { variables: { w: { "title_contains' OR 1=1 --": 'x' } } }) },
  { name: 'sql: graphql relation id injected', bullet: 'sql', expect: BAD_INPUT, send: (context, address) => gql(context, address, '{ alexandrias(where: { department: "1 OR 1=1" }) { id } }') },
  { name: 'sql: graphql status injected', bullet: 'sql', expect: BAD_INPUT, send: (context, address) => gql(context, address, `{ alexandrias(where: { status: "on_line' OR '1'='1" }) { id } }`) },
);

/** A sign-in attempt with a proof made by `build`. */
export async function login(context: CorpusContext, address: string, build: (nonce: string) => Promise<Record<string, unknown>>): Promise<Outcome> {
  const issued = await get(context, address, '/auth/nonce');
  const { nonce } = JSON.parse(issued.body) as { nonce: string };
  return postJson(context, address, '/auth/login', await build(nonce));
}

/**
 * A sign-in proof for a wallet of its own per attempt: the archive also limits sign-ins per
 * claimed address (10 a minute), and these cases test the proof, not that limit.
 */
let victims = 0;
const proof = (context: CorpusContext, nonce: string, overrides: Record<string, unknown> = {}) =>
  signedProof(testWallet(`victim-${victims++}`), { nonce, domain: context.host, uri: context.origin, ...overrides });

const authCases: HostileCase[] = [
  {
    name: "forged: sign-in with one wallet's message signed by another",
    bullet: 'forged',
    expect: 401,
    send: (context, address) => login(context, address, async (nonce) => {
      const { message } = await proof(context, nonce);
      return { message, signature: await context.mallory.wallet.signMessage(message), provider: 'metamask' };
    }),
  },
  { name: 'forged: sign-in for another domain', bullet: 'forged', expect: 401, send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce, { domain: 'archivo.example.org' })), provider: 'metamask' })) },
  {
    name: 'forged: sign-in issued an hour ago',
    bullet: 'forged',
    expect: 401,
    send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce, { issuedAt: new Date(Date.now() - 3_600_000).toISOString(), expirationTime: undefined })), provider: 'metamask' })),
  },
  {
    name: 'forged: sign-in issued an hour ahead',
    bullet: 'forged',
    expect: 401,
    send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce, { issuedAt: new Date(Date.now() + 3_600_000).toISOString(), expirationTime: undefined })), provider: 'metamask' })),
  },
  {
    name: 'forged: sign-in already expired',
    bullet: 'forged',
    expect: 401,
    send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce, { issuedAt: new Date(Date.now() - 120_000).toISOString(), expirationTime: new Date(Date.now() - 60_000).toISOString() })), provider: 'metamask' })),
  },
  { name: 'forged: sign-in with a nonce never issued', bullet: 'forged', expect: 401, send: (context, address) => login(context, address, async () => ({ ...(await proof(context, randomBytes(16).toString('hex'))), provider: 'metamask' })) },
  { name: 'forged: sign-in replayed', bullet: 'forged', expect: 401, send: (context, address) => postJson(context, address, '/auth/login', { ...context.spentLogin, provider: 'metamask' }) },
  { name: 'forged: sign-in on chain 999', bullet: 'forged', expect: 401, send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce, { chainId: 999 })), provider: 'metamask' })) },
  { name: 'forged: sign-in message not EIP-4361', bullet: 'forged', expect: 400, send: (context, address) => postJson(context, address, '/auth/login', { message: 'Quiero entrar, por favor', signature: `0x${'ab'.repeat(65)}`, provider: 'metamask' }) },
  { name: 'forged: sign-in signature not hex', bullet: 'forged', expect: 400, send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce)), signature: 'firma', provider: 'metamask' })) },
  { name: 'forged: sign-in provider admin', bullet: 'forged', expect: 400, send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce)), provider: 'admin' })) },
  {
    name: 'forged: register with a forged proof',
    bullet: 'forged',
    expect: 401,
    send: async (context, address) => {
      const { nonce } = JSON.parse((await get(context, address, '/auth/nonce')).body) as { nonce: string };
      const { message } = await proof(context, nonce);
      return postJson(context, address, '/auth/register', { message, signature: await context.mallory.wallet.signMessage(message), provider: 'metamask', firstname: '<script>alert(1)</script>' });
    },
  },
  { name: 'forged: current user with a made-up token', bullet: 'forged', expect: 401, send: (context, address) => get(context, address, '/auth/get-user', { Authorization: `Bearer ${randomBytes(32).toString('base64url')}` }) },
  { name: 'forged: current user with an empty bearer', bullet: 'forged', expect: 401, send: (context, address) => get(context, address, '/auth/get-user', { Authorization: 'Bearer ' }) },
  { name: 'forged: upload nonce without a session', bullet: 'forged', expect: 401, send: (context, address) => post(context, address, '/v2/ops/assets/nonce', '') },
  { name: 'forged: upload nonce with a made-up token', bullet: 'forged', expect: 401, send: (context, address) => post(context, address, '/v2/ops/assets/nonce', '', { Authorization: 'Bearer abc' }) },
  { name: 'forged: moderation without a session', bullet: 'forged', expect: 401, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'on_line' }) },
  { name: 'forged: moderation with a made-up token', bullet: 'forged', expect: 401, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'on_line' }, { Authorization: 'Bearer abc' }) },
  { name: 'forged: moderation by a contributor', bullet: 'forged', expect: 403, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'on_line' }, { Authorization: `Bearer ${context.alice.token}` }) },
  { name: 'forged: source review by a contributor', bullet: 'forged', expect: 403, send: (context, address) => postJson(context, address, `/v2/ops/sources/${context.record.sourceId}/status`, { status: 'on_line' }, { Authorization: `Bearer ${context.alice.token}` }) },
  { name: 'forged: moderation queue page for a contributor', bullet: 'forged', expect: 403, send: (context, address) => get(context, address, '/moderacion', { Cookie: `archivo_session=${context.alice.token}` }) },
  { name: 'forged: moderators inbox for a contributor', bullet: 'forged', expect: 403, send: (context, address) => get(context, address, '/moderacion/mensajes', { Cookie: `archivo_session=${context.alice.token}` }) },
  { name: 'forged: moderation queue page with a made-up cookie', bullet: 'forged', expect: 302, send: (context, address) => get(context, address, '/moderacion', { Cookie: 'archivo_session=abc' }) },
  { name: 'forged: profile with a made-up cookie', bullet: 'forged', expect: 302, send: (context, address) => get(context, address, '/profile', { Cookie: `archivo_session=${'0'.repeat(64)}` }) },
  { name: 'forged: moderation of a record id that is not a number', bullet: 'forged', expect: 404, send: (context, address) => postJson(context, address, '/v2/ops/assets/abc/status', { status: 'on_line' }, { Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'forged: moderation of a record that does not exist', bullet: 'forged', expect: 404, send: (context, address) => postJson(context, address, '/v2/ops/assets/99999999/status', { status: 'on_line' }, { Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'forged: moderation to a made-up status', bullet: 'forged', expect: 400, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'deleted' }, { Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'forged: blocking without a reason', bullet: 'forged', expect: 400, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'blocked' }, { Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'oversized: moderation reason of 1,001 characters', bullet: 'oversized', expect: 400, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'blocked', reason: 'x'.repeat(1001) }, { Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'nul: moderation reason with a NUL byte', bullet: 'nul', expect: 400, send: (context, address) => postJson(context, address, `/v2/ops/assets/${context.record.id}/status`, { status: 'blocked', reason: 'Motivo\u0000nulo' }, { Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'contentType: moderation as a form', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, `/v2/ops/assets/${context.record.id}/status`, 'status=on_line', { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${context.moderator.token}` }) },
  { name: 'oversized: sign-in body of 2 MB', bullet: 'oversized', expect: 413, send: (context, address) => postJson(context, address, '/auth/login', { message: 'x'.repeat(2_000_000), signature: '0x', provider: 'metamask' }) },
  { name: 'oversized: sign-in message of 4,001 characters', bullet: 'oversized', expect: 400, send: (context, address) => postJson(context, address, '/auth/login', { message: 'x'.repeat(4001), signature: `0x${'ab'.repeat(65)}`, provider: 'metamask' }) },
  {
    name: 'oversized: sign-in body without Content-Length',
    bullet: 'oversized',
    expect: 411,
    send: (context, address) => raw(context, address, `${head(context, 'POST', '/auth/login', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' })}2\r\n{}\r\n0\r\n\r\n`),
  },
  // 200,000 brackets (400 KB): the NUL check once recursed on them until the stack overflowed, a 500 before any rate limit.
  { name: 'oversized: sign-in JSON nested 200,000 deep', bullet: 'oversized', expect: 400, send: (context, address) => post(context, address, '/auth/login', `{"message":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, { 'Content-Type': 'application/json' }) },
  {
    name: 'graphql: a JSON variable nested 20,000 deep',
    bullet: 'graphql',
    expect: [200, 400],
    send: (context, address) =>
      post(context, address, '/graphql', `{"query":"query($w: JSON) { alexandrias(where: $w, limit: 1) { id } }","variables":{"w":{"title_contains":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`, { 'Content-Type': 'application/json', Accept: 'application/json' }),
  },
  { name: 'truncated: sign-in JSON cut short', bullet: 'truncated', expect: 400, send: (context, address) => postJson(context, address, '/auth/login', '{"message": "archivo wants you to sign') },
  { name: 'contentType: sign-in as text/plain', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, '/auth/login', 'message=x', { 'Content-Type': 'text/plain' }) },
  { name: 'contentType: sign-in as a form', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, '/auth/login', 'message=x&signature=y', { 'Content-Type': 'application/x-www-form-urlencoded' }) },
  { name: 'nul: sign-in message with a NUL byte', bullet: 'nul', expect: [400, 401], send: (context, address) => login(context, address, async (nonce) => ({ ...(await proof(context, nonce, { statement: 'Entrar\u0000ya' })), provider: 'metamask' })) },
  { name: 'nul: raw NUL byte in a header', bullet: 'nul', expect: 400, send: (context, address) => raw(context, address, `GET /dashboard HTTP/1.1\r\nHost: ${context.host}\r\nX-Nulo: a\u0000b\r\nConnection: close\r\n\r\n`) },
  { name: 'nul: raw NUL byte in the path', bullet: 'nul', expect: 400, send: (context, address) => raw(context, address, `GET /dash\u0000board HTTP/1.1\r\nHost: ${context.host}\r\nConnection: close\r\n\r\n`) },
  { name: 'nul: session cookie with a NUL byte', bullet: 'nul', expect: [400, 401], send: (context, address) => raw(context, address, `GET /auth/get-user HTTP/1.1\r\nHost: ${context.host}\r\nCookie: archivo_session=a\u0000b\r\nConnection: close\r\n\r\n`) },
  {
    name: 'utf8: sign-in with invalid UTF-8 in the message',
    bullet: 'utf8',
    expect: [400, 401],
    send: (context, address) => post(context, address, '/auth/login', Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from(`","signature":"0x${'ab'.repeat(65)}","provider":"metamask"}`)]), { 'Content-Type': 'application/json' }),
  },
];

const contactCases: HostileCase[] = [
  { name: 'contentType: contact form as text/plain', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, '/contacto', 'compose_subject=a&compose_message=b', { 'Content-Type': 'text/plain', Accept: 'application/json' }) },
  { name: 'contentType: contact form as application/xml', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, '/contacto', '<mensaje>hola</mensaje>', { 'Content-Type': 'application/xml', Accept: 'application/json' }) },
  { name: 'contentType: contact form without a Content-Type', bullet: 'contentType', expect: [400, 415], send: (context, address) => post(context, address, '/contacto', 'hola', { Accept: 'application/json' }) },
  { name: 'oversized: contact subject of 201 characters', bullet: 'oversized', expect: 400, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: 'x'.repeat(201), compose_message: 'hola' }) },
  { name: 'oversized: contact message of 5,001 characters', bullet: 'oversized', expect: 400, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: 'hola', compose_message: 'x'.repeat(5001) }) },
  { name: 'oversized: contact body of 2 MB', bullet: 'oversized', expect: 413, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: 'hola', compose_message: 'x'.repeat(2_000_000) }) },
  { name: 'truncated: contact JSON cut short', bullet: 'truncated', expect: 400, send: (context, address) => postJson(context, address, '/contacto', '{"compose_subject": "ho') },
  { name: 'truncated: contact form cut short (multipart without its end)', bullet: 'truncated', expect: [400, 415], send: (context, address) => post(context, address, '/contacto', '--x\r\nContent-Disposition: form-data; name="compose_subject"\r\n\r\nho', { 'Content-Type': 'multipart/form-data; boundary=x', Accept: 'application/json' }) },
  { name: 'nul: contact subject with a NUL byte', bullet: 'nul', expect: 400, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: 'Hola\u0000mundo', compose_message: 'Mensaje' }) },
  { name: 'nul: contact message with a NUL byte', bullet: 'nul', expect: 400, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: 'Hola', compose_message: 'Mensaje\u0000nulo' }) },
  { name: 'utf8: contact with invalid UTF-8 and no message', bullet: 'utf8', expect: 400, send: (context, address) => post(context, address, '/contacto', Buffer.concat([Buffer.from('{"compose_subject":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), { 'Content-Type': 'application/json', Accept: 'application/json' }) },
  { name: 'html: contact with markup and no subject', bullet: 'html', expect: 400, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: '', compose_message: '<script>alert(1)</script>' }) },
  { name: 'forged: contact form from another site', bullet: 'forged', expect: 403, send: (context, address) => post(context, address, '/contacto', 'compose_subject=a&compose_message=b', { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://malicioso.example' }) },
  { name: 'sql: contact subject with SQL', bullet: 'sql', expect: 400, send: (context, address) => postJson(context, address, '/contacto', { compose_subject: "'); DELETE FROM contact_messages; --", compose_message: '' }) },
];

/** `count` requests from one address; the outcome of the last, which must be refused. */
const flood = (count: number, send: (context: CorpusContext, address: string) => Promise<Outcome>) => async (context: CorpusContext, address: string) => {
  let last: Outcome | undefined;
  for (let n = 0; n < count; n += 1) last = await send(context, address);
  return last!;
};

const rateCases: HostileCase[] = [
  { name: 'rate: 6 contact messages in a row (5 allowed per 10 min)', bullet: 'rate', expect: 429, send: flood(6, (context, address) => postJson(context, address, '/contacto', { compose_subject: '', compose_message: '' })) },
  {
    name: 'rate: 21 sign-in attempts in a minute (20 allowed)',
    bullet: 'rate',
    expect: 429,
    send: flood(21, (context, address) => postJson(context, address, '/auth/login', { message: `archivo wants you to sign in\n${context.mallory.wallet.address}`, signature: `0x${'ab'.repeat(65)}`, provider: 'metamask' })),
  },
  { name: 'rate: 31 sign-in nonces in a minute (30 allowed)', bullet: 'rate', expect: 429, send: flood(31, (context, address) => get(context, address, '/auth/nonce')) },
  { name: 'rate: 31 upload nonces in a minute (30 allowed)', bullet: 'rate', expect: 429, send: flood(31, (context, address) => post(context, address, '/v2/ops/assets/nonce', '', { Authorization: `Bearer ${context.mallory.token}` })) },
  { name: 'rate: 6 password resets in a minute (5 allowed)', bullet: 'rate', expect: 429, send: flood(6, (context, address) => postJson(context, address, '/auth/forgot-password', { email: 'nadie@example.org' })) },
];

export const API_CASES: HostileCase[] = [...graphqlCases, ...graphqlFilterCases, ...authCases, ...contactCases, ...rateCases];
