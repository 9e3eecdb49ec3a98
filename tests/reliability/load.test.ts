/**
 * Load (issues #10 and #21): 100 concurrent readers over a mix of real pages and API calls, 5
 * contributors uploading real files and a moderator publishing some of them, for
 * RELIABILITY_SECONDS (60 by default), against **two** built servers started at the same instant on
 * one empty PostgreSQL database and one S3 bucket (s3rver on 127.0.0.1), as behind a load balancer:
 * requests alternate between them, so a record uploaded through one is read, moderated and served
 * by the other. Every request must succeed (no network error, no 5xx, no unexpected status, no
 * GraphQL error), and every acknowledged upload must be there afterwards, by id and by CID, byte
 * for byte, from both servers. Latency percentiles are printed per kind of request.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import {
  fixtureVariant,
  graphql,
  proofImage,
  sha256,
  signIn,
  testWallet,
  upload,
  validAsset,
  visitorAddress,
  type Session,
} from './support/archive-client.ts';
import { keepAliveAgent, request, type HttpResult } from './support/http.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { checkIntegrity } from './support/integrity.ts';
import { failUnlessKnown } from './support/known.ts';
import { createDatabase } from './support/postgres.ts';
import { startServer, type RunningServer } from './support/server.ts';
import { LOAD_SECONDS, PORTS, WORK_DIR } from './support/settings.ts';
import { Latencies } from './support/stats.ts';

const READERS = 100;
const UPLOADERS = 5;

interface Target {
  kind: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Checks the answer beyond its status; returns what is wrong, if anything. */
  check?: (answer: HttpResult) => string | undefined;
  status?: number;
  weight: number;
}

interface Acknowledged {
  assetId: number;
  cid: string;
  sha256: string;
  wallet: string;
}

let servers: RunningServer[] = [];
let database: { url: string; drop(): Promise<void> };
let s3: TestS3;
/** Each server's own data folder: its staging stays local, its blocks go to the shared bucket. */
const dataDirs = [path.join(WORK_DIR, 'load-data-a'), path.join(WORK_DIR, 'load-data-b')];
const BLOCKS_PREFIX = 'bloques/';
const moderator = testWallet('moderator');

