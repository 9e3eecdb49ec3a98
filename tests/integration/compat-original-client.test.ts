/**
 * The original front end as a client (issue #22): every GraphQL document it sends
 * (shared/contracts/original-client-graphql.json), filled as it fills them from the seeded
 * archive's real ids, and every REST read of the contracts' README, on every engine. Each answer
 * must carry no error and hold every field the original reads, with the type it reads it as.
 * The sign-in calls of the README are refused on purpose (DECISIONS: SIWE, opaque tokens) and
 * the upload is the upload tests' subject; tests/e2e/compat-cors.spec.ts sends those through the
 * built server, from another origin.
 */
import fs from 'node:fs';
import path from 'node:path';
import { desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { Kind, parse, type FieldNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandriasGetAll, categoriesGetAll, filecoinStatus, namedGetAll, overviewGetAll, type ApiRequest } from '../../src/lib/server/api/endpoints.ts';
import { rest } from '../../src/lib/server/api/rest.ts';
import { CATEGORY_ICON_NAMES } from '../../src/lib/server/api/shapes.ts';
import { strapiCount, strapiList, strapiOne } from '../../src/lib/server/api/strapi.ts';
import { alexandrias, categories, departments, imports, sources } from '../../src/lib/server/db/schema.ts';
import { createGraphqlHandler, graphqlSchema, MAX_COST } from '../../src/lib/server/graphql/index.ts';
import { operationCost } from '../../src/lib/server/graphql/limits.ts';
import { EXPENSIVE_COST } from '../../src/lib/server/graphql/rate-limit.ts';
import { readArchiveSizes } from '../../src/lib/server/graphql/sizes.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const CONTRACTS = path.resolve(import.meta.dirname, '../../../shared/contracts');
const ORIGIN = 'https://archivo.test';
/** The original ran on another origin than its API. */
const CLIENT_ORIGIN = 'https://app.aletheiadata.example';
const WALLET = '0x71c7656ec7ab88b098defb751b7401b5f6d8976f';

interface ContractDocument {
  file: string;
  line: number;
  query: string;
  placeholders: string[];
  note?: string;
  duplicate_of_earlier?: boolean;
}
const contract = JSON.parse(fs.readFileSync(path.join(CONTRACTS, 'original-client-graphql.json'), 'utf8')) as { queries: ContractDocument[] };
/** The documents to answer: all but those the contract marks as not needed (dead code, the NFT widget). */
const needed = contract.queries.filter((document) => !document.note);

/** Leaves the original reads as numbers. */
const NUMBERS = new Set(['count', 'totalCount', 'documents']);
/**
 * Leaves that may be null because the record or group has no such value (a record without a
 * stored file yet has no cid; a department without a website). Every other leaf is a string.
 */
const NULLABLE_LEAVES = new Set(['description', 'desciption', 'website', 'cid', 'api_endpoint', 'source_url', 'wallet_address']);
/** Objects that may be null: a record's file and proof before capture, its category, department or source when it has none. */
const NULLABLE_OBJECTS = new Set(['file', 'proof', 'category', 'department', 'source']);

/**
 * Fails unless `value` holds every field `selectionSet` asks for, with the type the original reads
 * it as. Returns how many fields it checked, so that a test cannot pass on an empty answer.
 */
function expectShape(value: unknown, selectionSet: SelectionSetNode, where: string): number {
  let checked = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) throw new Error(`${where}: the contract has no fragments`);
    const field: FieldNode = selection;
    const name = field.name.value;
    const at = `${where}.${name}`;
    const answer = (value as Record<string, unknown>)[name];
    expect(answer, at).not.toBeUndefined();
    checked += 1;
    if (field.selectionSet) {
      if (answer === null) {
        expect(NULLABLE_OBJECTS.has(name), `${at} is null`).toBe(true);
        continue;
      }
      const items = Array.isArray(answer) ? answer : [answer];
      for (const [index, item] of items.entries()) {
        expect(typeof item, `${at}[${index}]`).toBe('object');
        checked += expectShape(item, field.selectionSet, `${at}[${index}]`);
      }
    } else if (NUMBERS.has(name)) {
      expect(Number.isInteger(answer), `${at} = ${JSON.stringify(answer)}`).toBe(true);
    } else if (answer === null) {
      expect(NULLABLE_LEAVES.has(name), `${at} is null`).toBe(true);
    } else {
      expect(typeof answer, `${at} = ${JSON.stringify(answer)}`).toBe('string');
    }
  }
  return checked;
}

