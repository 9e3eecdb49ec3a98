/**
 * Hostile reads: REST filters, pages and the gateway, given SQL-injection strings, NUL bytes,
 * broken UTF-8, paths that climb out of the site, limits far past the maximum, invalid CIDs and
 * methods the route does not take. Reads store nothing; they must still never answer 5xx.
 */
import { randomBytes } from 'node:crypto';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { identity } from 'multiformats/hashes/identity';
import { sha256 } from 'multiformats/hashes/sha2';
import { get, head as rawHead, post, raw as rawSend } from './send.ts';
import type { CorpusContext, Expectation, HostileCase } from './types.ts';

const q = encodeURIComponent;

/** Strings that would change a query written by string concatenation (and one that would stall it). */
export const SQL_PAYLOADS = [
  "' OR '1'='1",
  "'; DROP TABLE alexandrias; --",
  "1); SELECT pg_sleep(5); --",
  "%' AND (SELECT pg_sleep(5)) IS NULL AND '%'='",
  "' UNION SELECT token_hash, null FROM sessions --",
  '$$; DELETE FROM sources; $$',
  "\\'; SELECT 1; --",
] as const;

/** Every filter a reader can type into, with what it answers to a value that is merely odd text. */
const TEXT_FILTERS: Array<{ name: string; path: (value: string) => string; expect: Expectation['status'] }> = [
  { name: 'REST alexandrias title', path: (value) => `/v2/open-data/alexandrias/getAll?title=${q(value)}`, expect: 200 },
  { name: 'REST sources name', path: (value) => `/v2/open-data/sources/getAll?name=${q(value)}`, expect: 200 },
  { name: 'REST departments name', path: (value) => `/v2/open-data/departments/getAll?name=${q(value)}`, expect: 200 },
  { name: 'REST alexandrias wallet_address', path: (value) => `/v2/open-data/alexandrias/getAll?wallet_address=${q(value)}`, expect: 400 },
  { name: 'REST alexandrias sort', path: (value) => `/v2/open-data/alexandrias/getAll?sort=${q(value)}`, expect: 400 },
  { name: 'Strapi cid', path: (value) => `/alexandrias?cid=${q(value)}`, expect: 200 },
  { name: 'Strapi status', path: (value) => `/alexandrias?status=${q(value)}`, expect: 400 },
  { name: 'Strapi _sort', path: (value) => `/alexandrias?_sort=${q(value)}`, expect: 400 },
  { name: 'Strapi _start', path: (value) => `/alexandrias?_start=${q(value)}`, expect: 400 },
  { name: 'search page q', path: (value) => `/buscar?q=${q(value)}`, expect: 200 },
  { name: 'search page filters', path: (value) => `/buscar?q=datos&format=${q(value)}&status=${q(value)}&dep=${q(value)}&cat=${q(value)}&src=${q(value)}&page=${q(value)}`, expect: 200 },
  { name: 'record page CID', path: (value) => `/single/src/${q(value)}`, expect: 404 },
  { name: 'collection id', path: (value) => `/collection/dep/${q(value)}`, expect: 404 },
  { name: 'contributions wallet', path: (value) => `/contribuciones/${q(value)}`, expect: 404 },
  { name: 'storage status CID', path: (value) => `/v1/services/filecoin/${q(value)}`, expect: 400 },
  { name: 'gateway CID', path: (value) => `/ipfs/${q(value)}`, expect: 400 },
];

const sqlCases: HostileCase[] = TEXT_FILTERS.flatMap((filter) =>
  SQL_PAYLOADS.map(
    (payload): HostileCase => ({
      name: `sql: ${filter.name} = ${payload}`,
      bullet: 'sql',
      // A stalled answer would mean the injected pg_sleep ran.
      expect: { status: filter.expect, maxMs: 4000 },
      send: (context, address) => get(context, address, filter.path(payload)),
    }),
  ),
);

/** The same filters with a NUL byte: PostgreSQL refuses text containing one, so the server must too. */
const nulCases: HostileCase[] = TEXT_FILTERS.map((filter) => {
  // Refused at the door, whatever the route: a NUL is never a valid part of an address.
  const expected = 400;
  return {
    name: `nul: ${filter.name} with a NUL byte`,
    bullet: 'nul',
    expect: expected,
    send: (context: CorpusContext, address: string) => get(context, address, filter.path('ab\u0000cd')),
  };
});

