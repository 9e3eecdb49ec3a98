import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, categories, imports } from '../../src/lib/server/db/schema.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

type Seeded = Awaited<ReturnType<typeof createSeededDatabase>>;

/**
 * The running counts, and the same counts computed from scratch: they must always agree. Wallets
 * count their published (on_line) records only: the contributor ranking (issue #8).
 */
async function bothCounts(seeded: Seeded) {
  const rows = async (query: ReturnType<typeof sql>) =>
    ((await seeded.db.execute(query)) as unknown as { rows: unknown[] }).rows;
  const kept = await rows(sql`
    select source_id, department_id, category_id, type::text, status::text, archived, n from record_counts
    order by 1, 2, 3, 4, 5, 6`);
  const fresh = await rows(sql`
    select source_id, department_id, category_id, type::text, status::text, cid is not null as archived, count(*)::int as n
    from alexandrias group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6`);
  const keptWallets = await rows(sql`select wallet_address, n from wallet_counts order by 1`);
  const freshWallets = await rows(sql`
    select wallet_address, count(*)::int as n from alexandrias
    where wallet_address is not null and status = 'on_line' group by 1 order by 1`);
  const keptImports = await rows(sql`select import_id, type::text, n from import_format_counts order by 1, 2`);
  const freshImports = await rows(sql`
    select import_id, type::text, count(*)::int as n from alexandrias where import_id is not null group by 1, 2 order by 1, 2`);
  return {
    kept: { kept, wallets: keptWallets, imports: keptImports },
    fresh: { kept: fresh, wallets: freshWallets, imports: freshImports },
  };
}

describe.each(testEngines())('the running record counts on %s', (engine) => {
  let seeded: Seeded;
  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  it('match the records after the seed', async () => {
    const { kept, fresh } = await bothCounts(seeded);
    expect(kept.kept.length).toBeGreaterThan(0);
    expect(kept.imports.length).toBeGreaterThan(0);
    expect(kept).toEqual(fresh);
  });

  it('follow inserts, updates of every counted column, and deletes', async () => {
    const { db } = seeded;
    const [health] = await db.select().from(categories).where(eq(categories.title, 'Salud'));
    const inserted = await db
      .insert(alexandrias)
      .values([
        { title: 'Prueba uno', type: 'pdf', status: 'under_review', categoryId: health!.id, walletAddress: '0xaaa' },
        { title: 'Prueba dos', type: 'pdf', status: 'under_review', walletAddress: '0xaaa' },
        { title: 'Prueba tres', type: 'ods', status: 'on_line', cid: 'bafkreitest' },
      ])
      .returning({ id: alexandrias.id });
    expect(await bothCounts(seeded).then(({ kept }) => kept)).toEqual((await bothCounts(seeded)).fresh);

    const ids = inserted.map((row) => row.id);
    await db.update(alexandrias).set({ status: 'on_line', cid: 'bafkreiotro' }).where(eq(alexandrias.id, ids[0]!));
    await db.update(alexandrias).set({ categoryId: null, departmentId: null, sourceId: null, type: 'csv' }).where(sql`${alexandrias.id} <= 20`);
    await db.update(alexandrias).set({ title: 'Solo el título cambia' }).where(eq(alexandrias.id, ids[1]!));
    await db.update(alexandrias).set({ walletAddress: '0xbbb' }).where(eq(alexandrias.id, ids[1]!));
    // Records move between imports, into one from none, and out of every import.
    const [harvest, other] = await db.select({ id: imports.id }).from(imports).orderBy(imports.id).limit(2);
    await db.update(alexandrias).set({ importId: other!.id }).where(sql`${alexandrias.id} between 21 and 30`);
    await db.update(alexandrias).set({ importId: harvest!.id }).where(eq(alexandrias.id, ids[2]!));
    await db.update(alexandrias).set({ importId: null }).where(sql`${alexandrias.id} between 31 and 35`);
    let { kept, fresh } = await bothCounts(seeded);
    expect(kept).toEqual(fresh);
    // Published, a record counts for its contributor; blocked again, it no longer does.
    expect(kept.wallets).toEqual([{ wallet_address: '0xaaa', n: 1 }]);
    await db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, ids[0]!));
    ({ kept, fresh } = await bothCounts(seeded));
    expect(kept).toEqual(fresh);
    expect(kept.wallets).toEqual([]);

    await db.delete(alexandrias).where(sql`${alexandrias.id} in (${sql.join(ids, sql`, `)}) or ${alexandrias.id} <= 5`);
    ({ kept, fresh } = await bothCounts(seeded));
    expect(kept).toEqual(fresh);
    // No empty rows linger.
    const zero = ((await db.execute(sql`select count(*)::int as n from record_counts where n <= 0`)) as unknown as { rows: Array<{ n: number }> }).rows;
    expect(zero[0]?.n).toBe(0);
  });

  it('forget an import that is deleted (its records keep no import)', async () => {
    const { db } = seeded;
    const [doomed] = await db.insert(imports).values({ type: 'single', status: 'done' }).returning({ id: imports.id });
    await db.insert(alexandrias).values([
      { title: 'De una importación borrada', type: 'csv', status: 'under_review', importId: doomed!.id },
      { title: 'De una importación borrada, otra', type: 'pdf', status: 'under_review', importId: doomed!.id },
    ]);
    await db.delete(imports).where(eq(imports.id, doomed!.id));
    const { kept, fresh } = await bothCounts(seeded);
    expect(kept).toEqual(fresh);
    expect(kept.imports.some((row) => (row as { import_id: number }).import_id === doomed!.id)).toBe(false);
  });

  it('are emptied with the table', async () => {
    await seeded.db.execute(sql`truncate alexandrias cascade`);
    const { kept, fresh } = await bothCounts(seeded);
    expect(kept).toEqual({ kept: [], wallets: [], imports: [] });
    expect(fresh).toEqual({ kept: [], wallets: [], imports: [] });
  });
});
