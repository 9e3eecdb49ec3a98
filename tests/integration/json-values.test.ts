/**
 * `insertRows` (db/json-values.ts) writes many rows as one JSON document: what it stores must be
 * exactly what drizzle's own `values()` stores for the same rows, type by type (text with quotes
 * and emoji, enums, arrays of both, dates and instants, big integers, nulls), in the order given.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows } from '../../src/lib/server/db/json-values.ts';
import { alexandrias, statusHistory } from '../../src/lib/server/db/schema.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';

type NewRecord = typeof alexandrias.$inferInsert;

const rows: NewRecord[] = [
  {
    title: 'Ejecución presupuestaria «2024» — "comillas", \\barra\\ y emoji 📊',
    description: 'Línea uno\nLínea dos, con {llaves} y [corchetes]',
    type: 'csv',
    formats: ['csv', 'xlsx', 'ods'],
    status: 'under_review',
    sourceUrl: 'https://datos.gob.do/dataset/ejecucion?x=1&y=2',
    fileSize: 9_007_199_254_740_991,
    issued: new Date('2019-03-01T04:00:00.000Z'),
    modified: new Date('2024-12-31T23:59:59.123Z'),
    keywords: ['presupuesto', 'con, coma', 'con "comillas"', 'NULL', ''],
    temporalStart: '2019-01-01',
    temporalEnd: '2019-12-31',
    contactEmail: null,
  },
  {
    title: 'Sin fechas ni palabras clave',
    description: null,
    type: 'pdf',
    formats: [],
    status: 'on_line',
    sourceUrl: null,
    fileSize: null,
    issued: null,
    modified: null,
    keywords: [],
    temporalStart: null,
    temporalEnd: null,
    contactEmail: 'datos@ejemplo.gob.do',
  },
];

describe.each(testEngines())('insertRows on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(() => database?.destroy());

  it('stores what drizzle values() stores, and answers the new ids in the order given', async () => {
    const { db } = database;
    const byDrizzle = await db.insert(alexandrias).values(rows).returning({ id: alexandrias.id });
    const answer = (await db.execute(insertRows(alexandrias, rows, ['id']))) as unknown as { rows: Array<{ id: number }> };
    const byJson = answer.rows.map((row) => Number(row.id));
    expect(byJson).toHaveLength(rows.length);
    expect(byJson[1]).toBeGreaterThan(byJson[0]!);

    const stored = await db
      .select()
      .from(alexandrias)
      .where(inArray(alexandrias.id, [...byDrizzle.map((row) => row.id), ...byJson]));
    const byId = new Map(stored.map(({ id, createdAt: _created, updatedAt: _updated, ...rest }) => [id, rest]));
    for (const [index, id] of byJson.entries()) {
      expect(byId.get(id), rows[index]!.title).toEqual(byId.get(byDrizzle[index]!.id));
      expect(byId.get(id)!.title).toBe(rows[index]!.title);
    }
  });

  it('keeps the order of fifty rows, and stores a text cut inside an emoji as a bound value would (U+FFFD)', async () => {
    const { db } = database;
    const many = Array.from({ length: 50 }, (_, n) => ({ title: `Orden ${String(n).padStart(2, '0')}`, type: 'csv' as const }));
    const answer = (await db.execute(insertRows(alexandrias, many, ['id', 'title']))) as unknown as { rows: Array<{ id: number; title: string }> };
    expect(answer.rows.map((row) => row.title)).toEqual(many.map((row) => row.title));
    const ids = answer.rows.map((row) => Number(row.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    const cut = `Ingresos ${'📊'.slice(0, 1)}`;
    expect(cut.isWellFormed()).toBe(false);
    const [byDrizzle] = await db.insert(alexandrias).values({ title: cut, type: 'pdf', keywords: [cut] }).returning({ title: alexandrias.title, keywords: alexandrias.keywords });
    const byJson = (await db.execute(insertRows(alexandrias, [{ title: cut, type: 'pdf', keywords: [cut] }], ['title', 'keywords']))) as unknown as { rows: Array<{ title: string; keywords: string[] }> };
    expect(byJson.rows[0]).toEqual(byDrizzle);
    expect(byJson.rows[0]!.title).toBe('Ingresos \uFFFD');
  });

  it('leaves the columns it is not given to their defaults, and names an unknown property', async () => {
    const { db } = database;
    const answer = (await db.execute(insertRows(alexandrias, [{ title: 'Solo título', type: 'other' }], ['id', 'status', 'createdAt']))) as unknown as {
      rows: Array<{ id: number; status: string; created_at: unknown }>;
    };
    expect(answer.rows[0]).toMatchObject({ status: 'under_review' });
    const [stored] = await db.select({ formats: alexandrias.formats, keywords: alexandrias.keywords }).from(alexandrias).where(eq(alexandrias.id, Number(answer.rows[0]!.id)));
    expect(stored).toEqual({ formats: [], keywords: [] });
    expect(answer.rows[0]!.created_at).not.toBeNull();
    const history = (await db.execute(
      insertRows(statusHistory, [{ alexandriaId: Number(answer.rows[0]!.id), fromStatus: null, toStatus: 'under_review', reason: 'Prueba' }], ['alexandriaId']),
    )) as unknown as { rows: Array<{ alexandria_id: number }> };
    expect(Number(history.rows[0]!.alexandria_id)).toBe(Number(answer.rows[0]!.id));
    const counted = (await db.execute(sql`select count(*)::int as n from status_history where reason = 'Prueba'`)) as unknown as { rows: Array<{ n: number }> };
    const n = counted.rows[0]!.n;
    expect(n).toBe(1);
    expect(() => insertRows(alexandrias, [{ title: 'x', type: 'pdf', nope: 1 } as NewRecord])).toThrow(/no tiene la columna «nope»/);
    // A key only a later row has would be lost for every row: refused instead.
    expect(() => insertRows(alexandrias, [{ title: 'x', type: 'pdf' }, { title: 'y', type: 'pdf', description: 'z' }])).toThrow(/no tienen todas las mismas columnas/);
    expect(() => insertRows(alexandrias, [])).toThrow(/No hay filas/);
  });
});