// Escapes that are not UTF-8 but read as Windows-1252 («%FF%FE» is «ÿþ», «%C0%AF» «À¯»: no lead byte
// before a continuation byte, no «Â» or «Ã») are sent to the same path in UTF-8 (301,
// `http/legacy-escapes.ts`); UTF-8 cut short or damaged («%C3%28», «%ED%A0%80») is refused before any route.
const SENT_ON_IN_UTF8 = new Set(['%FF%FE', '%C0%AF', '%F8%88%80%80%80']);
const utf8Cases: HostileCase[] = [
  ...['%FF%FE', '%C3%28', '%ED%A0%80', '%C0%AF', '%F8%88%80%80%80'].flatMap((bytes) => {
    const front = (otherwise: HostileCase['expect']) => (SENT_ON_IN_UTF8.has(bytes) ? 301 : otherwise);
    return [
      { name: `utf8: search q=${bytes}`, bullet: 'utf8', expect: front(400), send: (context, address) => get(context, address, `/buscar?q=${bytes}`) } satisfies HostileCase,
      // 200 from the route alone: tests/integration/compat-hostile.test.ts calls it without the front door.
      { name: `utf8: REST title=${bytes}`, bullet: 'utf8', expect: SENT_ON_IN_UTF8.has(bytes) ? [200, 301] : [200, 400], send: (context, address) => get(context, address, `/v2/open-data/alexandrias/getAll?title=${bytes}`) } satisfies HostileCase,
      { name: `utf8: record page /single/src/${bytes}`, bullet: 'utf8', expect: front(400), send: (context, address) => get(context, address, `/single/src/${bytes}`) } satisfies HostileCase,
      { name: `utf8: gateway /ipfs/${bytes}`, bullet: 'utf8', expect: front(400), send: (context, address) => get(context, address, `/ipfs/${bytes}`) } satisfies HostileCase,
    ];
  }),
  {
    name: 'utf8: raw 0xFF bytes in the request path',
    bullet: 'utf8',
    expect: [400, 404],
    send: (context, address) => rawSend(context, address, Buffer.concat([Buffer.from('GET /buscar?q='), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(` HTTP/1.1\r\nHost: ${context.host}\r\nConnection: close\r\n\r\n`)])),
  },
];

const ROOT_FILES = ['"name": "archivo-abierto"', 'root:x:0:0', 'DATABASE_URL'];
const traversalCases: HostileCase[] = [
  '/_astro/..%2F..%2Fpackage.json',
  '/_astro/%2e%2e/%2e%2e/package.json',
  '/..%2f..%2f..%2fetc%2fpasswd',
  '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/favicon.svg%2f..%2f..%2fpackage.json',
  '/_astro/..%5c..%5cpackage.json',
  '/ipfs/..%2F..%2Fpackage.json',
  '/single/src/..%2F..%2F..%2Fetc%2Fpasswd',
  '/collection/src/..%2F..%2Fpackage.json',
  '/contribuciones/..%2F..%2F.env',
].map(
  (path): HostileCase => ({
    name: `traversal: GET ${path}`,
    bullet: 'traversal',
    expect: { status: [400, 404], excludes: ROOT_FILES },
    send: (context, address) => get(context, address, path),
  }),
);
traversalCases.push({
  name: 'traversal: raw request line with ../ segments the client did not normalise',
  bullet: 'traversal',
  expect: { status: [400, 404], excludes: ROOT_FILES },
  send: (context, address) => rawSend(context, address, rawHead(context, 'GET', '/_astro/../../../../etc/passwd', {})),
});