beforeAll(async () => {
  database = await createDatabase(inject('postgresUrl'), 'load');
  s3 = await startS3('archivo-carga');
  const env = {
    ...s3.env(BLOCKS_PREFIX),
    ARCHIVE_MODERATORS: moderator.address,
    // Five contributors uploading for a minute go far past the hourly allowance of one person.
    ARCHIVE_UPLOADS_PER_HOUR_WALLET: '1000000',
    ARCHIVE_UPLOADS_PER_HOUR_IP: '1000000',
  };
  // At the same instant on an empty database: one migrates and seeds, the other waits and goes on.
  servers = await Promise.all(
    [PORTS.load, PORTS.loadOther].map((port, n) => startServer({ name: `load-${'ab'[n]}`, port, databaseUrl: database.url, dataDir: dataDirs[n]!, env })),
  );
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database?.drop();
  await s3?.stop();
  await Promise.all(dataDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

const noGraphqlErrors = (answer: HttpResult) => {
  const parsed = JSON.parse(answer.body.toString('utf8')) as { errors?: Array<{ message: string }> };
  return parsed.errors ? `GraphQL errors: ${JSON.stringify(parsed.errors).slice(0, 300)}` : undefined;
};

const rangeOf = (expected: number) => (answer: HttpResult) =>
  answer.body.length === expected && answer.headers['content-range'] ? undefined : `range: ${answer.body.length} bytes, Content-Range ${answer.headers['content-range']}`;

/** The mix of real URLs, built from what the seeded archive holds. */
async function targets(origin: string, wallets: string[]): Promise<Target[]> {
  const { data } = await graphql<{
    departments: Array<{ id: string; alexandriasCount: number }>;
    sources: Array<{ id: string; alexandriasCount: number }>;
    categories: Array<{ id: string; alexandriasCount: number }>;
    alexandrias: Array<{ id: string; cid: string | null; file: { size: number } | null }>;
  }>(
    origin,
    `{ departments(limit: 15, sort: "alexandrias:desc") { id alexandriasCount }
       sources(limit: 10, sort: "alexandrias:desc") { id alexandriasCount }
       categories(limit: 11) { id alexandriasCount }
       alexandrias(limit: 30, sort: "id:desc") { id cid file { size } } }`,
  );
  if (!data) throw new Error('The seeded archive did not answer the GraphQL query that lists it');
  const list: Target[] = [
    { kind: 'page:dashboard', path: '/dashboard', weight: 6 },
    { kind: 'page:group', path: '/group/src', weight: 1 },
    { kind: 'page:group', path: '/group/dep', weight: 1 },
    { kind: 'page:group', path: '/group/dep?page=2', weight: 1 },
    { kind: 'page:group', path: '/group/cat', weight: 1 },
    { kind: 'page:other', path: '/general/faq', weight: 1 },
    { kind: 'page:other', path: '/contacto', weight: 1 },
    { kind: 'page:other', path: '/auth/login', weight: 1 },
    { kind: 'page:other', path: '/', status: 302, weight: 1 },
  ];
  const collections = [
    ...data.departments.map((item) => ['dep', item] as const),
    ...data.sources.map((item) => ['src', item] as const),
    ...data.categories.map((item) => ['cat', item] as const),
  ];
  for (const [entity, item] of collections) {
    const pages = Math.max(1, Math.ceil(item.alexandriasCount / 10));
    list.push({ kind: 'page:collection', path: `/collection/${entity}/${item.id}`, weight: 1 });
    if (pages > 1) list.push({ kind: 'page:collection', path: `/collection/${entity}/${item.id}?page=${Math.min(pages, 2 + (Number(item.id) % 5))}`, weight: 1 });
  }
  for (const q of ['salario minimo', 'educacion', 'presupuesto', 'salud publica', 'construccion', 'turismo', 'ministerio', 'estadisticas']) {
    list.push({ kind: 'page:buscar', path: `/buscar?q=${encodeURIComponent(q)}`, weight: 1 });
  }
  list.push({ kind: 'page:buscar', path: '/buscar?q=datos&format=csv&page=2', weight: 1 });
  list.push({ kind: 'page:buscar', path: `/buscar?q=economia&cat=${data.categories[2]?.id ?? 1}`, weight: 1 });

  const rest: Array<[string, number]> = [
    ['/v2/open-data/alexandrias/getAll?title=salario&limit=10', 2],
    ['/v2/open-data/alexandrias/getAll?title=educaci%C3%B3n&limit=5&sort=createdAt:-1', 1],
    ['/v2/open-data/sources/getAll?name=portal', 1],
    ['/v2/open-data/departments/getAll?name=ministerio&limit=10', 1],
    ['/v2/open-data/categories/getAll', 1],
    ['/v1/api/sources/getAll?limit=10', 1],
    ['/v1/api/departments/getAll?limit=20', 1],
    ['/v1/api/categories/getAll?limit=11', 1],
    ['/alexandrias?_limit=20&_start=40&status=on_line', 1],
    ['/alexandrias?type=csv&_sort=title:asc', 1],
  ];
  for (const [url, weight] of rest) list.push({ kind: 'rest', path: url, weight });
  for (const wallet of wallets.slice(0, 2)) {
    list.push({ kind: 'rest', path: `/v2/open-data/alexandrias/getAll?wallet_address=${wallet}&limit=5`, weight: 1 });
  }

  const queries = [
    '{ categories(limit: 5, sort: "alexandrias:desc") { id title alexandriasCount counts { pdf csv xlsx ods other } } }',
    '{ alexandriasConnection(where: { status: "on_line" }) { aggregate { count totalCount } groupBy { type { key connection { aggregate { count } } } } } }',
    '{ departments(limit: 10, sort: "updatedAt:desc") { name alexandrias(limit: 5) { title cid type } } }',
    '{ alexandrias(limit: 20, where: { title_contains: "salario" }) { id title source { name } department { name } category { title } } }',
    '{ importsConnection { aggregate { count } groupBy { status { key connection { aggregate { count } } } } } }',
  ];
  for (const query of queries) {
    list.push({ kind: 'graphql', path: '/graphql', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query }), check: noGraphqlErrors, weight: 2 });
  }
  list.push({ kind: 'graphql', path: `/graphql?query=${encodeURIComponent(queries[0]!)}`, headers: { Accept: 'application/json' }, check: noGraphqlErrors, weight: 1 });

  for (const record of data.alexandrias.filter((item) => item.cid)) {
    list.push(...recordTargets(Number(record.id), record.cid!, record.file?.size ?? 0, 1));
  }
  list.push({ kind: 'catalog', path: '/catalog.jsonld', weight: 1 });
  list.push({ kind: 'catalog', path: '/sitemap.xml', weight: 1 });
  return list;
}

/** A stored record's page, its file whole and in ranges, its CAR and its storage status. */
function recordTargets(id: number, cid: string, size: number, weight: number): Target[] {
  const list: Target[] = [
    { kind: 'page:record', path: `/single/src/${cid}?assetId=${id}`, weight: 2 * weight },
    { kind: 'ipfs:full', path: `/ipfs/${cid}`, weight },
    { kind: 'ipfs:head', path: `/ipfs/${cid}`, method: 'HEAD', weight },
    { kind: 'ipfs:car', path: `/ipfs/${cid}?format=car`, weight },
    { kind: 'rest', path: `/v1/services/filecoin/${cid}`, weight },
  ];
  if (size > 2048) {
    list.push({ kind: 'ipfs:range', path: `/ipfs/${cid}`, headers: { Range: 'bytes=0-1023' }, status: 206, check: rangeOf(1024), weight });
    list.push({ kind: 'ipfs:range', path: `/ipfs/${cid}`, headers: { Range: 'bytes=-500' }, status: 206, check: rangeOf(500), weight });
    const start = Math.floor(size / 2);
    list.push({ kind: 'ipfs:range', path: `/ipfs/${cid}`, headers: { Range: `bytes=${start}-${start + 999}` }, status: 206, check: rangeOf(1000), weight });
  }
  return list;
}

function pick(list: Target[], total: number): Target {
  let roll = Math.random() * total;
  for (const target of list) {
    roll -= target.weight;
    if (roll <= 0) return target;
  }
  return list[list.length - 1]!;
}

test(`${READERS} readers, ${UPLOADERS} contributors and a moderator on two servers for ${LOAD_SECONDS} s: no error, no 5xx, every acknowledged upload kept`, async () => {
  const origins = servers.map((server) => server.origin);
  const [origin] = origins as [string, string];
  /** Alternates between the servers, as a load balancer would. */
  let turn = 0;
  const nextOrigin = () => origins[turn++ % origins.length]!;
  const wallets = Array.from({ length: UPLOADERS }, (_, n) => testWallet(`uploader-${n}`));
  const sessions: Session[] = [];
  // A session opened on one server is valid on the other: the database holds it.
  for (const [n, wallet] of wallets.entries()) sessions.push(await signIn(origins[n % 2]!, wallet, visitorAddress(20, n)));
  const moderation = await signIn(origins[1]!, moderator, visitorAddress(21, 0));
  // Exactly one seed, though both servers started on the empty database at once.
  const { data: seeded } = await graphql<{ importsConnection: { aggregate: { count: number } } }>(origin, '{ importsConnection { aggregate { count } } }');
  expect(seeded?.importsConnection.aggregate.count, 'imports after two simultaneous starts: the seed\'s harvest and files').toBe(2);
  // One bucket for both: each server's health is ok, with nothing to warn about their stores.
  for (const server of origins) {
    const health = await request(server, '/v2/health');
    expect(health.status, server).toBe(200);
    expect(JSON.parse(health.body.toString('utf8')), server).toEqual({ estado: 'ok', trabajador: true });
  }
  const { data: groups } = await graphql<{ sources: Array<{ id: string }>; departments: Array<{ id: string }> }>(
    origin,
    '{ sources(limit: 5) { id } departments(limit: 20) { id } }',
  );

  const list = await targets(origin, wallets.map((wallet) => wallet.address));
  let totalWeight = list.reduce((sum, target) => sum + target.weight, 0);
  const latencies = new Latencies();
  const failures: string[] = [];
  const failure = (what: string) => {
    if (failures.length < 50) failures.push(what);
  };
  let failureCount = 0;
  let fiveHundreds = 0;
  let networkErrors = 0;
  const acknowledged: Acknowledged[] = [];
  const refusedUploads: string[] = [];

  const started = performance.now();
  const deadline = started + LOAD_SECONDS * 1000;
  const agent = keepAliveAgent(READERS + 10);

  const reader = async (n: number) => {
    const localAddress = visitorAddress(10, n);
    while (performance.now() < deadline) {
      const target = pick(list, totalWeight);
      const server = nextOrigin();
      try {
        const answer = await request(server, target.path, { method: target.method, headers: target.headers, body: target.body, agent, localAddress });
        latencies.add(target.kind, answer.ms);
        const wrong =
          answer.status !== (target.status ?? 200)
            ? `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`
            : target.check?.(answer);
        if (answer.status >= 500) fiveHundreds += 1;
        if (wrong) {
          failureCount += 1;
          failure(`${target.method ?? 'GET'} ${server}${target.path} ${JSON.stringify(target.headers ?? {})} → ${wrong}`);
        }
      } catch (error) {
        networkErrors += 1;
        failureCount += 1;
        failure(`${target.method ?? 'GET'} ${server}${target.path} → network error: ${(error as Error).message}`);
      }
    }
  };

  let published = 0;
  const publish = async (through: string, assetId: number) => {
    try {
      const answer = await request(through, `/v2/ops/assets/${assetId}/status`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${moderation.token}`, Origin: through },
        body: JSON.stringify({ status: 'on_line', reason: 'Revisado en la prueba de carga: documento y captura concuerdan.' }),
        localAddress: moderation.address,
      });
      latencies.add('moderation', answer.ms);
      if (answer.status >= 500) fiveHundreds += 1;
      if (answer.status === 200) published += 1;
      else {
        failureCount += 1;
        failure(`POST ${through}/v2/ops/assets/${assetId}/status → ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`);
      }
    } catch (error) {
      networkErrors += 1;
      failureCount += 1;
      failure(`POST ${through}/v2/ops/assets/${assetId}/status → network error: ${(error as Error).message}`);
    }
  };

  let uploadCount = 0;
  const uploader = async (n: number) => {
    const session = sessions[n]!;
    for (let iteration = 0; performance.now() < deadline; iteration += 1) {
      const number = uploadCount++;
      const variant = fixtureVariant(number);
      const proof = proofImage(number);
      const pool = number % 4;
      const asset = validAsset(session.wallet.address, {
        title: `Documento público de prueba de carga número ${number}, contribuidor ${n}`,
        docType: variant.docType,
        categoryId: 1 + (number % 11),
        // Some pick an existing source and issuer; the others create one of a few shared new ones,
        // so that contributors race to create the same source or issuer at the same moment.
        ...(pool === 0
          ? { sourceId: Number(groups?.sources[number % 5]?.id), issuerId: Number(groups?.departments[number % 20]?.id) }
          : {
              newSource: { name: `Portal de carga ${pool}`, description: 'Fuente de la prueba de carga', url: `https://carga-${pool}.example.do/datos` },
              newIssuer: { name: `Institución de carga ${pool}`, description: 'Emisor de la prueba de carga', url: `https://institucion-carga-${pool}.example.do` },
            }),
      });
      // Each upload from an address of its own: the upload nonce is limited to 30 a minute per IP.
      const address = visitorAddress(30 + n, iteration);
      const through = origins[(n + iteration) % origins.length]!;
      try {
        const outcome = await upload(through, session, { document: variant.document, proof, documentName: variant.name, documentType: variant.type }, asset, address);
        latencies.add('upload', outcome.result.ms);
        if (outcome.result.status >= 500) fiveHundreds += 1;
        if (outcome.assetId === undefined || !outcome.cid) {
          failureCount += 1;
          refusedUploads.push(`upload ${number} → ${outcome.result.status}: ${outcome.result.body.toString('utf8').slice(0, 300)}`);
          continue;
        }
        acknowledged.push({ assetId: outcome.assetId, cid: outcome.cid, sha256: sha256(variant.document), wallet: session.wallet.address.toLowerCase() });
        // Every third upload is published by the moderator, through the other server.
        if (number % 3 === 0) await publish(origins.find((other) => other !== through)!, outcome.assetId);
        // Readers now ask for the new record too: reads right after writes. A wallet's public
        // page exists from its first contribution on (404 before).
        list.push(...recordTargets(outcome.assetId, outcome.cid, variant.document.length, 0.5));
        if (iteration === 0) list.push({ kind: 'page:contribuciones', path: `/contribuciones/${session.wallet.address.toLowerCase()}`, weight: 1 });
        totalWeight = list.reduce((sum, target) => sum + target.weight, 0);
      } catch (error) {
        networkErrors += 1;
        failureCount += 1;
        refusedUploads.push(`upload ${number} → ${(error as Error).message}`);
      }
    }
  };

  await Promise.all([...Array.from({ length: READERS }, (_, n) => reader(n)), ...Array.from({ length: UPLOADERS }, (_, n) => uploader(n))]);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();

  console.log(
    `\nCarga en dos servidores: ${latencies.count()} peticiones en ${seconds.toFixed(1)} s (${(latencies.count() / seconds).toFixed(0)}/s), ` +
      `${acknowledged.length} subidas aceptadas, ${published} publicadas por moderación, ${failureCount} fallos, ` +
      `${fiveHundreds} respuestas 5xx, ${networkErrors} errores de red\n${latencies.table()}`,
  );
  if (failures.length || refusedUploads.length) console.log(`Fallos (primeros):\n${[...failures, ...refusedUploads.slice(0, 20)].join('\n')}`);
  for (const server of servers) {
    const logged = server.log.errorsSince(0);
    if (logged.length) console.log(`Errores en el registro de ${server.origin} (${logged.length}):\n${logged.slice(0, 20).join('\n')}`);
  }

  // Every acknowledged upload is there, by id and by CID, with its bytes, from both servers.
  const missing: string[] = [];
  const queue = acknowledged.flatMap((item) => origins.map((server) => ({ ...item, server })));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const { data } = await graphql<{ alexandria: { cid: string; wallet_address: string; status: string } | null }>(
          item.server,
          'query ($id: ID!) { alexandria(id: $id) { cid wallet_address status } }',
          { id: String(item.assetId) },
        );
        if (data?.alexandria?.cid !== item.cid || data.alexandria.wallet_address !== item.wallet) {
          missing.push(`#${item.assetId}: ${JSON.stringify(data?.alexandria)}`);
          continue;
        }
        const file = await request(item.server, `/ipfs/${item.cid}`);
        if (file.status !== 200 || sha256(file.body) !== item.sha256) missing.push(`#${item.assetId}: ${item.server}/ipfs/${item.cid} → ${file.status}`);
      }
    }),
  );

  // Every record's blocks readable from both servers; the bucket holds no orphan; no staging left.
  const integrity = await checkIntegrity(origins, database.url, dataDirs, { s3, prefix: BLOCKS_PREFIX });
  console.log(`Integridad tras la carga: ${JSON.stringify(integrity.facts)}`);

  expect(networkErrors, 'network errors').toBe(0);
  expect(fiveHundreds, '5xx answers').toBe(0);
  expect([...failures, ...refusedUploads], 'failed requests').toEqual([]);
  expect(acknowledged.length, 'uploads acknowledged').toBeGreaterThan(0);
  expect(published, 'records published through the other server').toBeGreaterThan(0);
  expect(missing, 'acknowledged uploads missing or unreadable').toEqual([]);
  const otherProblems = integrity.problems.filter((problem) => !/still in_progress/.test(problem));
  expect(otherProblems, 'integrity after the load').toEqual([]);
  if (integrity.importsInProgress.length > 0) {
    failUnlessKnown(undefined, `imports left in_progress after the load: ${JSON.stringify(integrity.importsInProgress)}`);
  }
});
