/**
 * The exports and the DCAT catalogue are fingerprinted by the database's change counter (migration
 * 0025), not by the latest `updated_at` (issue #21): a server whose clock is 90 s behind writes a
 * change with an older time than the latest one, and harvesters must still see it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, categories, departments } from '../../src/lib/server/db/schema.ts';
import { catalogResponse } from '../../src/lib/server/dcat/response.ts';
import { exportResponse } from '../../src/lib/server/export/catalog-export.ts';
import { catalogFingerprint } from '../../src/lib/server/queries/catalog.ts';
import { createTestDatabase, testEngines } from '../helpers/database.ts';

const ORIGIN = 'https://archivo.example';

describe.each(testEngines())('change fingerprints from the database on %s', (engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  let recordId: number;

  const request = (headers: Record<string, string> = {}) => new Request(`${ORIGIN}/export/catalogo.csv`, { headers });
  const csv = (headers?: Record<string, string>) =>
    exportResponse({ db: database.db, dataDir, origin: ORIGIN, format: 'csv', request: request(headers) });
  const jsonLd = (headers?: Record<string, string>) => catalogResponse('jsonld', { db: database.db, origin: ORIGIN, request: request(headers) });
  const titles = async (response: Response) =>
    Papa.parse<Record<string, string>>((await response.text()).replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true }).data.map(
      (row) => row.titulo,
    );
  /** Puts every catalogue time a minute in the future: the other servers' clocks, ahead of ours. */
  const othersAhead = async () => {
    await database.db.update(alexandrias).set({ updatedAt: sql`now() + interval '60 seconds'` });
    await database.db.update(departments).set({ updatedAt: sql`now() + interval '60 seconds'` });
  };

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-fingerprint-'));
    const [department] = await database.db.insert(departments).values({ name: 'Ministerio de Pruebas', reviewStatus: 'on_line' }).returning({ id: departments.id });
    const [category] = await database.db.select({ id: categories.id }).from(categories).limit(1);
    const facts = { type: 'csv', status: 'on_line', departmentId: department!.id, categoryId: category?.id ?? null } as const;
    const [record] = await database.db
      .insert(alexandrias)
      .values([{ title: 'Presupuesto 2025', ...facts }, { title: 'Gastos 2025', ...facts }])
      .returning({ id: alexandrias.id });
    recordId = record!.id;
    await othersAhead();
  });
  afterAll(async () => {
    await database?.destroy();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the tags of an unchanged catalogue, and answers 304 to a current copy', async () => {
    const first = await csv();
    const etag = first.headers.get('etag')!;
    expect(first.status).toBe(200);
    expect(await titles(first)).toEqual(['Presupuesto 2025', 'Gastos 2025']);
    const catalogue = (await jsonLd()).headers.get('etag')!;

    expect((await csv()).headers.get('etag')).toBe(etag);
    expect((await csv({ 'If-None-Match': etag })).status).toBe(304);
    expect((await jsonLd()).headers.get('etag')).toBe(catalogue);
    expect((await jsonLd({ 'If-None-Match': catalogue })).status).toBe(304);
  });

  it('changes the tags and the CSV for a change written 90 s in the past (a server whose clock is behind)', async () => {
    const before = await csv();
    const etag = before.headers.get('etag')!;
    const catalogue = (await jsonLd()).headers.get('etag')!;
    const [latest] = await database.db.select({ at: sql<string>`max(${alexandrias.updatedAt})::text` }).from(alexandrias);

    // The moderation of the server that is behind: its time is older than the latest one stored.
    await database.db
      .update(alexandrias)
      .set({ title: 'Presupuesto 2025 (corregido)', updatedAt: sql`now() - interval '90 seconds'` })
      .where(eq(alexandrias.id, recordId));
    const [after] = await database.db.select({ at: sql<string>`max(${alexandrias.updatedAt})::text` }).from(alexandrias);
    expect(after!.at).toBe(latest!.at);

    const changed = await csv({ 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await titles(changed)).toEqual(['Presupuesto 2025 (corregido)', 'Gastos 2025']);
    const changedCatalogue = await jsonLd({ 'If-None-Match': catalogue });
    expect(changedCatalogue.status).toBe(200);
    expect(changedCatalogue.headers.get('etag')).not.toBe(catalogue);
    expect(await changedCatalogue.text()).toContain('Presupuesto 2025 (corregido)');
  });

  it('changes it for a renamed institution written in the past too', async () => {
    const etag = (await csv()).headers.get('etag')!;
    await database.db.update(departments).set({ name: 'Ministerio Renombrado', updatedAt: sql`now() - interval '90 seconds'` });
    const changed = await csv({ 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    const [row] = Papa.parse<Record<string, string>>((await changed.text()).replace(/^\uFEFF/, ''), { header: true }).data;
    expect(row?.institucion).toBe('Ministerio Renombrado');
  });

  it('is bumped when the change commits, with it, and not by a change rolled back', async () => {
    const before = await catalogFingerprint(database.db);
    await expect(
      database.db.transaction(async (tx) => {
        await tx.update(alexandrias).set({ title: 'Nunca publicado' }).where(eq(alexandrias.id, recordId));
        throw new Error('deshecho');
      }),
    ).rejects.toThrow('deshecho');
    expect(await catalogFingerprint(database.db)).toEqual(before);

    await database.db.transaction(async (tx) => {
      await tx.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, recordId));
      await tx.update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, recordId));
    });
    expect(BigInt((await catalogFingerprint(database.db)).changes)).toBeGreaterThan(BigInt(before.changes));
  });

  it('folds the rows of many changes into a total without moving the count', async () => {
    const before = BigInt((await catalogFingerprint(database.db)).changes);
    // 1,500 changes' rows (transaction ids no transaction will reach here).
    await database.db.execute(sql`insert into catalogue_changes (xid) select (1000000000000 + i)::text::xid8 from generate_series(1, 1500) i`);
    expect(BigInt((await catalogFingerprint(database.db)).changes)).toBe(before + 1500n);
    const rows = async () => Number(((await database.db.execute(sql`select count(*)::int as n from catalogue_changes`)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
    expect(await rows()).toBe(0);
    expect(BigInt((await catalogFingerprint(database.db)).changes)).toBe(before + 1500n);
    await database.db.update(alexandrias).set({ title: 'Presupuesto 2025 (revisado)' }).where(eq(alexandrias.id, recordId));
    expect(BigInt((await catalogFingerprint(database.db)).changes)).toBe(before + 1501n);
  });
});
