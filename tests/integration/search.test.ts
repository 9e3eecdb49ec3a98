/**
 * Search quality on the real seeded catalogue (issue #7): accents, stemming, typos, acronyms,
 * records found through their institution, source or category, title matches first, and totals,
 * pages and facets that agree with each other.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { alexandrias, categories, departments } from '../../src/lib/server/db/schema.ts';
import { t } from '../../src/lib/i18n/index.ts';
import { correctQuery, searchArchive, searchRecords } from '../../src/lib/server/queries/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

describe.each(testEngines())('search on %s', (engine: Engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const db = () => seeded.db;
  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  }, 120_000);
  afterAll(() => seeded?.destroy());

  /** Every record a query finds, as a set of ids, whatever its tier. */
  const found = async (query: string) => {
    const first = await searchArchive(db(), query, { pageSize: 100 });
    const ids = new Set(first.items.map((record) => record.id));
    for (let page = 2; page <= first.pages; page += 1) for (const record of (await searchArchive(db(), query, { pageSize: 100, page })).items) ids.add(record.id);
    return ids;
  };

  it('folds accents: "educacion" finds "Educación"', async () => {
    const results = await searchArchive(db(), 'educacion');
    expect(results.total).toBeGreaterThan(0);
    expect(folded(results.items[0]!.title)).toContain('educacion');
  });

  it('stems Spanish words: "presupuestos" finds "Presupuesto"', async () => {
    const results = await searchArchive(db(), 'presupuestos');
    expect(results.items.some((record) => /presupuesto\b/i.test(record.title))).toBe(true);
  });

  it('finds the same records for a singular and its plural, accented or not: «exportación», «exportaciones»', async () => {
    for (const spellings of [
      ['exportación', 'exportaciones', 'exportacion', 'EXPORTACIONES'],
      ['institución', 'instituciones', 'institucion'],
      ['recaudación', 'recaudaciones'],
      ['afiliación', 'afiliaciones'],
    ]) {
      const [first, ...others] = await Promise.all(spellings.map(found));
      expect(first!.size, spellings[0]).toBeGreaterThan(0);
      for (const [index, other] of others.entries()) expect([...other!].sort(), `${spellings[index + 1]} as ${spellings[0]}`).toEqual([...first!].sort());
    }
    // The singular finds the plural titles, and the plural the singular ones.
    const titles = async (query: string) => (await searchArchive(db(), query, { pageSize: 100 })).items.map((record) => folded(record.title));
    expect((await titles('exportación')).some((title) => title.includes('exportaciones'))).toBe(true);
    expect((await titles('educaciones')).some((title) => title.includes('educacion'))).toBe(true);
  });

  it('finds a short word and its plural alike, which the stemmer files apart: «año» and «años», «obra» and «obras», «luz» and «luces»', async () => {
    // The catalogue's own titles: «... por Año y Sexo», «... de 18 años ...», «... de Obras ...», «... Luces ...», «... uso ...».
    for (const [one, other] of [
      ['año', 'años'],
      ['obra', 'obras'],
      ['luz', 'luces'],
      ['uso', 'usos'],
    ] as const) {
      const [ones, others] = await Promise.all([found(one), found(other)]);
      expect(ones.size, one).toBeGreaterThan(0);
      expect([...others].sort(), `${other} as ${one}`).toEqual([...ones].sort());
    }
    const titles = async (query: string) => (await searchArchive(db(), query, { pageSize: 100 })).items.map((record) => folded(record.title));
    expect((await titles('años')).some((title) => /(^|[^a-z])ano([^a-z]|$)/.test(title))).toBe(true);
    // The widened query itself: either number; never a form of two letters («dos» is not «do», nor «mes» «me»).
    const widened = async (query: string) => {
      const result = (await db().execute(sql`select archivo_search_query(${query})::text as q`)) as unknown as { rows: Array<{ q: string }> };
      return result.rows[0]!.q;
    };
    expect(await widened('año')).toBe(`'ano' | 'anos'`);
    expect(await widened('luces')).toBe(`'luc' | 'luz'`);
    expect(await widened('dos')).toBe(`'dos'`);
    expect(await widened('mes')).toBe(`'mes'`);
    expect(await widened('meses')).toBe(`'mes'`);
    expect(await widened('presupuestos')).toBe(`'presupuest'`);
    expect(await widened('que')).toBe('');
    // Inside a phrase and after a minus, by what the query matches.
    const matches = async (query: string, text: string) => {
      const result = (await db().execute(
        sql`select to_tsvector('archivo_es', archivo_search_text(${text})) @@ archivo_search_query(${query}) as hit`,
      )) as unknown as { rows: Array<{ hit: boolean }> };
      return result.rows[0]!.hit;
    };
    expect(await matches('"obras públicas" -años', 'Obra pública de la capital')).toBe(true);
    expect(await matches('"obras públicas" -años', 'Obra pública de un año')).toBe(false);
    expect(await matches('"obras públicas"', 'Obra de salud pública')).toBe(false);
  });

  it('puts what holds the words as typed before what only shares their stem: «comunicacion» before «comunidad»', async () => {
    // The records whose own text matches, by stem: the first tier of the results.
    const direct = (await db().execute(
      sql`select id from alexandrias where search @@ websearch_to_tsquery('archivo_es', archivo_search_text(${'comunicacion'}))`,
    )) as unknown as { rows: Array<{ id: number }> };
    const ids = new Set(direct.rows.map((row) => row.id));
    const results = await searchArchive(db(), 'comunicacion', { pageSize: 100 });
    const first = results.items.slice(0, ids.size);
    expect(first.every((record) => ids.has(record.id))).toBe(true);
    // 2: the title says it; 1: the description does; 0: only the stem («comun», as «comunidad»).
    const word = /\bcomunicacion\b/;
    const says = first.map((record) => (word.test(folded(record.title)) ? 2 : word.test(folded(record.description ?? '')) ? 1 : 0));
    expect(says).toContain(1);
    expect(says).toContain(0);
    expect(says).toEqual([...says].sort((a, b) => b - a));
  });

  it('forgives a typo when nothing matches: "presupesto"', async () => {
    expect(await correctQuery(db(), 'presupesto')).toBe('presupuesto');
    const results = await searchArchive(db(), 'presupesto');
    expect(results.corrected).toBe('presupuesto');
    expect(results.items.some((record) => /presupuesto/i.test(record.title))).toBe(true);
    // A word the catalogue knows is left as it is.
    expect(await correctQuery(db(), 'presupuesto')).toBeNull();
  });

  it('learns the words of a changed title, and reads no title an update leaves as it was', async () => {
    // In a transaction taken back at the end: the other tests share this catalogue.
    const rollback = new Error('rollback');
    const outcome = await db()
      .transaction(async (tx) => {
        const known = async (word: string) =>
          ((await tx.execute(sql`select count(*)::int as n from search_words where word = ${word}`)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n === 1;
        const [record] = await tx.select({ id: alexandrias.id }).from(alexandrias).orderBy(alexandrias.id).limit(1);
        await tx.update(alexandrias).set({ title: 'Zorbatrix de prueba' }).where(eq(alexandrias.id, record!.id));
        const learned = await known('zorbatrix');
        // Taken out by hand (nothing in the archive does so), to see whether an update reads the title again.
        await tx.execute(sql`delete from search_words where word = 'zorbatrix'`);
        await tx.update(alexandrias).set({ status: 'blocked', fileName: 'otro.csv' }).where(eq(alexandrias.id, record!.id));
        const readAgainUnchanged = await known('zorbatrix');
        await tx.update(alexandrias).set({ title: 'Zorbatrix de prueba, segunda edición' }).where(eq(alexandrias.id, record!.id));
        const relearned = await known('zorbatrix');
        throw Object.assign(rollback, { seen: { learned, readAgainUnchanged, relearned } });
      })
      .catch((error: unknown) => (error === rollback ? (rollback as Error & { seen: unknown }).seen : Promise.reject(error)));
    expect(outcome).toEqual({ learned: true, readAgainUnchanged: false, relearned: true });
  });

  it('forgives two letters swapped, which share too few trigrams in a short word: "nomnia", "slaud"', async () => {
    expect(await correctQuery(db(), 'nomnia')).toBe('nomina');
    expect(await correctQuery(db(), 'slaud')).toBe('salud');
    const results = await searchArchive(db(), 'nomnia');
    expect(results.corrected).toBe('nómina');
    expect(results.total).toBeGreaterThan(0);
  });

  it('shows a corrected word with its accents, as the records found spell it: "educasion" reads "educación"', async () => {
    // The vocabulary holds words accent-folded; the visitor is shown the catalogue's own spelling.
    expect(await correctQuery(db(), 'educasion')).toBe('educacion');
    const results = await searchArchive(db(), 'educasion');
    expect(results.corrected).toBe('educación');
    expect(results.total).toBeGreaterThan(0);
  });

  it.each([
    ['MINERD', 'Ministerio de Educación'],
    ['DIGEPRES', 'Dirección General de Presupuesto'],
  ])('finds the records of an institution by its acronym: %s', async (acronym, name) => {
    const [institution] = await db().select({ id: departments.id }).from(departments).where(eq(departments.acronym, acronym));
    expect(institution).toBeDefined();
    const mine = await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.departmentId, institution!.id));
    expect(mine.length).toBeGreaterThan(0);
    const results = await searchArchive(db(), acronym, { pageSize: 100 });
    const found = new Set(results.items.map((record) => record.id));
    for (const record of mine) expect(found.has(record.id)).toBe(true);
    expect(results.items.some((record) => record.department?.name.startsWith(name))).toBe(true);
  });

  it('ranks title matches first, then description matches, then records found through their groups', async () => {
    const results = await searchArchive(db(), 'salud', { pageSize: 100 });
    const direct = new Set(
      ((await db().execute(sql`select id from alexandrias where search @@ websearch_to_tsquery('archivo_es', 'salud')`)) as unknown as { rows: Array<{ id: number }> }).rows.map((row) => row.id),
    );
    const tiers = results.items.map((record) => (folded(record.title).includes('salud') ? 0 : direct.has(record.id) ? 1 : 2));
    // Never a better tier after a worse one.
    expect(tiers).toEqual([...tiers].sort((a, b) => a - b));
    expect(new Set(tiers)).toEqual(new Set([0, 1, 2]));
  });

  it('pages through every result exactly once, and the facets add up to the total', async () => {
    const first = await searchArchive(db(), 'salud', { facets: true });
    const seen = new Set<number>();
    for (let page = 1; page <= first.pages; page += 1) {
      const results = await searchArchive(db(), 'salud', { page });
      for (const record of results.items) {
        expect(seen.has(record.id)).toBe(false);
        seen.add(record.id);
      }
    }
    expect(seen.size).toBe(first.total);
    // Every record has a format and a status (not every one has a category).
    for (const dimension of ['type', 'status'] as const) {
      expect(first.facets[dimension].reduce((sum, value) => sum + value.count, 0)).toBe(first.total);
    }
    expect(first.facets.category[0]).toMatchObject({ label: 'Salud' });
    // A facet narrows the results to exactly its count.
    const csv = first.facets.type.find((value) => value.value === 'csv')!;
    const onlyCsv = await searchArchive(db(), 'salud', { filters: { type: 'csv' }, pageSize: 100 });
    expect(onlyCsv.total).toBe(csv.count);
    expect(onlyCsv.items.every((record) => record.type === 'csv')).toBe(true);
  });

  it('lends a group its records by its name only, never by its description', async () => {
    // The seed describes «Gestión Pública» as «Presupuesto, compras, nómina…»: its 400 records
    // came up for «compras», most of them about anything else.
    const [category] = await db().select({ id: categories.id, description: categories.description }).from(categories).where(eq(categories.title, 'Gestión Pública'));
    expect(folded(category!.description ?? '')).toContain('compras');
    const results = await searchArchive(db(), 'compras', { pageSize: 500 });
    expect(results.total).toBeGreaterThan(0);
    // Every result is looked at below.
    expect(results.total).toBeLessThanOrEqual(500);
    const saysIt = new Set(
      ((await db().execute(sql`select id from alexandrias where search @@ websearch_to_tsquery('archivo_es', 'compras')`)) as unknown as { rows: Array<{ id: number }> }).rows.map((row) => row.id),
    );
    const silent = await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.categoryId, category!.id));
    const found = new Set(results.items.map((record) => record.id));
    const broughtByTheDescription = silent.filter((record) => !saysIt.has(record.id) && found.has(record.id));
    expect(broughtByTheDescription).toEqual([]);
  });

  it('finds a year inside a range, typed alone or as the range; a hyphen after a space still leaves out', async () => {
    const [record] = await db().select({ id: alexandrias.id, title: alexandrias.title }).from(alexandrias).where(eq(alexandrias.title, 'Activos Adquiridos, 2020-2026'));
    expect(record).toBeDefined();
    const finds = async (q: string) => (await searchArchive(db(), q, { pageSize: 100 })).items.some((item) => item.id === record!.id);
    // PostgreSQL's parser read «2020-2026» as 2020 and the negative number -2026.
    expect(await finds('activos adquiridos 2026')).toBe(true);
    expect(await finds('activos adquiridos 2020-2026')).toBe(true);
    expect(await finds('activos 2020/2026')).toBe(true);
    expect(await finds('activos adquiridos -2026')).toBe(false);
    // At every sign, whatever letter comes before it, on either engine.
    const split = (await db().execute(sql`select archivo_search_text(${'1-2-3, 5/3/2021, Perú-2020, COVID-19, salud -2020'}) as text`)) as unknown as { rows: Array<{ text: string }> };
    // Folded too (0032), as the stemmer reads it.
    expect(split.rows[0]!.text).toBe('1 2 3, 5 3 2021, Peru 2020, COVID 19, salud -2020');
  });

  it('finds a title pasted as written, its dash between spaces (or en dash) read as punctuation, not as a minus', async () => {
    const titles = ['Presupuesto para Pensiones, 2019 - 2023', 'Histórico Estadísticas OAI, 2019 – 2025', 'Estadísticas OAI, 2017 - 2024'];
    for (const title of titles) {
      const [record] = await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.title, title));
      expect(record, title).toBeDefined();
      const results = await searchArchive(db(), title, { pageSize: 5 });
      expect(results.items[0]?.id, title).toBe(record!.id);
      // As typed on the page, dash and all.
      expect(results.query).toBe(title);
    }
    // A minus against a word still leaves it out.
    const [range] = await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.title, 'Presupuesto para Pensiones, 2019 - 2023'));
    expect((await found('presupuesto pensiones -2023')).has(range!.id)).toBe(false);
  });

  it('reads an OR with nothing on one side, and an AND (or a NOT with nothing after it) in capitals, as no word to look for', async () => {
    const plain = await searchArchive(db(), 'presupuesto');
    expect(plain.total).toBeGreaterThan(0);
    for (const typed of ['presupuesto OR', 'or presupuesto', 'presupuesto AND', 'AND presupuesto or', 'presupuesto NOT']) {
      const results = await searchArchive(db(), typed);
      expect(results.total, typed).toBe(plain.total);
      // As typed on the page.
      expect(results.query, typed).toBe(typed);
    }
    // Between two words, OR still finds either.
    expect((await searchArchive(db(), 'presupuesto OR salud')).total).toBeGreaterThan(plain.total);
  });

  it('looks for a word typed with an asterisk as the start of words: «presu*» finds every «presupuesto», and is not corrected', async () => {
    const whole = await found('presupuesto');
    expect(whole.size).toBeGreaterThan(0);
    const prefix = await searchArchive(db(), 'presu*', { pageSize: 100 });
    expect(prefix.corrected).toBeNull();
    expect(prefix.query).toBe('presu*');
    const ids = new Set(prefix.items.map((item) => item.id));
    for (const id of whole) expect(ids.has(id)).toBe(true);
    expect(prefix.total).toBeGreaterThanOrEqual(whole.size);
    // Its plural too («presupuestos»), and beside another word.
    expect((await found('presupuestos*')).size).toBeGreaterThan(0);
    expect((await searchArchive(db(), 'presu* or salud')).total).toBeGreaterThan(prefix.total);
    // Two letters are no prefix: searched as the word they are.
    expect((await searchArchive(db(), 'pr*')).total).toBe((await searchArchive(db(), 'pr')).total);
  });

  it('cuts a query longer than the box takes at a space, not inside a word', async () => {
    const long = 'salud '.repeat(34).trim();
    expect(long.length).toBeGreaterThan(200);
    const results = await searchArchive(db(), long);
    expect(results.total).toBe((await searchArchive(db(), 'salud')).total);
    expect(results.query.endsWith('salud')).toBe(true);
  });

  it('says when a query holds only words too common to search («de la»), and not of a query that merely finds nothing', async () => {
    expect(await searchArchive(db(), 'de la')).toMatchObject({ total: 0, tooCommon: true });
    const nothing = await searchArchive(db(), 'zzqxw');
    expect(nothing.total).toBe(0);
    expect(nothing.tooCommon).toBeFalsy();
  });

  it('a query that only leaves words out finds what lacks them, not every record through its groups: «-salud»', async () => {
    const saying = (await db().select({ id: alexandrias.id }).from(alexandrias).where(sql`${alexandrias.search} @@ archivo_search_query('salud')`)).map((row) => row.id);
    expect(saying.length).toBeGreaterThan(10);
    const withoutHealth = await found('-salud');
    expect(withoutHealth.size).toBeGreaterThan(0);
    for (const id of saying) expect(withoutHealth.has(id), `registro ${id}`).toBe(false);
  });

  it('leaves out what a minus names, also when its record comes through a group or the word is in its institution\'s name: «salud -hospital»', async () => {
    const hospitals = await db()
      .select({ id: alexandrias.id })
      .from(alexandrias)
      .innerJoin(departments, eq(departments.id, alexandrias.departmentId))
      .where(sql`ts_filter(${departments.search}, '{a}') @@ archivo_search_query('hospital')`);
    const saying = (await db().select({ id: alexandrias.id }).from(alexandrias).where(sql`${alexandrias.search} @@ archivo_search_query('hospital')`)).map((row) => row.id);
    const health = await found('salud');
    const leftOut = new Set([...hospitals.map((row) => row.id), ...saying].filter((id) => health.has(id)));
    // Both ways in are in the seed's «salud»: a hospital's records (through the Salud category), and records that say «hospital».
    expect(hospitals.filter((row) => health.has(row.id)).length).toBeGreaterThan(0);
    expect(saying.filter((id) => health.has(id)).length).toBeGreaterThan(0);
    const without = await found('salud -hospital');
    expect(without).toEqual(new Set([...health].filter((id) => !leftOut.has(id))));
    // The total and the facets count what the pages list.
    const first = await searchArchive(db(), 'salud -hospital', { facets: true });
    expect(first.total).toBe(without.size);
    expect(first.facets.type.reduce((sum, value) => sum + value.count, 0)).toBe(without.size);
    // Other search engines' NOT, in capitals, is the minus.
    expect(await found('salud NOT hospital')).toEqual(without);
    // A dash inside a quoted phrase leaves nothing out: the phrase is searched as PostgreSQL reads it.
    const phrase = (await db().select({ id: alexandrias.id }).from(alexandrias).where(sql`${alexandrias.search} @@ archivo_search_query(${'"seguro -familiar"'})`)).map((row) => row.id);
    expect(phrase.length).toBeGreaterThan(0);
    const quoted = await found('"seguro -familiar"');
    for (const id of phrase) expect(quoted.has(id), `registro ${id}`).toBe(true);
    // A minus alone leaves out the institution's records as well.
    const noHospital = await found('-hospital');
    for (const { id } of hospitals) expect(noHospital.has(id), `registro ${id}`).toBe(false);
  });

  it('finds records word by word across their own text and their groups\' names: «MINERD 2023»', async () => {
    // Neither a record nor the ministry's name holds both words: this found nothing.
    const [minerd] = await db().select({ id: departments.id }).from(departments).where(eq(departments.acronym, 'MINERD'));
    const expected = ((await db().execute(
      sql`select id from alexandrias where department_id = ${minerd!.id} and search @@ websearch_to_tsquery('archivo_es', '2023')`,
    )) as unknown as { rows: Array<{ id: number }> }).rows.map((row) => Number(row.id));
    expect(expected.length).toBeGreaterThan(0);
    const results = await searchArchive(db(), 'MINERD 2023', { pageSize: 100, facets: true });
    expect(results.corrected).toBeNull();
    expect(results.items.map((record) => record.id).sort()).toEqual([...expected].sort());
    expect(results.total).toBe(expected.length);
    expect(results.facets.department).toEqual([expect.objectContaining({ value: String(minerd!.id), count: expected.length })]);
    expect(results.facets.type.reduce((sum, value) => sum + value.count, 0)).toBe(results.total);
    // A word that names no group, or a query with operators, is searched as typed.
    expect((await searchArchive(db(), '"MINERD 2023"')).total).toBe(0);
  });

  it('lends no records for a word in very many group names («nacional», in 75 institutions)', async () => {
    const [common] = ((await db().execute(sql`select word, ndoc from ts_stat('select ts_filter(search, ''{a}'') from departments') order by ndoc desc limit 1`)) as unknown as {
      rows: Array<{ word: string; ndoc: number }>;
    }).rows;
    expect(common!.ndoc).toBeGreaterThan(50);
    const q = `${common!.word} 2023`;
    const direct = ((await db().execute(sql`select count(*)::int as n from alexandrias where search @@ websearch_to_tsquery('archivo_es', ${q})`)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n;
    expect((await searchArchive(db(), q)).total).toBe(direct);
  });

  it('puts a mixed hit after every direct one, and pages through them all once', async () => {
    const q = 'salud 2024';
    const direct = new Set(
      ((await db().execute(sql`select id from alexandrias where search @@ websearch_to_tsquery('archivo_es', ${q})`)) as unknown as { rows: Array<{ id: number }> }).rows.map((row) => Number(row.id)),
    );
    const first = await searchArchive(db(), q, { pageSize: 2 });
    expect(first.total).toBeGreaterThan(direct.size);
    const seen: number[] = [];
    for (let page = 1; page <= first.pages; page += 1) seen.push(...(await searchArchive(db(), q, { page, pageSize: 2 })).items.map((record) => record.id));
    expect(new Set(seen).size).toBe(first.total);
    const tiers = seen.map((id) => (direct.has(id) ? 0 : 1));
    expect(tiers).toEqual([...tiers].sort((a, b) => a - b));
  });

  it('offers no correction that finds nothing either', async () => {
    // Each word has a neighbour in the vocabulary («drop» → «drogas», «table» → «potable»), but not one record holds them all.
    const typed = "'; drop table x;--";
    const results = await searchArchive(db(), typed);
    expect(results.total).toBe(0);
    expect(results.corrected).toBeNull();
  });

  it("finds what the search box's own example asks for", async () => {
    // «presupuesto educación 2023» found nothing: a newcomer who tried it took the archive for empty.
    const example = /^Por ejemplo: (.+)$/.exec(t('results.placeholder'))?.[1];
    expect(example).toBeDefined();
    const results = await searchArchive(db(), example!);
    expect(results.corrected).toBeNull();
    expect(results.total).toBeGreaterThan(0);
  });

  it('lists every record its filters keep when no word is given, newest first, paged, with facets that add up', async () => {
    const [department] = await db()
      .select({ id: alexandrias.departmentId, n: sql<number>`count(*)::int` })
      .from(alexandrias)
      .where(sql`${alexandrias.departmentId} is not null`)
      .groupBy(alexandrias.departmentId)
      .orderBy(sql`count(*) desc`)
      .limit(1);
    const filters = { departmentId: department!.id! };
    const first = await searchArchive(db(), '', { filters, facets: true, pageSize: 10 });
    expect(first.total).toBe(department!.n);
    expect(first.facets.department).toEqual([expect.objectContaining({ value: String(department!.id), count: department!.n })]);
    expect(first.facets.type.reduce((sum, value) => sum + value.count, 0)).toBe(first.total);
    const paged: number[] = [];
    for (let page = 1; page <= first.pages; page += 1) paged.push(...(await searchArchive(db(), '', { filters, page, pageSize: 10 })).items.map((record) => record.id));
    const newestFirst = await db()
      .select({ id: alexandrias.id })
      .from(alexandrias)
      .where(eq(alexandrias.departmentId, department!.id!))
      .orderBy(sql`${alexandrias.updatedAt} desc, ${alexandrias.id} desc`);
    expect(paged).toEqual(newestFirst.map((row) => row.id));
    // Narrowed by a format as well: exactly that facet's count.
    const csv = first.facets.type[0]!;
    const narrowed = await searchArchive(db(), '', { filters: { ...filters, type: csv.value as 'csv' }, pageSize: 100 });
    expect(narrowed.total).toBe(csv.count);
    expect(narrowed.items.every((record) => record.type === csv.value)).toBe(true);
    // No word and no filter is still nothing: there is nothing to list by.
    expect((await searchArchive(db(), '', { filters: {} })).total).toBe(0);
  });

  it('answers nothing for empty or hostile queries, never an error', async () => {
    expect((await searchArchive(db(), '   ')).total).toBe(0);
    expect(await searchRecords(db(), "'; drop table alexandrias; --")).toBeInstanceOf(Array);
    expect(await searchRecords(db(), 'salud\u0000<script>')).toBeInstanceOf(Array);
    expect((await searchArchive(db(), 'zzqxv wwkk')).total).toBe(0);
  });
});
