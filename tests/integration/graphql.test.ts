/**
 * The GraphQL API (SPEC §7 GraphQL reads) through its yoga handler, on every engine, against the
 * seeded catalogue: each read the spec lists, the Strapi names clients expect, and bad input.
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_EXAMPLES } from '../../src/lib/api-examples.ts';
import { alexandrias, categories, departments, imports, sources } from '../../src/lib/server/db/schema.ts';
import { createGraphqlHandler, MAX_DEPTH, MAX_ROOT_FIELDS } from '../../src/lib/server/graphql/index.ts';
import { largestGroups, listGroup, listRecords } from '../../src/lib/server/queries/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const ORIGIN = 'http://archivo.test';

interface GraphqlAnswer<T = Record<string, any>> {
  status: number;
  data?: T | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

describe.each(testEngines())('the GraphQL API on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const db = () => seeded.db;
  const yoga = createGraphqlHandler(async () => seeded.db);

  async function gql<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<GraphqlAnswer<T>> {
    const response = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return { status: response.status, ...((await response.json()) as object) };
  }

  /** The answer's data, failing with the errors if there were any. */
  async function data(query: string, variables?: Record<string, unknown>): Promise<Record<string, any>> {
    const answer = await gql(query, variables);
    expect(answer.errors).toBeUndefined();
    return answer.data!;
  }

  /** The one error message of a refused query. */
  async function errorOf(query: string, variables?: Record<string, unknown>): Promise<string> {
    const answer = await gql(query, variables);
    expect(answer.errors).toHaveLength(1);
    const [error] = answer.errors!;
    // Nothing of the server's internals: no stack, no SQL, no original error.
    expect(JSON.stringify(error)).not.toMatch(/stack|select |postgres|pglite|originalError|at .*\.ts/i);
    return error!.message;
  }

  const idsOf = (rows: Array<{ id: string }>) => rows.map((row) => Number(row.id));

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  it('lists the 5 categories with the most records, with their counts and records', async () => {
    const { categories: top } = await data(`{
      categories(limit: 5, sort: "alexandrias:desc") {
        id _id title description icon { id name url } updatedAt
        alexandriasCount counts { pdf csv xlsx ods other }
        alexandrias { cid type }
      }
    }`);
    const expected = await largestGroups(db(), 'cat', 5);
    expect(top.map((category: any) => [category.title, category.alexandriasCount])).toEqual(expected.map((item) => [item.name, item.records]));
    expect(top[0].title).toBe('Gestión Pública');
    for (const category of top) {
      expect(category._id).toBe(category.id);
      expect(Object.values(category.counts).reduce((a: number, b) => a + (b as number), 0)).toBe(category.alexandriasCount);
      // Without a limit, a nested list holds up to 100 records: the original counts a group's records by it (issue #22).
      expect(category.alexandrias).toHaveLength(Math.min(100, category.alexandriasCount));
      expect(new Date(category.updatedAt).toISOString()).toBe(category.updatedAt);
    }
  });

  it('answers categoriesConnection grouped by id, with values and aggregate', async () => {
    const total = await db().$count(categories);
    const { categoriesConnection } = await data(`{
      categoriesConnection {
        values { id title }
        aggregate { count totalCount }
        groupBy { id { key connection { aggregate { count totalCount } } } }
      }
    }`);
    expect(categoriesConnection.aggregate).toEqual({ count: total, totalCount: total });
    expect(categoriesConnection.values).toHaveLength(total);
    expect(categoriesConnection.groupBy.id.map((group: any) => group.key).sort()).toEqual(
      categoriesConnection.values.map((value: any) => value.id).sort(),
    );
    expect(categoriesConnection.groupBy.id[0].connection.aggregate).toEqual({ count: 1, totalCount: total });

    const filtered = await data(`{ categoriesConnection(where: { title_contains: "educacion" }) { aggregate { count totalCount } values { title } } }`);
    expect(filtered.categoriesConnection).toEqual({ aggregate: { count: 1, totalCount: total }, values: [{ title: 'Educación' }] });
  });

  it('counts records by type within a category, department or source, and under review', async () => {
    const [health] = await db().select().from(categories).where(eq(categories.title, 'Salud'));
    const byType = async (condition: ReturnType<typeof eq>) =>
      Object.fromEntries(
        (
          await db()
            .select({ type: alexandrias.type, n: sql<number>`count(*)::int` })
            .from(alexandrias)
            .where(condition)
            .groupBy(alexandrias.type)
        ).map((row) => [row.type, row.n]),
      );
    const query = `query Counts($where: JSON) {
      alexandriasConnection(where: $where) {
        aggregate { count totalCount }
        groupBy { type { key connection { aggregate { count totalCount } } } }
      }
    }`;
    const counted = (connection: any) =>
      Object.fromEntries(connection.groupBy.type.map((group: any) => [group.key, group.connection.aggregate.count]));

    const inHealth = (await data(query, { where: { category: health!.id } })).alexandriasConnection;
    expect(counted(inHealth)).toEqual(await byType(eq(alexandrias.categoryId, health!.id)));
    expect(inHealth.aggregate.count).toBe(await db().$count(alexandrias, eq(alexandrias.categoryId, health!.id)));
    expect(inHealth.aggregate.totalCount).toBe(seeded.report.records);
    expect(inHealth.groupBy.type[0].connection.aggregate.totalCount).toBe(seeded.report.records);

    const underReview = (await data(query, { where: { category: String(health!.id), status: 'under_review' } })).alexandriasConnection;
    expect(counted(underReview)).toEqual(await byType(and(eq(alexandrias.categoryId, health!.id), eq(alexandrias.status, 'under_review'))!));

    const [one] = await db().select().from(departments).where(eq(departments.acronym, 'ONE'));
    const inOne = (await data(query, { where: { department: { id: one!.id } } })).alexandriasConnection;
    expect(counted(inOne)).toEqual(await byType(eq(alexandrias.departmentId, one!.id)));

    const [portal] = await db().select().from(sources).where(eq(sources.name, 'Portal de Datos Abiertos de la República Dominicana'));
    const inPortal = (await data(query, { where: { source: portal!.id } })).alexandriasConnection;
    expect(inPortal.aggregate.count).toBe(1065);
    expect(counted(inPortal)).toEqual(await byType(eq(alexandrias.sourceId, portal!.id)));

    // The same counts when the filter needs the records themselves (a title), not the running counts.
    const titled = (await data(query, { where: { category: health!.id, title_contains: 'a' } })).alexandriasConnection;
    const titledExpected = await db().$count(alexandrias, and(eq(alexandrias.categoryId, health!.id), sql`archivo_unaccent(lower(${alexandrias.title})) like '%a%'`));
    expect(titled.aggregate.count).toBe(titledExpected);
    expect(titled.groupBy.type.reduce((sum: number, group: any) => sum + group.connection.aggregate.count, 0)).toBe(titledExpected);

    // Grouped by status and by category, and a group's own values.
    const grouped = await data(`{
      alexandriasConnection(limit: 2, sort: "id:asc") {
        groupBy {
          status { key connection { aggregate { count } values { id status } } }
          category { key connection { aggregate { count } } }
        }
      }
    }`);
    const statuses = grouped.alexandriasConnection.groupBy.status;
    expect(statuses.map((group: any) => [group.key, group.connection.aggregate.count])).toEqual([
      ['under_review', 1065],
      ['on_line', 11],
    ]);
    for (const group of statuses) {
      expect(group.connection.values).toHaveLength(2);
      expect(group.connection.values.every((value: any) => value.status === group.key)).toBe(true);
    }
    const byCategory = grouped.alexandriasConnection.groupBy.category;
    expect(byCategory.find((group: any) => Number(group.key) === health!.id).connection.aggregate.count).toBe(inHealth.aggregate.count);
  });

  it('ranks contributors with groupBy wallet_address', async () => {
    const query = `{ alexandriasConnection { groupBy { wallet_address { key connection { aggregate { count } } } } } }`;
    expect((await data(query)).alexandriasConnection.groupBy.wallet_address).toEqual([]);
    const wallet = '0xabc0000000000000000000000000000000000001';
    const other = '0xabc0000000000000000000000000000000000002';
    const ids = (await db().select({ id: alexandrias.id }).from(alexandrias).orderBy(alexandrias.id).limit(3)).map((row) => row.id);
    try {
      await db().update(alexandrias).set({ walletAddress: wallet }).where(sql`${alexandrias.id} in (${ids[0]}, ${ids[1]})`);
      await db().update(alexandrias).set({ walletAddress: other }).where(eq(alexandrias.id, ids[2]!));
      const ranking = (await data(query)).alexandriasConnection.groupBy.wallet_address;
      expect(ranking).toEqual([
        { key: wallet, connection: { aggregate: { count: 2 } } },
        { key: other, connection: { aggregate: { count: 1 } } },
      ]);
      const mine = await data(`{ alexandrias(where: { wallet_address: "${wallet.toUpperCase().replace('0X', '0x')}" }, sort: "createdAt:desc", limit: 5) { id wallet_address } }`);
      expect(idsOf(mine.alexandrias).sort()).toEqual([ids[0], ids[1]].sort());

      // The 'Achievements' ranking counts published records only (issue #8).
      const before = await db().select({ id: alexandrias.id, status: alexandrias.status }).from(alexandrias).where(sql`${alexandrias.id} in (${ids[0]}, ${ids[1]}, ${ids[2]})`);
      try {
        await db().update(alexandrias).set({ status: 'on_line' }).where(sql`${alexandrias.id} in (${ids[0]}, ${ids[2]})`);
        await db().update(alexandrias).set({ status: 'under_review' }).where(eq(alexandrias.id, ids[1]!));
        const published = `{ alexandriasConnection(where: { status: "on_line" }) { groupBy { wallet_address { key connection { aggregate { count } } } } } }`;
        expect((await data(published)).alexandriasConnection.groupBy.wallet_address).toEqual([
          { key: wallet, connection: { aggregate: { count: 1 } } },
          { key: other, connection: { aggregate: { count: 1 } } },
        ]);
      } finally {
        for (const row of before) await db().update(alexandrias).set({ status: row.status }).where(eq(alexandrias.id, row.id));
      }
    } finally {
      await db().update(alexandrias).set({ walletAddress: null }).where(isNotNull(alexandrias.walletAddress));
    }
  });

  it('lists the latest imports, and groups them by type', async () => {
    const { imports: latest, importsConnection } = await data(`{
      imports(limit: 5, sort: "updatedAt:desc") {
        id _id updatedAt source sourceGroup { id name } documents wallet status type
        alexandrias { id cid type }
      }
      importsConnection { aggregate { count totalCount } groupBy { type { key connection { aggregate { count } } } } }
    }`);
    expect(latest).toHaveLength(await db().$count(imports));
    const updated = latest.map((row: any) => row.updatedAt);
    expect(updated).toEqual([...updated].sort().reverse());
    const harvest = latest.find((row: any) => row.type === 'harvest');
    // `source` is the source's name, a plain value as the original read it; the group is `sourceGroup`.
    const portal = 'Portal de Datos Abiertos de la República Dominicana';
    expect(harvest).toMatchObject({ documents: 1065, status: 'done', source: portal, sourceGroup: { name: portal }, wallet: '' });
    expect(harvest.alexandrias).toHaveLength(100);
    const bulk = latest.find((row: any) => row.type === 'bulk');
    expect(bulk.alexandrias.some((record: any) => /^baf[ky]/.test(record.cid))).toBe(true);
    expect(importsConnection.aggregate).toEqual({ count: latest.length, totalCount: latest.length });
    expect(importsConnection.groupBy.type.map((group: any) => group.key).sort()).toEqual(['bulk', 'harvest']);
  });

  it('lists sources, departments and categories 10 at a time, newest first, with records and counts', async () => {
    const { sources: srcList, departments: depList, categories: catList } = await data(`{
      sources(limit: 10, sort: "updatedAt:desc") { id name url alexandriasCount alexandrias { cid type } }
      departments(limit: 10, sort: "updatedAt:desc") { id name desciption website alexandriasCount alexandrias { cid type } }
      categories(limit: 10, sort: "updatedAt:desc") { id title alexandriasCount alexandrias { cid type } }
    }`);
    for (const [entity, list] of [['src', srcList], ['dep', depList], ['cat', catList]] as const) {
      const page = await listGroup(db(), entity, 1);
      expect(idsOf(list)).toEqual(page.items.map((item) => item.id));
      expect(list.map((item: any) => item.alexandriasCount)).toEqual(page.items.map((item) => item.records));
      // Each item's records, fetched for the whole list at once, start with its collection's first
      // page and hold up to 100 (the original counts them: issue #22).
      for (const item of list) {
        const records = await listRecords(db(), { entity, id: Number(item.id) }, 1);
        expect(item.alexandrias.slice(0, 10)).toEqual(records.items.map((record) => ({ cid: record.cid, type: record.type })));
        expect(item.alexandrias).toHaveLength(Math.min(100, records.total));
      }
    }
    // Nested lists take their own sort, window and where.
    const nested = await data(`{ categories(limit: 3, sort: "id:asc") { id alexandrias(limit: 3, start: 1, sort: "id:asc", where: { type: "csv" }) { id type } } }`);
    for (const item of nested.categories) {
      const expected = await db()
        .select({ id: alexandrias.id })
        .from(alexandrias)
        .where(and(eq(alexandrias.categoryId, Number(item.id)), eq(alexandrias.type, 'csv')))
        .orderBy(alexandrias.id)
        .limit(3)
        .offset(1);
      expect(idsOf(item.alexandrias)).toEqual(expected.map((row) => row.id));
    }
    // The departments list pages with start, as the spec's list does.
    const second = await data(`query Page($start: Int) { departments(start: $start, limit: 10, sort: "updatedAt:desc") { id } }`, { start: 10 });
    expect(idsOf(second.departments)).toEqual((await listGroup(db(), 'dep', 2)).items.map((item) => item.id));
    const found = await data(`{ departments(where: { name_contains: "estadistica" }, limit: 5) { name } }`);
    expect(found.departments.map((department: any) => department.name)).toContain('Oficina Nacional de Estadística (ONE)');
  });

  it('shows one source, department or category with its first records, and pages them', async () => {
    const [portal] = await db().select().from(sources).where(eq(sources.name, 'Portal de Datos Abiertos de la República Dominicana'));
    const scope = { entity: 'src', id: portal!.id } as const;
    const detail = await data(
      `query Source($id: ID!) {
        source(id: $id) { id name url website description updatedAt alexandrias(limit: 10) { id cid type title } }
        alexandriasConnection(where: { source: $id }) { aggregate { count } groupBy { id { key } } }
      }`,
      { id: portal!.id },
    );
    const firstPage = await listRecords(db(), scope, 1);
    expect(detail.source).toMatchObject({ id: String(portal!.id), name: portal!.name, url: portal!.url, website: portal!.url });
    expect(idsOf(detail.source.alexandrias)).toEqual(firstPage.items.map((record) => record.id));
    expect(detail.alexandriasConnection.aggregate.count).toBe(firstPage.total);
    expect(detail.alexandriasConnection.groupBy.id).toHaveLength(firstPage.total);

    const pageQuery = `query Page($start: Int, $id: ID) {
      alexandrias(start: $start, limit: 10, where: { source: $id }) {
        id title description status cid type department { id name } aletheias { id proof { id url } }
      }
    }`;
    const second = await data(pageQuery, { start: 10, id: String(portal!.id) });
    expect(idsOf(second.alexandrias)).toEqual((await listRecords(db(), scope, 2)).items.map((record) => record.id));
    expect(second.alexandrias[0].department).toMatchObject({ id: expect.any(String), name: expect.any(String) });
    expect((await data(pageQuery, { start: 100_000, id: portal!.id })).alexandrias).toEqual([]);

    const [one] = await db().select().from(departments).where(eq(departments.acronym, 'ONE'));
    const department = (await data(`{ department(id: "${one!.id}") { id name desciption website acronym alexandrias { id } } }`)).department;
    expect(department).toMatchObject({ name: one!.name, desciption: one!.desciption, website: one!.website, acronym: 'ONE' });
    const onePage = await listRecords(db(), { entity: 'dep', id: one!.id }, 1);
    expect(idsOf(department.alexandrias).slice(0, 10)).toEqual(onePage.items.map((record) => record.id));
    expect(department.alexandrias).toHaveLength(Math.min(100, onePage.total));

    const [health] = await db().select().from(categories).where(eq(categories.title, 'Salud'));
    const category = (await data(`{ category(id: ${health!.id}) { title alexandrias(limit: 10, start: 10) { id } } }`)).category;
    expect(category.title).toBe('Salud');
    expect(idsOf(category.alexandrias)).toEqual((await listRecords(db(), { entity: 'cat', id: health!.id }, 2)).items.map((record) => record.id));

    // A nested where that asks for another group finds nothing; unknown ids are null.
    const crossed = await data(`{ category(id: ${health!.id}) { alexandrias(where: { category: ${health!.id + 1} }) { id } } }`);
    expect(crossed.category.alexandrias).toEqual([]);
    expect(await data(`{ source(id: 999999) { id } department(id: 999999) { id } category(id: 0) { id } alexandria(id: 999999) { id } }`)).toEqual({
      source: null,
      department: null,
      category: null,
      alexandria: null,
    });
  });

  it('finds a record by its CID, with the fields clients read', async () => {
    const [file] = await db().select().from(alexandrias).where(eq(alexandrias.fileName, 'sisalril-pespj-d1.pdf'));
    const { alexandrias: found } = await data(
      `query Record($cid: String) {
        alexandrias(where: { cid: $cid }) {
          id _id cid title description type status website source_url original_url api_endpoint api_enabled
          file { id url name mime size } proof { id url } aletheias { id proof { id url } }
          category { id title description icon { url } alexandriasCount }
          department { id name desciption website acronym }
          source { id name url description }
          wallet_address deals { dealId storageProvider } createdAt updatedAt
        }
      }`,
      { cid: file!.cid },
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      id: String(file!.id),
      _id: String(file!.id),
      cid: file!.cid,
      type: 'pdf',
      status: 'on_line',
      file: { id: file!.cid, url: `${ORIGIN}/ipfs/${file!.cid}`, name: 'sisalril-pespj-d1.pdf', mime: 'application/pdf' },
      category: { title: 'Salud' },
      department: { acronym: 'SISALRIL' },
      source: { url: 'https://sisalril.gob.do' },
      aletheias: [],
      deals: [],
    });
    expect(found[0].category.alexandriasCount).toBeGreaterThan(0);
    const single = await data(`{ alexandria(id: ${file!.id}) { cid department { desciption } } }`);
    expect(single.alexandria.cid).toBe(file!.cid);
    expect((await data(`{ alexandrias(where: { cid: "bafkreinotarealcid" }) { id } }`)).alexandrias).toEqual([]);
  });

  it('filters titles ignoring case and accents', async () => {
    const { alexandrias: found } = await data(`{ alexandrias(where: { title_contains: "EDUCACION" }, limit: 100, sort: "title:asc") { title } }`);
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((record: any) => record.title.includes('Educación') || record.title.includes('educación'))).toBe(true);
    const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    expect(found.every((record: any) => fold(record.title).includes('educacion'))).toBe(true);
  });

  it('answers every example /docs shows', async () => {
    for (const example of GRAPHQL_EXAMPLES) {
      const answer = await gql(example.query);
      expect(answer.errors, example.title).toBeUndefined();
      expect(Object.keys(answer.data ?? {}).length, example.title).toBeGreaterThan(0);
      // An example shows something: no list in its answer comes back empty.
      const lists: unknown[][] = [];
      const walk = (value: unknown): void => {
        if (Array.isArray(value)) lists.push(value);
        if (value && typeof value === 'object') Object.values(value).forEach(walk);
      };
      walk(answer.data);
      expect(lists.filter((list) => list.length === 0), example.title).toEqual([]);
    }
  });

  it('refuses bad queries with a clear GraphQL error and no internals', async () => {
    expect(await errorOf(`{ categories(limit: 5 { id } }`)).toMatch(/^Error de sintaxis en la consulta/);
    expect(await errorOf(`{ categories { id colour } }`)).toMatch(/^El tipo «Category» no tiene el campo «colour»\./);

    let deep = 'id';
    for (let level = 0; level < 5; level += 1) deep = `alexandrias(limit: 1) { category { ${deep} } }`;
    expect(await errorOf(`{ ${deep} }`)).toBe(
      `La consulta anida ${MAX_DEPTH + 1} niveles de campos y el máximo es ${MAX_DEPTH}. Divídala en consultas menos profundas.`,
    );
    // Priced by what the archive holds: every record's category repeats, each with 100 records.
    expect(await errorOf(`{ alexandrias(limit: 100) { id category { alexandrias(limit: 100) { id } } } }`)).toMatch(
      /^La consulta es demasiado costosa: 10,220 puntos, y el máximo es 5,000\./,
    );
    // Aliases do not get around the cost, and there are only so many of them at the root.
    const aliased = (count: number) => Array.from({ length: count }, (_, n) => `a${n}: alexandrias(limit: 100, where: { title_contains: "a" }) { id }`).join(' ');
    expect(await errorOf(`{ ${aliased(20)} }`)).toMatch(/^La consulta es demasiado costosa: 7,200 puntos/);
    expect(await errorOf(`{ ${aliased(60)} }`)).toBe(
      `La consulta pide 60 campos en su primer nivel (alias incluidos) y el máximo es ${MAX_ROOT_FIELDS}. Divídala en varias consultas.`,
    );
    // A limit given by a variable is reckoned at the most it could be.
    expect(await errorOf(`query($n: Int) { alexandrias(limit: $n) { category { alexandrias(limit: $n) { id } } } }`, { n: 1 })).toMatch(/demasiado costosa/);
    expect(await data(`query($n: Int = 5) { categories(limit: $n) { alexandrias(limit: $n) { id } } }`)).toBeTruthy();

    const limit = await gql(`{ alexandrias(limit: 101) { id } }`);
    expect(limit.errors?.[0]?.message).toBe('limit debe estar entre 0 y 100 (se pidió 101); para ver más filas, pida la página siguiente con start.');
    expect(limit.data).toBeNull();
    expect(await errorOf(`{ alexandrias(limit: -1) { id } }`)).toMatch(/^limit debe estar entre 0 y 100/);
    expect(await errorOf(`{ alexandrias(start: -10) { id } }`)).toBe('start no puede ser negativo (se pidió -10).');
    expect(await errorOf(`{ alexandrias(where: { colour: "red" }) { id } }`)).toMatch(/^where no admite "colour"\. Campos admitidos: id, _id, cid/);
    expect(await errorOf(`{ alexandrias(where: { type: "docx" }) { id } }`)).toMatch(/^where\.type debe ser uno de: pdf, csv, xls, xlsx, ods, other/);
    expect(await errorOf(`{ alexandrias(where: { category: "salud" }) { id } }`)).toMatch(/^where\.category debe ser un id numérico/);
    expect(await errorOf(`{ alexandrias(where: "type=csv") { id } }`)).toMatch(/^where debe ser un objeto/);
    expect(await errorOf(`{ alexandrias(sort: "colour:desc") { id } }`)).toMatch(/^sort no válido: "colour:desc"\. Use "campo:asc" o "campo:desc", con campo uno de: createdAt, updatedAt, title, id\.$/);
    expect(await errorOf(`{ source(id: "uno") { id } }`)).toMatch(/^id debe ser un id numérico/);
    // More groups than the cost rule reckons with, each asking for its own rows: refused.
    expect(await errorOf(`{ alexandriasConnection(limit: 1) { groupBy { id { connection { values { id } } } } } }`)).toBe(
      `groupBy.id da ${seeded.report.records} grupos, y values o groupBy dentro de cada grupo solo se admiten hasta 100. Pida solo key y aggregate, o acote la conexión con where.`,
    );
    expect(await errorOf(`mutation { deleteAlexandria { id } }`)).toBe('Esta API solo responde consultas (query): no admite operaciones «mutation».');
    // A variable is the client's JSON, of any depth: too deep is refused in Spanish, never a 500.
    // (Written by hand: JSON.stringify itself runs out of stack on it.)
    const deepBody = `{"query":"query($w: JSON) { alexandrias(where: $w, limit: 1) { id } }","variables":{"w":{"title_contains":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`;
    const nested = await yoga.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: deepBody }));
    const { errors } = (await nested.json()) as { errors: Array<{ message: string; extensions?: { code?: string } }> };
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^La variable «\$w» tiene un valor no válido, .*: El JSON anida más de 64 niveles de listas u objetos, que no se admiten\.$/);
    expect(errors[0]!.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
    // What a message quotes back of the client's value is cut short.
    expect(await errorOf(`query($w: JSON) { alexandrias(where: $w, limit: 1) { id } }`, { w: { title_contains: ['x'.repeat(300)] } })).toMatch(
      /^where\.title_contains debe ser un texto \(se recibió \["x{70,80}…\)\.$/,
    );
  });

  it('masks unexpected errors', async () => {
    const broken = createGraphqlHandler(() => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:5432 password=hunter2')), { logging: false });
    const response = await broken.fetch(
      new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ categories { id } }' }) }),
    );
    const body = JSON.stringify(await response.json());
    expect(body).toContain('Error interno del archivo');
    expect(body).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|hunter2|stack/);
  });

  it('answers introspection, GET and POST over HTTP, from any origin', async () => {
    const introspection = await gql(getIntrospectionQuery());
    expect(introspection.errors).toBeUndefined();
    const types = (introspection.data as any).__schema.types.map((type: any) => type.name);
    expect(types).toEqual(expect.arrayContaining(['Alexandria', 'AlexandriaConnectionWallet_address', 'CategoryConnectionId', 'Import']));

    const get = await yoga.fetch(
      new Request(`${ORIGIN}/graphql?query=${encodeURIComponent('{categories(limit:1){title}}')}`, {
        headers: { Accept: 'application/json', Origin: 'https://otro.example' },
      }),
    );
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/json/);
    // Any origin is allowed (echoed, as yoga does for '*'), never with credentials.
    expect(get.headers.get('access-control-allow-origin')).toBe('https://otro.example');
    expect(get.headers.get('access-control-allow-credentials')).not.toBe('true');
    expect(((await get.json()) as any).data.categories).toHaveLength(1);

    const post = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: 'https://otro.example' },
        body: JSON.stringify({ query: 'query($n: Int) { sources(limit: $n) { name } }', variables: { n: 2 } }),
      }),
    );
    expect(post.status).toBe(200);
    expect(((await post.json()) as any).data.sources).toHaveLength(2);

    const preflight = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://otro.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      }),
    );
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://otro.example');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it("answers graphql-js's and yoga's own errors in Spanish, with their HTTP status", async () => {
    expect(await errorOf('{ categories { titl } }')).toBe('El tipo «Category» no tiene el campo «titl». ¿Quiso decir «title»?');
    expect(await errorOf('{')).toBe('Error de sintaxis en la consulta: se esperaba un nombre y llegó el final de la consulta.');
    const notJson = await yoga.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: 'no es json' }));
    expect(notJson.status).toBe(400);
    const answer = (await notJson.json()) as { errors: Array<{ message: string; extensions?: Record<string, unknown> }> };
    expect(answer.errors[0]!.message).toBe('El cuerpo de la petición no es JSON válido.');
    // Nothing in English, the parser's own words included.
    expect(JSON.stringify(answer)).not.toMatch(/Unexpected|not valid JSON/);
    // Bodies that are JSON but not a GraphQL request: each refused in Spanish, none in yoga's English.
    for (const body of ['{}', '{"variables":{}}', '"x"', 'null', '42', '{"query":["{ categories { id } }"]}', '{"query":"{ categories { id } }","variables":"a"}', '{"query":"{ categories { id } }","extensions":5}', '{"query":"{ categories { id } }","foo":1}']) {
      const refused = await yoga.fetch(new Request(`${ORIGIN}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body }));
      expect(refused.status, body).toBe(400);
      const { errors } = (await refused.json()) as { errors: Array<{ message: string }> };
      expect(errors, body).toHaveLength(1);
      expect(errors[0]!.message, body).toMatch(/^(El|La|Falta) /);
      expect(errors[0]!.message, body).not.toMatch(/expected|received|given|Unexpected/i);
    }
    // `npm start` lets PATCH through (a harvest source's settings): yoga refuses it, in Spanish.
    const patched = await yoga.fetch(new Request(`${ORIGIN}/graphql`, { method: 'PATCH', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: '{"query":"{ categories { id } }"}' }));
    expect(patched.status).toBe(405);
    expect(((await patched.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe('GraphQL solo admite peticiones GET y POST.');
  });
});
