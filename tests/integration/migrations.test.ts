import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, NewerSchemaError, pendingMigrations, type Engine } from '../../src/lib/server/db/index.ts';
import { createTestDatabase, MIGRATIONS_DIR, nextVersionMigrations, reapplyMigrationsFrom, testEngines, type TestDatabase } from '../helpers/database.ts';

/** Tables, columns, types, indexes and enums as the catalogue describes them: the schema's fingerprint. */
async function describeSchema(database: TestDatabase) {
  const rows = async (query: ReturnType<typeof sql>) =>
    ((await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows;
  const columns = await rows(sql`
    select table_name, column_name, data_type, udt_name, is_nullable, column_default, generation_expression
    from information_schema.columns where table_schema = 'public' order by table_name, column_name`);
  const indexes = await rows(sql`
    select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by indexname`);
  const enums = await rows(sql`
    select t.typname, string_agg(e.enumlabel, ',' order by e.enumsortorder) as labels
    from pg_type t join pg_enum e on e.enumtypid = t.oid group by t.typname order by t.typname`);
  const constraints = await rows(sql`
    select conname, pg_get_constraintdef(oid) as def from pg_constraint
    where connamespace = 'public'::regnamespace and contype <> 'n' order by conname`);
  const triggers = await rows(sql`
    select tgname, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by tgname`);
  return { columns, indexes, enums, constraints, triggers };
}

const schemas = new Map<Engine, Awaited<ReturnType<typeof describeSchema>>>();

describe.each(testEngines())('migrations on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
    schemas.set(engine, await describeSchema(database));
  });
  afterAll(() => database?.destroy());

  const rowsOf = async <T>(query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;

  /**
   * Runs `check` with an archive source and the harvest sources (`catalogues`: url and kind) an
   * older version left on `site`, and takes them away after, with the records `check` put under them.
   */
  async function withCatalogues(site: string, catalogues: Array<{ url: string; kind: string }>, check: (ids: number[]) => Promise<void>): Promise<void> {
    const [source] = await rowsOf<{ id: number }>(sql`insert into sources (name, url) values (${`Fuente de ${site}`}, ${site}) returning id`);
    const ids: number[] = [];
    for (const { url, kind } of catalogues) {
      const [catalogue] = await rowsOf<{ id: number }>(sql`insert into harvest_sources (url, kind, name, source_id) values (${url}, ${kind}, ${kind}, ${source!.id}) returning id`);
      ids.push(catalogue!.id);
    }
    try {
      await check(ids);
    } finally {
      await database.db.execute(sql`delete from alexandrias where id in (select alexandria_id from harvested_records where harvest_source_id = any(${`{${ids.join(',')}}`}::int[]))`);
      await database.db.execute(sql`delete from harvest_sources where source_id = ${source!.id}`);
      await database.db.execute(sql`delete from sources where id = ${source!.id}`);
    }
  }

  it('create every table of the spec', () => {
    const tables = new Set(schemas.get(engine)?.columns.map((column) => column.table_name));
    // drizzle keeps its ledger of applied migrations in its own schema, so `public` is ours alone.
    expect([...tables].sort()).toEqual([
      'aletheias',
      'alexandrias',
      'auth_nonces',
      'captures',
      'catalogue_change_count',
      'catalogue_changes',
      'categories',
      'contact_messages',
      'deals',
      'department_reviews',
      'departments',
      'fixity_failures',
      'fixity_runs',
      'harvest_sources',
      'harvested_records',
      'import_format_counts',
      'imports',
      'job_hosts',
      'jobs',
      'leased_locks',
      'pins',
      'rate_limits',
      'record_counts',
      'record_versions',
      'search_words',
      'server_instances',
      'sessions',
      'sheet_previews',
      'source_reviews',
      'sources',
      'status_history',
      'users',
      'wallet_counts',
    ]);
  });

  it('keep the statuses of SPEC §4 as enumerations', () => {
    const enums = Object.fromEntries((schemas.get(engine)?.enums ?? []).map((row) => [row.typname, row.labels]));
    expect(enums.asset_status).toBe('under_review,on_line,blocked,broken');
    // `failed`: a harvest run that could not finish (issue #18).
    expect(enums.import_status).toBe('in_progress,done,failed');
    expect(enums.harvest_kind).toBe('ckan,dcat,datajson');
  });

  it('are a no-op when run again', async () => {
    await migrateDatabase(database, MIGRATIONS_DIR);
    expect(await describeSchema(database)).toEqual(schemas.get(engine));
  });

  it('refuse a database an upgrade migrated past this version, and accept it once it is current again', async () => {
    // What a newer version leaves in drizzle's ledger: a migration this checkout does not have.
    const future = Date.now() + 365 * 24 * 3600_000;
    await database.db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-a-newer-version', ${future})`);
    try {
      const refused = await migrateDatabase(database, MIGRATIONS_DIR).then(() => null, (error: unknown) => error);
      expect(refused).toBeInstanceOf(NewerSchemaError);
      expect((refused as Error).message).toMatch(/1 migración\(es\) más nueva\(s\) que esta versión/);
    } finally {
      await database.db.execute(sql`delete from drizzle.__drizzle_migrations where hash = 'from-a-newer-version'`);
    }
    await migrateDatabase(database, MIGRATIONS_DIR);
  });

  it('count what a next version would apply: nothing for this one, its one new migration for the next', async () => {
    const next = await nextVersionMigrations();
    try {
      expect(await pendingMigrations(database.db, MIGRATIONS_DIR)).toBe(0);
      expect(await pendingMigrations(database.db, next.dir)).toBe(1);
    } finally {
      await next.remove();
    }
  });

  it('count what a harvest run imported, new and updated, in the runs an older version recorded (0031)', async () => {
    // A database the previous version left: its runs counted every entry read, and 0031 not applied.
    const [run] = await rowsOf<{ id: number }>(sql`
      insert into imports (type, status, documents, harvest_counts)
      values ('harvest', 'done', 1065, '{"new": 3, "updated": 2, "unchanged": 1060, "withdrawn": 0, "failed": 0}'::jsonb)
      returning id`);
    const [upload] = await rowsOf<{ id: number }>(sql`insert into imports (type, status, documents) values ('single', 'done', 1) returning id`);
    try {
      expect(await reapplyMigrationsFrom(database, '0031')).toBeGreaterThan(0);
      expect(await pendingMigrations(database.db, MIGRATIONS_DIR)).toBe(0);
      const rows = await rowsOf(sql`select id, documents from imports where id in (${run!.id}, ${upload!.id}) order by id`);
      expect(rows).toEqual([
        { id: run!.id, documents: 5 },
        { id: upload!.id, documents: 1 },
      ]);
    } finally {
      await database.db.execute(sql`delete from imports where id in (${run!.id}, ${upload!.id})`);
    }
  });

  it('move the calendar days a DCAT or data.json catalogue gave, kept at midnight UTC by an older version, to noon (0034)', async () => {
    const catalogues = [
      { url: 'https://portal.example/data.json', kind: 'datajson' },
      { url: 'https://portal.example/api/3/action/package_search', kind: 'ckan' },
    ];
    await withCatalogues('https://portal.example', catalogues, async ([dataJson, ckanCatalogue]) => {
      const records = await rowsOf<{ id: number; title: string }>(sql`
        insert into alexandrias (title, type, status, issued, modified) values
          ('Día de data.json', 'csv', 'under_review', '2021-01-01T00:00:00Z', '2024-03-01T00:00:00Z'),
          ('Instante de data.json', 'csv', 'under_review', '2021-01-01T10:30:00Z', null),
          ('Instante de CKAN a medianoche', 'csv', 'under_review', '2021-03-01T00:00:00Z', null)
        returning id, title`);
      const [day, instant, ckan] = records.map((record) => record.id);
      await database.db.execute(sql`
        insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key)
        values (${day}, ${dataJson}, 'dia', '0'), (${instant}, ${dataJson}, 'instante', '0'), (${ckan}, ${ckanCatalogue}, 'ckan', '0')`);
      expect(await reapplyMigrationsFrom(database, '0034')).toBeGreaterThan(0);
      const rows = await rowsOf<{ title: string; issued: Date | string; modified: Date | string | null }>(
        sql`select title, issued, modified from alexandrias where id in (${day}, ${instant}, ${ckan}) order by id`,
      );
      const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
      expect(rows.map((row) => [row.title, iso(row.issued), iso(row.modified)])).toEqual([
        ['Día de data.json', '2021-01-01T12:00:00.000Z', '2024-03-01T12:00:00.000Z'],
        ['Instante de data.json', '2021-01-01T10:30:00.000Z', null],
        ['Instante de CKAN a medianoche', '2021-03-01T00:00:00.000Z', null],
      ]);
    });
  });

  it('take a declared size of 0 bytes, kept by an older version, as unknown, as the readers now do (0039)', async () => {
    await withCatalogues('https://hdx.example', [{ url: 'https://hdx.example/api/3/action/package_search', kind: 'ckan' }], async ([catalogue]) => {
      const records = await rowsOf<{ id: number }>(sql`
        insert into alexandrias (title, type, status) values ('Enlace a una API', 'other', 'under_review'), ('Un CSV', 'csv', 'under_review') returning id`);
      const [api, csv] = records.map((record) => record.id);
      await database.db.execute(sql`
        insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key, declared_size)
        values (${api}, ${catalogue}, 'api', '0', 0), (${csv}, ${catalogue}, 'csv', '0', 2048)`);
      expect(await reapplyMigrationsFrom(database, '0039')).toBeGreaterThan(0);
      const rows = await rowsOf<{ alexandria_id: number; declared_size: number | string | null }>(
        sql`select alexandria_id, declared_size from harvested_records where alexandria_id in (${api}, ${csv}) order by alexandria_id`,
      );
      expect(rows.map((row) => [row.alexandria_id, row.declared_size === null ? null : Number(row.declared_size)])).toEqual([
        [api, null],
        [csv, 2048],
      ]);
    });
  });

  it('take the institution and category harvested records hold as what their harvest gave them (0040)', async () => {
    const [department] = await rowsOf<{ id: number }>(sql`insert into departments (name) values ('Institución de la migración 0040') returning id`);
    const [category] = await rowsOf<{ id: number }>(sql`insert into categories (title) values ('Categoría de la migración 0040') returning id`);
    try {
      await withCatalogues('https://portal40.example', [{ url: 'https://portal40.example/data.json', kind: 'datajson' }], async ([catalogue]) => {
        const [record] = await rowsOf<{ id: number }>(sql`
          insert into alexandrias (title, type, status, department_id, category_id) values ('Cosechado', 'csv', 'under_review', ${department!.id}, ${category!.id}) returning id`);
        await database.db.execute(sql`
          insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key) values (${record!.id}, ${catalogue}, 'a', '0')`);
        expect(await reapplyMigrationsFrom(database, '0040')).toBeGreaterThan(0);
        const [row] = await rowsOf<{ mapped_department_id: number; mapped_category_id: number }>(
          sql`select mapped_department_id, mapped_category_id from harvested_records where alexandria_id = ${record!.id}`,
        );
        expect(row).toEqual({ mapped_department_id: department!.id, mapped_category_id: category!.id });
      });
    } finally {
      await database.db.execute(sql`delete from departments where id = ${department!.id}`);
      await database.db.execute(sql`delete from categories where id = ${category!.id}`);
    }
  });

  it('close the harvest runs an older version left open after their job failed for good (0042)', async () => {
    const [job] = await rowsOf<{ id: number }>(sql`
      insert into jobs (kind, payload, status, last_error) values ('harvest', '{}'::jsonb, 'failed', 'El proceso que lo ejecutaba (x) dejó de responder: su concesión venció.') returning id`);
    const [open, live] = await rowsOf<{ id: number }>(sql`
      insert into imports (type, status, job_id) values ('harvest', 'in_progress', ${job!.id}), ('harvest', 'in_progress', null) returning id`);
    try {
      expect(await reapplyMigrationsFrom(database, '0042')).toBeGreaterThan(0);
      const rows = await rowsOf<{ id: number; status: string; errors: Array<{ message: string }> }>(sql`select id, status, errors from imports where id in (${open!.id}, ${live!.id}) order by id`);
      expect(rows.map((row) => [row.id, row.status, row.errors.at(-1)?.message ?? null])).toEqual([
        [open!.id, 'failed', 'Cosecha interrumpida, sin más intentos. El proceso que lo ejecutaba (x) dejó de responder: su concesión venció.'],
        [live!.id, 'in_progress', null],
      ]);
    } finally {
      await database.db.execute(sql`delete from imports where id in (${open!.id}, ${live!.id})`);
      await database.db.execute(sql`delete from jobs where id = ${job!.id}`);
    }
  });

  it("state Spanish and the Dominican Republic of the records of the seed's export, and of no other catalogue's (0043)", async () => {
    await withCatalogues('https://datos.gob.do', [{ url: 'https://datos.gob.do/dataset/', kind: 'ckan' }, { url: 'https://datos.gob.cl/api/3/action/package_search', kind: 'ckan' }], async ([exported, chile]) => {
      await database.db.execute(sql`update harvest_sources set snapshot_on = '2026-09-24' where id = ${exported}`);
      const records = await rowsOf<{ id: number }>(sql`
        insert into alexandrias (title, type, status) values ('De la exportación', 'csv', 'under_review'), ('De Chile', 'csv', 'under_review') returning id`);
      const [seeded, chilean] = records.map((record) => record.id);
      await database.db.execute(sql`
        insert into harvested_records (alexandria_id, harvest_source_id, dataset_identifier, distribution_key)
        values (${seeded}, ${exported}, 'a', '0'), (${chilean}, ${chile}, 'b', '0')`);
      expect(await reapplyMigrationsFrom(database, '0043')).toBeGreaterThan(0);
      const rows = await rowsOf<{ id: number; languages: string[]; spatial: string[] }>(
        sql`select id, languages, spatial from alexandrias where id in (${seeded}, ${chilean}) order by id`,
      );
      expect(rows).toEqual([
        { id: seeded, languages: ['http://publications.europa.eu/resource/authority/language/SPA'], spatial: ['http://publications.europa.eu/resource/authority/country/DOM'] },
        { id: chilean, languages: [], spatial: [] },
      ]);
    });
  });

  it('search Spanish text without accents and with stemming', async () => {
    await database.db.execute(sql`insert into categories (title, description) values ('Educación', 'Estadísticas de escuelas públicas')`);
    const result = (await database.db.execute(
      sql`select title from categories where search @@ websearch_to_tsquery('archivo_es', archivo_search_text('educacion escuela'))`,
    )) as unknown as { rows: Array<{ title: string }> };
    expect(result.rows.map((row) => row.title)).toEqual(['Educación']);
  });
});

// Only defined where both engines run (always in CI), so no test stands skipped.
if (testEngines().length > 1) describe('PGlite and PostgreSQL', () => {
  it('get the very same schema', () => {
    expect(schemas.get('pglite')).toBeDefined();
    expect(schemas.get('postgres')).toEqual(schemas.get('pglite'));
  });
});