describe.each(testEngines())('the original front end against the archive on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const yoga = createGraphqlHandler(async () => seeded.db, { logging: false });
  /** Real ids for the placeholders: the largest and a smaller group of each kind, a stored file's CID. */
  const ids = { category: [] as number[], department: [] as number[], source: [] as number[], cid: '' };

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    const db = seeded.db;
    const largest = async (column: AnyPgColumn) =>
      (
        await db
          .select({ id: column, n: sql<number>`count(*)::int` })
          .from(alexandrias)
          .where(isNotNull(column))
          .groupBy(column)
          .orderBy(desc(sql`count(*)`), column)
      ).map((row) => Number(row.id));
    const pick = (all: number[]) => [all[0]!, all[Math.floor(all.length / 2)]!];
    ids.category = pick(await largest(alexandrias.categoryId));
    ids.department = pick(await largest(alexandrias.departmentId));
    ids.source = pick(await largest(alexandrias.sourceId));
    const [stored] = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(isNotNull(alexandrias.cid)).orderBy(alexandrias.id).limit(1);
    ids.cid = stored!.cid!;
    // A contributor, so that the contributor ranking and a wallet's latest files have rows.
    const contributed = (await db.select({ id: alexandrias.id }).from(alexandrias).orderBy(alexandrias.id).limit(4)).map((row) => row.id);
    await db.update(alexandrias).set({ walletAddress: WALLET }).where(inArray(alexandrias.id, contributed));
  });
  afterAll(() => seeded?.destroy());

  /** The document as the original sends it: plain interpolation, no variables. */
  function fill(document: ContractDocument, values: { id?: number; cid?: string; entity?: string; page?: number; entityName?: string }): string {
    return document.query
      .replaceAll('${(page - 1) * 10}', String(((values.page ?? 1) - 1) * 10))
      .replaceAll('${entityName}', values.entityName ?? '')
      .replaceAll('${id}', String(values.id ?? ''))
      .replaceAll('${cid}', values.cid ?? '')
      .replaceAll('${entity}', values.entity ?? '');
  }

  /** Every way the original fills `document` on its pages. */
  function fillings(document: ContractDocument): Array<{ label: string; query: string }> {
    const placeholders = new Set(document.placeholders);
    if (placeholders.has('entityName')) {
      // The collection page: records of a source, department or category, page by page.
      return (['source', 'department', 'category'] as const).flatMap((entityName) =>
        [1, 2, 60].map((page) => ({ label: `${entityName} ${ids[entityName][0]}, page ${page}`, query: fill(document, { entityName, id: ids[entityName][0], page }) })),
      );
    }
    if (placeholders.has('entity')) {
      return ['pdf', 'csv', 'xls', 'other'].flatMap((entity) => [1, 2].map((page) => ({ label: `${entity}, page ${page}`, query: fill(document, { entity, page }) })));
    }
    if (placeholders.has('(page - 1) * 10')) {
      // The departments' list, page by page (30 is past the last).
      return [1, 2, 30].map((page) => ({ label: `page ${page}`, query: fill(document, { page }) }));
    }
    if (placeholders.has('cid')) return [{ label: ids.cid, query: fill(document, { cid: ids.cid }) }];
    if (placeholders.has('id')) {
      // An id of the kind the document filters by (category, department or source).
      const kind = (['category', 'department', 'source'] as const).find((name) => new RegExp(`\\b${name}(\\s*\\(|:\\s*")`).test(document.query))!;
      return ids[kind].map((id) => ({ label: `${kind} ${id}`, query: fill(document, { id }) }));
    }
    return [{ label: 'as sent', query: document.query }];
  }

  async function send(query: string) {
    const response = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', Origin: CLIENT_ORIGIN },
        body: JSON.stringify({ query }),
      }),
    );
    const json = (await response.json()) as { data?: Record<string, any>; errors?: Array<{ message: string }> };
    return { response, ...json };
  }

  it.each(needed.map((document) => [`${document.file}:${document.line}`, document] as const))('answers %s as the original reads it', async (_where, document) => {
    for (const { label, query } of fillings(document)) {
      const answer = await send(query);
      expect(answer.errors, `${label}: ${JSON.stringify(answer.errors)}`).toBeUndefined();
      expect(answer.response.status).toBe(200);
      // yoga names the asking origin (with Vary: Origin) where the REST reads say '*': the same grant, without credentials.
      expect(answer.response.headers.get('access-control-allow-origin')).toBe(CLIENT_ORIGIN);
      expect(answer.response.headers.get('access-control-allow-credentials')).toBeNull();
      const operation = parse(query).definitions[0] as OperationDefinitionNode;
      expect(expectShape(answer.data, operation.selectionSet, label)).toBeGreaterThan(0);
    }
  });

  it('prices every document by what the archive holds: none is refused, none is rationed', async () => {
    const sizes = await readArchiveSizes(seeded.db);
    expect(sizes.groups.cat.count).toBe(11);
    for (const document of needed) {
      for (const { label, query } of fillings(document)) {
        const operation = parse(query).definitions[0] as OperationDefinitionNode;
        const cost = operationCost(graphqlSchema, () => null, operation, sizes);
        expect(cost, `${document.file}:${document.line} ${label}`).toBeLessThanOrEqual(EXPENSIVE_COST);
        // Without knowing the archive, the worst case still admits it.
        expect(operationCost(graphqlSchema, () => null, operation), `${document.file}:${document.line}`).toBeLessThanOrEqual(MAX_COST);
      }
    }
  });

  it("reads imports' source and wallet as plain texts, and a record's storage status as the spec's rule spells it", async () => {
    const timeline = needed.find((document) => document.query.includes('imports(limit: 5'))!;
    const { data } = await send(timeline.query);
    const harvest = data!.imports.find((row: { documents: number }) => row.documents > 1000);
    const [portal] = await seeded.db.select({ name: sources.name }).from(sources).where(eq(sources.id, ids.source[0]!));
    expect(harvest.source).toBe(portal!.name);
    // An import nobody's wallet brought reads as empty text, not "null".
    expect(data!.imports.every((row: { wallet: string }) => row.wallet === '')).toBe(true);
    // The original counts the documents of a 1,065-record harvest from its nested list: '+100'.
    expect(harvest.alexandrias).toHaveLength(100);

    const response = await rest(() => filecoinStatus(request(`/v1/services/filecoin/${ids.cid}`), ids.cid));
    const body = (await response.json()) as { body: { pins: Array<{ status: string }> } };
    expect(body.body.pins.map((pin) => pin.status)).toContain('Pinned');
  });

  it('lists enough nested records for the counts the original derives from them (its "+100")', async () => {
    const listing = needed.find((document) => document.query.includes('sources(limit: 10'))!;
    const { data } = await send(listing.query);
    const counted = new Map<number, number>(
      (await seeded.db.select({ id: alexandrias.sourceId, n: sql<number>`count(*)::int` }).from(alexandrias).groupBy(alexandrias.sourceId)).map((row) => [row.id!, row.n]),
    );
    for (const source of data!.sources) expect(source.alexandrias, source.name).toHaveLength(Math.min(100, counted.get(Number(source.id)) ?? 0));
    expect(data!.sources.some((source: { alexandrias: unknown[] }) => source.alexandrias.length === 100)).toBe(true);
  });

  it('answers the sort the original sends without a field, and Strapi-style filters, as the original server did', async () => {
    const underReview = needed.find((document) => document.query.includes('sort: "desc"'))!;
    const { data } = await send(underReview.query);
    const [row] = await seeded.db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(eq(alexandrias.status, 'under_review'));
    const counted = data!.alexandriasConnection.groupBy.type.reduce((sum: number, group: { connection: { aggregate: { count: number } } }) => sum + group.connection.aggregate.count, 0);
    expect(counted).toBe(row!.n);
    expect(row!.n).toBeGreaterThan(0);
  });

  it('gives every category a real icon, served by the archive', async () => {
    const { data } = await send(needed[0]!.query);
    const icons = data!.categoriesConnection.groupBy.id.map((group: any) => group.connection.values[0].icon);
    expect(icons).toHaveLength(11);
    for (const icon of icons) {
      expect(icon.url).toMatch(new RegExp(`^${ORIGIN}/icons/categories/[a-z]+\\.svg$`));
      const file = path.resolve(import.meta.dirname, '../../public', new URL(icon.url).pathname.slice(1));
      expect(fs.readFileSync(file, 'utf8'), icon.url).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>\n$/s);
    }
    // Every icon the archive names exists.
    for (const name of CATEGORY_ICON_NAMES) expect(fs.existsSync(path.resolve(import.meta.dirname, `../../public/icons/categories/${name}.svg`)), name).toBe(true);
  });

  // -------------------------------------------------------------------------------------------
  // REST: the calls of the contracts' README

  const request = (pathAndQuery: string): ApiRequest => ({ db: seeded.db, url: new URL(pathAndQuery, ORIGIN), origin: ORIGIN });

  async function call(pathAndQuery: string, recipe: (request: ApiRequest) => Promise<Response>) {
    const response = await rest(() => recipe(request(pathAndQuery)));
    expect(response.status, pathAndQuery).toBe(200);
    expect(response.headers.get('access-control-allow-origin'), pathAndQuery).toBe('*');
    return response.json() as Promise<any>;
  }
  /** The open-data envelope: `{code, body}` with `body` a JSON string of a list. */
  async function envelopeList(pathAndQuery: string, recipe: (request: ApiRequest) => Promise<Response>) {
    const json = await call(pathAndQuery, recipe);
    expect(json.code).toBe(200);
    expect(typeof json.body).toBe('string');
    return JSON.parse(json.body) as Array<Record<string, unknown>>;
  }

  it('answers the open-data reads, Strapi paging of the group pages included', async () => {
    const departmentsPage = await envelopeList('/v2/open-data/departments/getAll?_start=0&_limit=15', (r) => namedGetAll('dep', r));
    expect(departmentsPage).toHaveLength(15);
    const nextPage = await envelopeList('/v2/open-data/departments/getAll?_start=15&_limit=15', (r) => namedGetAll('dep', r));
    expect(nextPage).toHaveLength(15);
    expect(nextPage.map((item) => item.id)).not.toContain(departmentsPage[0]!.id);
    const [someDepartment] = await seeded.db.select({ name: departments.name }).from(departments).where(eq(departments.id, ids.department[0]!));
    const term = someDepartment!.name.split(' ').find((word) => word.length > 5)!;
    const found = await envelopeList(`/v2/open-data/departments/getAll?name=${encodeURIComponent(term)}&limit=5`, (r) => namedGetAll('dep', r));
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThanOrEqual(5);
    expect(found.every((item) => typeof item.name === 'string' && typeof item.id === 'number')).toBe(true);

    const allSources = await envelopeList('/v2/open-data/sources/getAll?_start=0&_limit=15', (r) => namedGetAll('src', r));
    const [{ n: sourceCount } = { n: 0 }] = await seeded.db.select({ n: sql<number>`count(*)::int` }).from(sources);
    expect(allSources).toHaveLength(Math.min(15, sourceCount));
    expect((await envelopeList('/v2/open-data/sources/getAll?name=portal', (r) => namedGetAll('src', r))).length).toBeGreaterThan(0);

    const allCategories = await envelopeList('/v2/open-data/categories/getAll', categoriesGetAll);
    expect(allCategories).toHaveLength(11);
    expect(allCategories.every((item) => typeof item.title === 'string' && typeof (item.icon as { url: string }).url === 'string')).toBe(true);

    const [titled] = await seeded.db.select({ title: alexandrias.title }).from(alexandrias).where(eq(alexandrias.id, 1));
    const titleTerm = titled!.title.split(' ')[0]!;
    const byTitle = await envelopeList(`/v2/open-data/alexandrias/getAll?title=${encodeURIComponent(titleTerm)}&limit=5`, alexandriasGetAll);
    expect(byTitle.length).toBeGreaterThan(0);
    const byWallet = await envelopeList(`/v2/open-data/alexandrias/getAll?wallet_address=${WALLET}&limit=5&sort=createdAt:-1`, alexandriasGetAll);
    expect(byWallet).toHaveLength(4);
    expect(byWallet.every((item) => item.wallet_address === WALLET && typeof item.title === 'string')).toBe(true);

    for (const [plural, entity] of [['sources', 'src'], ['departments', 'dep'], ['categories', 'cat']] as const) {
      const tab = await envelopeList(`/v1/api/${plural}/getAll?limit=5`, (r) => overviewGetAll(entity, r));
      expect(tab, plural).toHaveLength(5);
      expect(tab.every((item) => typeof item.alexandriasCount === 'number')).toBe(true);
    }
  });

  it("answers the admin host's Strapi paths: plain arrays, objects and bare counts", async () => {
    const lastFiles = await call(`/alexandrias?wallet_address=${WALLET}&_limit=3&_sort=createdAt:desc`, (r) => strapiList('alexandrias', r));
    expect(lastFiles).toHaveLength(3);
    expect(lastFiles.every((item: { wallet_address: string; cid: unknown }) => item.wallet_address === WALLET && 'cid' in item)).toBe(true);

    const everyDepartment = await call('/departments', (r) => strapiList('departments', r));
    expect(Array.isArray(everyDepartment)).toBe(true);
    expect(everyDepartment).toHaveLength(100);
    expect(await call('/departments?_start=0&_limit=15', (r) => strapiList('departments', r))).toHaveLength(15);
    const one = await call(`/departments/${ids.department[0]}`, (r) => strapiOne('departments', r, String(ids.department[0])));
    expect(one).toMatchObject({ id: ids.department[0], _id: ids.department[0] });
    expect(typeof one.name).toBe('string');
    expect(await call('/sources?_start=0&_limit=15', (r) => strapiList('sources', r))).toHaveLength(10);

    // Strapi's "no limit" (`_limit=0` or -1) answers the bound; `_sort=desc` orders by id.
    const newest = await call('/alexandrias?_limit=0&_start=1&_sort=desc', (r) => strapiList('alexandrias', r));
    expect(newest).toHaveLength(100);
    const fromFirst = await call('/alexandrias?_limit=2&_sort=id:desc', (r) => strapiList('alexandrias', r));
    expect(newest[0].id).toBe(fromFirst[1].id);
    expect(newest.map((item: { id: number }) => item.id)).toEqual([...newest.map((item: { id: number }) => item.id)].sort((a, b) => b - a));
    expect((await call('/alexandrias?_limit=-1', (r) => strapiList('alexandrias', r))).length).toBe(100);
    const pdfs = await call('/alexandrias?type=pdf&_limit=0&_start=1&_sort=desc', (r) => strapiList('alexandrias', r));
    expect(pdfs.length).toBeGreaterThan(0);
    expect(pdfs.every((item: { type: string }) => item.type === 'pdf')).toBe(true);
    const explicit = await call('/alexandrias?_where[type]=pdf&_limit=-1', (r) => strapiList('alexandrias', r));
    expect(explicit).toHaveLength(pdfs.length + 1);

    const [{ n: importCount } = { n: 0 }] = await seeded.db.select({ n: sql<number>`count(*)::int` }).from(imports);
    expect(await call('/imports/count', (r) => strapiCount('imports', r))).toBe(importCount);
    const importsPage = await call('/imports?_start=1&_limit=5&_sort=aletheias', (r) => strapiList('imports', r));
    expect(importsPage).toHaveLength(importCount - 1);
    expect(importsPage.every((item: { source: unknown; wallet: unknown }) => typeof item.source === 'string' && typeof item.wallet === 'string')).toBe(true);
    const [{ n: categoryCount } = { n: 0 }] = await seeded.db.select({ n: sql<number>`count(*)::int` }).from(categories);
    expect(await call('/categories/count', (r) => strapiCount('categories', r))).toBe(categoryCount);
    expect(await call(`/alexandrias/count?category=${ids.category[0]}`, (r) => strapiCount('alexandrias', r))).toBeGreaterThan(100);
  });

  it('refuses what it cannot answer with a real status, a Spanish message, and CORS', async () => {
    for (const [pathAndQuery, recipe, status, message] of [
      ['/departments/999999', (r: ApiRequest) => strapiOne('departments', r, '999999'), 404, /ninguna institución/],
      ['/departments/abc', (r: ApiRequest) => strapiOne('departments', r, 'abc'), 400, /id numérico/],
      ['/alexandrias?color=rojo', (r: ApiRequest) => strapiList('alexandrias', r), 400, /No se puede filtrar por "color"/],
      ['/alexandrias?type=docx', (r: ApiRequest) => strapiList('alexandrias', r), 400, /type debe ser uno de/],
      ['/alexandrias?_limit=1000000', (r: ApiRequest) => strapiList('alexandrias', r), 400, /_limit no puede pasar de 100/],
      ['/alexandrias?_limit=-2', (r: ApiRequest) => strapiList('alexandrias', r), 400, /_limit debe ser -1, 0 o un número positivo/],
      ['/alexandrias?_where[cid]=' + 'b'.repeat(201), (r: ApiRequest) => strapiList('alexandrias', r), 400, /cid admite como mucho 200/],
      ['/alexandrias?cid=' + 'b'.repeat(121), (r: ApiRequest) => strapiList('alexandrias', r), 400, /cid es demasiado largo/],
      ['/alexandrias?_sort=DROP', (r: ApiRequest) => strapiList('alexandrias', r), 400, /_sort no válido/],
      ['/imports?_start=-1', (r: ApiRequest) => strapiList('imports', r), 400, /_start no puede ser negativo/],
      ['/sources?_limit=diez', (r: ApiRequest) => strapiList('sources', r), 400, /_limit debe ser un número entero/],
      // Only decimal digits are a number: Number() would read these as 16, 10, 1 and 0.
      ['/sources?_limit=0x10', (r: ApiRequest) => strapiList('sources', r), 400, /_limit debe ser un número entero/],
      ['/imports?_start=1e1', (r: ApiRequest) => strapiList('imports', r), 400, /_start debe ser un número entero/],
      ['/imports?_start=0b1', (r: ApiRequest) => strapiList('imports', r), 400, /_start debe ser un número entero/],
      ['/sources?_limit=', (r: ApiRequest) => strapiList('sources', r), 400, /_limit debe ser un número entero/],
    ] as const) {
      const response = await rest(() => recipe(request(pathAndQuery)));
      expect(response.status, pathAndQuery).toBe(status);
      expect(response.headers.get('access-control-allow-origin'), pathAndQuery).toBe('*');
      const json = (await response.json()) as { code: number; message: string };
      expect(json.code).toBe(status);
      expect(json.message, pathAndQuery).toMatch(message);
    }
  });
});