const limitCases: HostileCase[] = [
  ...['101', '1000000', '1e9', '-1', '0', '1.5', 'abc', '99999999999999999999999', 'Infinity'].map(
    (limit): HostileCase => ({ name: `limit: REST alexandrias limit=${limit}`, bullet: 'limit', expect: 400, send: (context, address) => get(context, address, `/v2/open-data/alexandrias/getAll?limit=${q(limit)}`) }),
  ),
  { name: 'limit: v1 categories limit=100000', bullet: 'limit', expect: 400, send: (context, address) => get(context, address, '/v1/api/categories/getAll?limit=100000') },
  { name: 'limit: REST sources limit=1000000', bullet: 'limit', expect: 400, send: (context, address) => get(context, address, '/v2/open-data/sources/getAll?limit=1000000') },
  { name: 'limit: Strapi _limit=1000000', bullet: 'limit', expect: 400, send: (context, address) => get(context, address, '/alexandrias?_limit=1000000') },
  { name: 'limit: Strapi _start=1000001', bullet: 'limit', expect: 400, send: (context, address) => get(context, address, '/alexandrias?_start=1000001') },
  { name: 'limit: Strapi _start=-1', bullet: 'limit', expect: 400, send: (context, address) => get(context, address, '/alexandrias?_start=-1') },
  { name: 'limit: search page=99999999', bullet: 'limit', expect: [200, 404], send: (context, address) => get(context, address, '/buscar?q=datos&page=99999999') },
  { name: 'limit: group page=1e9', bullet: 'limit', expect: [200, 404], send: (context, address) => get(context, address, '/group/dep?page=1000000000') },
  { name: 'limit: collection page=99999999999999', bullet: 'limit', expect: [200, 404], send: (context, address) => get(context, address, '/collection/dep/1?page=99999999999999') },
  { name: 'limit: sitemap-999999.xml', bullet: 'limit', expect: 404, send: (context, address) => get(context, address, '/sitemap-999999.xml') },
];

/** CIDs of things the archive does not hold, or cannot be CIDs at all. */
async function cidCases(): Promise<HostileCase[]> {
  const unknownV1 = CID.createV1(raw.code, await sha256.digest(randomBytes(64))).toString();
  const unknownV0 = CID.createV0(await sha256.digest(randomBytes(64))).toString();
  // An identity CID carries its bytes inside itself: the archive must not serve them as its own.
  const identityHtml = CID.createV1(raw.code, identity.digest(new TextEncoder().encode('<script>alert("xss-identity")</script>'))).toString();
  const dagCbor = CID.createV1(0x71, await sha256.digest(randomBytes(32))).toString();
  const list: Array<[string, string, Expectation['status']]> = [
    ['not a CID', 'notacid', 400],
    ['truncated CIDv1', 'bafybeig', 400],
    ['truncated CIDv0', 'Qm123', 400],
    ['5,000 characters', `b${'a'.repeat(4999)}`, [400, 414]],
    ['unknown CIDv1', unknownV1, 404],
    ['unknown CIDv0', unknownV0, 404],
    ['identity CID holding HTML', identityHtml, [400, 404]],
    ['dag-cbor CID', dagCbor, [400, 404]],
  ];
  const cases: HostileCase[] = [];
  for (const [label, cid, status] of list) {
    cases.push({ name: `cid: gateway, ${label}`, bullet: 'cid', expect: { status, excludes: ['xss-identity'] }, send: (context, address) => get(context, address, `/ipfs/${q(cid)}`) });
    cases.push({
      name: `cid: storage status, ${label}`,
      bullet: 'cid',
      expect: Array.isArray(status) ? status : status === 404 ? 404 : 400,
      send: (context, address) => get(context, address, `/v1/services/filecoin/${q(cid)}`),
    });
    cases.push({ name: `cid: record page, ${label}`, bullet: 'cid', expect: 404, send: (context, address) => get(context, address, `/single/src/${q(cid)}`) });
  }
  cases.push(
    { name: 'cid: one-segment path that is not a CID', bullet: 'cid', expect: 404, send: (context, address) => get(context, address, '/estonoesuncid') },
    { name: 'cid: gateway path below a file', bullet: 'cid', expect: 404, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}/otro/archivo`) },
    { name: 'cid: Strapi cid of 121 characters', bullet: 'cid', expect: 400, send: (context, address) => get(context, address, `/alexandrias?cid=${'b'.repeat(121)}`) },
    { name: 'cid: range starting past the end', bullet: 'cid', expect: 416, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}`, { Range: 'bytes=99999999999999999999-' }) },
    { name: 'cid: range ending before it starts', bullet: 'cid', expect: 416, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}`, { Range: 'bytes=50-10' }) },
    { name: 'cid: empty suffix range', bullet: 'cid', expect: 416, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}`, { Range: 'bytes=-0' }) },
    { name: 'cid: a thousand ranges (answered whole)', bullet: 'cid', expect: 200, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}`, { Range: `bytes=${Array.from({ length: 1000 }, (_, n) => `${n}-${n}`).join(',')}` }) },
    { name: 'cid: CAR version 2 only', bullet: 'cid', expect: 406, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}`, { Accept: 'application/vnd.ipld.car; version=2' }) },
    { name: 'cid: CAR in an unknown order', bullet: 'cid', expect: 406, send: (context, address) => get(context, address, `/ipfs/${context.record.cid}?format=car&car-order=random`) },
  );
  return cases;
}

