/**
 * The orders and the filter of the group lists and of a collection's records (issue #20), checked
 * on the seeded catalogue against an order computed here, in JavaScript, from the rows themselves.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupEntity } from '../../src/lib/domain/groups.ts';
import { alexandrias, departments, sources } from '../../src/lib/server/db/schema.ts';
import { findGroups, findRecords, MAX_LIMIT } from '../../src/lib/server/queries/find.ts';
import { readingOrder } from '../../src/lib/server/queries/groups.ts';
import { listGroup, listRecords, loadCollection, loadGroup } from '../../src/lib/server/queries/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

/** Case and accents aside, as a reader compares names. */
const fold = (text: string) => text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
/** What A–Z is about: the letters and digits of a name (punctuation such as “quotes” left aside), «ñ» after «n». */
const letters = (text: string) => fold(text.replaceAll(/ñ/giu, 'n{')).replace(/[^a-z0-9 {]/g, '');

/** Each name comes at or after the one before it, A–Z. */
function expectAlphabetical(names: string[]) {
  for (let index = 1; index < names.length; index += 1) {
    const [before, after] = [letters(names[index - 1]!), letters(names[index]!)];
    expect(before <= after, `«${names[index - 1]}» before «${names[index]}»`).toBe(true);
  }
}

describe.each(testEngines())('list orders and filters on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const db = () => seeded.db;
  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  /** Every page of a list, in order. */
  async function everyPage(entity: GroupEntity, view: Parameters<typeof listGroup>[3]) {
    const first = await listGroup(db(), entity, 1, view);
    const items = [...first.items];
    for (let page = 2; page <= first.pages; page += 1) items.push(...(await listGroup(db(), entity, page, view)).items);
    return { items, total: first.total };
  }

  it('lists the institutions A–Z, accents and case aside, each once over all the pages', async () => {
    const { items, total } = await everyPage('dep', { order: 'az' });
    expect(items).toHaveLength(total);
    expect(total).toBeGreaterThan(100);
    expect(new Set(items.map((item) => item.id)).size).toBe(total);
    expectAlphabetical(items.map((item) => item.name));
    // Accents and case aside: "Ó" is an "o", between "n" and "p".
    const initials = items.map((item) => letters(item.name)[0]);
    expect(initials[0]! < initials.at(-1)!).toBe(true);
    // The default order lists the same institutions.
    const recent = await everyPage('dep', {});
    expect(new Set(recent.items.map((item) => item.id))).toEqual(new Set(items.map((item) => item.id)));
  });

  it('lists the institutions with most records first, counted from the records themselves', async () => {
    const { items } = await everyPage('dep', { order: 'registros' });
    const counts = await db()
      .select({ id: alexandrias.departmentId, n: sql<number>`count(*)::int` })
      .from(alexandrias)
      .groupBy(alexandrias.departmentId);
    const recordsOf = new Map(counts.map((row) => [row.id, row.n]));
    expect(items.map((item) => item.records)).toEqual(items.map((item) => recordsOf.get(item.id) ?? 0));
    const expected = items.map((item) => item.records).sort((a, b) => b - a);
    expect(items.map((item) => item.records)).toEqual(expected);
    // Within the same number of records, A–Z.
    for (const count of new Set(expected)) expectAlphabetical(items.filter((item) => item.records === count).map((item) => item.name));
    expect(items[0]!.records).toBeGreaterThan(items.at(-1)!.records);
  });

  it('filters by name without accents or case, and a department by its acronym', async () => {
    const all = await db().select({ id: departments.id, name: departments.name, acronym: departments.acronym }).from(departments);
    const visible = new Set((await everyPage('dep', {})).items.map((item) => item.id));
    const matching = (text: string) =>
      all.filter((row) => visible.has(row.id) && (fold(row.name).includes(fold(text)) || fold(row.acronym ?? '').includes(fold(text))));

    const education = await everyPage('dep', { q: 'EDUCACION', order: 'az' });
    expect(education.total).toBe(matching('educación').length);
    expect(education.total).toBeGreaterThan(0);
    expect(new Set(education.items.map((item) => item.id))).toEqual(new Set(matching('educación').map((row) => row.id)));
    expectAlphabetical(education.items.map((item) => item.name));

    const [one] = all.filter((row) => row.acronym === 'ONE');
    const byAcronym = await everyPage('dep', { q: 'one' });
    expect(byAcronym.items.map((item) => item.id)).toContain(one!.id);
    // Named exactly what was typed, it leads the first page, whatever the order; the rest keep theirs.
    for (const order of ['recientes', 'az', 'registros'] as const) {
      const first = await listGroup(db(), 'dep', 1, { q: 'ONE', order });
      expect(first.total, order).toBeGreaterThan(10);
      expect(first.items[0]!.id, order).toBe(one!.id);
    }
    const azRest = (await everyPage('dep', { q: 'one', order: 'az' })).items.filter((item) => item.id !== one!.id);
    expectAlphabetical(azRest.map((item) => item.name));

    // `%` and `_` are letters here, not patterns: nothing is named with them.
    expect((await listGroup(db(), 'dep', 1, { q: '%' })).total).toBe(0);
    expect((await listGroup(db(), 'src', 1, { q: '_' })).total).toBe(0);
    const none = await loadGroup(db(), 'cat', 1, { q: 'no existe ninguna categoría así' });
    expect(none).toMatchObject({ items: [], total: 0, pages: 1 });
  });

  it("orders a collection's records A–Z and filters them by title, the last page too", async () => {
    const [portal] = await db().select({ id: sources.id }).from(sources).where(eq(sources.name, 'Portal de Datos Abiertos de la República Dominicana'));
    const rows = await db()
      .select({ id: alexandrias.id, name: alexandrias.title })
      .from(alexandrias)
      .where(eq(alexandrias.sourceId, portal!.id));
    const scope = { entity: 'src' as const, id: portal!.id };

    const first = await listRecords(db(), scope, 1, undefined, { order: 'az' });
    expect(first.total).toBe(rows.length);
    // Every page, the last ones read from the other end of the order: each record once, A–Z.
    const pages = [first];
    for (let page = 2; page <= first.pages; page += 1) pages.push(await listRecords(db(), scope, page, undefined, { order: 'az' }));
    const titles = pages.flatMap((page) => page.items);
    expect(new Set(titles.map((item) => item.id))).toEqual(new Set(rows.map((row) => row.id)));
    expectAlphabetical(titles.map((item) => item.title));

    const budget = rows.filter((row) => fold(row.name).includes('presupuesto'));
    expect(budget.length).toBeGreaterThan(10);
    const collection = await loadCollection(db(), 'src', portal!.id, 2, { q: 'PRESUPUESTO', order: 'az' });
    expect(collection?.records.total).toBe(budget.length);
    const budgetPages = [await listRecords(db(), scope, 1, undefined, { q: 'presupuesto', order: 'az' }), collection!.records];
    const budgetTitles = budgetPages.flatMap((page) => page.items.map((item) => item.title));
    expect(budgetTitles).toHaveLength(Math.min(20, budget.length));
    expect(budgetTitles.every((title) => fold(title).includes('presupuesto'))).toBe(true);
    expectAlphabetical(budgetTitles);
    // The default order is still the most recently updated first.
    const recent = await listRecords(db(), scope, 1, undefined, { q: 'presupuesto' });
    const times = recent.items.map((item) => item.updatedAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('reads «ñ» as a letter after «n», as Spanish does: Anuario, Año, Azúcar', async () => {
    const rows = (await db().execute(sql`
      select t from (values ('Año de nacimiento'), ('Anuario estadístico'), ('Azúcar'), ('ANZUELOS'), ('Ano'), ('Ñame'), ('Nube'), ('Oro')) as v(t)
      order by ${readingOrder(sql.raw('t'))}`)) as unknown as { rows: Array<{ t: string }> };
    expect(rows.rows.map((row) => row.t)).toEqual(['Ano', 'Anuario estadístico', 'ANZUELOS', 'Año de nacimiento', 'Azúcar', 'Nube', 'Ñame', 'Oro']);
  });

  it('sorts titles and names in the API as the pages read them A–Z, on either engine', async () => {
    // Every record by title, both ways, page by page as a client walks them.
    async function allTitles(direction: 'asc' | 'desc') {
      const titles: string[] = [];
      for (let start = 0; ; start += MAX_LIMIT) {
        const page = await findRecords(db(), {}, { limit: MAX_LIMIT, start, sort: { field: 'title', direction } });
        titles.push(...page.map((record) => record.title));
        if (page.length < MAX_LIMIT) return titles;
      }
    }
    const ascending = await allTitles('asc');
    expect(ascending.length).toBeGreaterThan(1000);
    expectAlphabetical(ascending);
    expectAlphabetical((await allTitles('desc')).reverse());
    // A title that opens with an accent ("Índice…") is read among its letter, not after "Z".
    const accented = ascending.findIndex((title) => /^[ÁÉÍÓÚ]/.test(title));
    expect(accented, 'the seeded catalogue has a title that opens with an accent').toBeGreaterThan(-1);
    expect(accented).toBeLessThan(ascending.length - 1);
    expect(letters(ascending[accented + 1]!)[0]! >= letters(ascending[accented]!)[0]!).toBe(true);

    const names = (await findGroups(db(), 'dep', {}, { limit: MAX_LIMIT, start: 0, sort: { field: 'name', direction: 'asc' } })).map((item) => item.name);
    expect(names.length).toBeGreaterThan(50);
    expectAlphabetical(names);
    // Ranked by size either way, ties in the same reading order: the smallest first (read from the
    // groups), and the largest first (from the running counts, as the dashboard's tabs).
    for (const direction of ['asc', 'desc'] as const) {
      const ranked = await findGroups(db(), 'dep', {}, { limit: MAX_LIMIT, start: 0, sort: { field: 'records', direction } });
      expect(ranked.length, direction).toBe(MAX_LIMIT);
      let ties = 0;
      for (let index = 1; index < ranked.length; index += 1) {
        const [before, after] = [ranked[index - 1]!, ranked[index]!];
        if (before.records !== after.records) continue;
        ties += 1;
        expect(letters(before.name) <= letters(after.name), `${direction}: «${before.name}» before «${after.name}»`).toBe(true);
      }
      expect(ties, direction).toBeGreaterThan(10);
    }
  });
});