const methodCases: HostileCase[] = [
  { name: 'method: GET on the upload endpoint', bullet: 'method', expect: [404, 405], send: (context, address) => get(context, address, '/v2/ops/assets/add') },
  { name: 'method: PUT on the upload endpoint', bullet: 'method', expect: [404, 405], send: (context, address) => post(context, address, '/v2/ops/assets/add', '{}', { 'Content-Type': 'application/json' }, 'PUT') },
  // Astro's origin check refuses a body-less DELETE without Origin as a cross-site form (403).
  { name: 'method: DELETE on a REST read', bullet: 'method', expect: [403, 404, 405], send: (context, address) => get(context, address, '/v2/open-data/alexandrias/getAll', {}, 'DELETE') },
  { name: 'method: POST on a REST read', bullet: 'method', expect: [404, 405], send: (context, address) => post(context, address, '/v2/open-data/sources/getAll', '{}', { 'Content-Type': 'application/json' }) },
  { name: 'method: POST on the gateway', bullet: 'method', expect: [404, 405], send: (context, address) => post(context, address, `/ipfs/${context.record.cid}`, 'x', { 'Content-Type': 'text/plain' }) },
  { name: 'method: DELETE on /graphql', bullet: 'method', expect: [403, 404, 405], send: (context, address) => get(context, address, '/graphql', {}, 'DELETE') },
  { name: 'method: GET on a moderation endpoint', bullet: 'method', expect: [404, 405], send: (context, address) => get(context, address, `/v2/ops/assets/${context.record.id}/status`) },
  // fetch's Request refuses TRACE; the adapter builds one for every request, outside any try.
  { name: 'method: TRACE', bullet: 'method', expect: [400, 405, 501], send: (context, address) => get(context, address, '/dashboard', {}, 'TRACE') },
  // A «%» that forms no character: the adapter answered a bare English «Bad request.».
  { name: 'utf8: a query with a lone %', bullet: 'utf8', expect: { status: 400, includes: ['que no forma un car'] }, send: (context, address) => rawSend(context, address, rawHead(context, 'GET', '/buscar?q=100%', {})) },
  { name: 'utf8: a path with a cut percent escape', bullet: 'utf8', expect: { status: 400, includes: ['que no forma un car'] }, send: (context, address) => rawSend(context, address, rawHead(context, 'GET', '/registro/%E0%A4%A', {})) },
  { name: 'method: TRACK', bullet: 'method', expect: [400, 405, 501], send: (context, address) => rawSend(context, address, rawHead(context, 'TRACK', '/dashboard', {})) },
  { name: 'method: CONNECT', bullet: 'method', expect: { status: [400, 405, 501], noAnswerOk: true }, send: (context, address) => rawSend(context, address, `CONNECT ${context.host} HTTP/1.1\r\nHost: ${context.host}\r\n\r\n`) },
  { name: 'method: made-up method BREW', bullet: 'method', expect: [400, 404, 405, 501], send: (context, address) => rawSend(context, address, rawHead(context, 'BREW', '/dashboard', {})) },
];

const oversizedReads: HostileCase[] = [
  { name: 'oversized: REST title of 201 characters', bullet: 'oversized', expect: 400, send: (context, address) => get(context, address, `/v2/open-data/alexandrias/getAll?title=${'a'.repeat(201)}`) },
  { name: 'oversized: URL of 20 kB', bullet: 'oversized', expect: [414, 431], send: (context, address) => get(context, address, `/buscar?q=${'a'.repeat(20_000)}`) },
  { name: 'oversized: one header of 20 kB', bullet: 'oversized', expect: 431, send: (context, address) => get(context, address, '/dashboard', { 'X-Relleno': 'a'.repeat(20_000) }) },
  { name: 'oversized: search q of 5,000 characters', bullet: 'oversized', expect: 200, send: (context, address) => get(context, address, `/buscar?q=${q('palabra '.repeat(600))}`) },
  { name: 'oversized: bearer token of 8 kB', bullet: 'oversized', expect: 401, send: (context, address) => get(context, address, '/auth/get-user', { Authorization: `Bearer ${'a'.repeat(8000)}` }) },
];

export async function readCases(): Promise<HostileCase[]> {
  return [...sqlCases, ...nulCases, ...utf8Cases, ...traversalCases, ...limitCases, ...(await cidCases()), ...methodCases, ...oversizedReads];
}
