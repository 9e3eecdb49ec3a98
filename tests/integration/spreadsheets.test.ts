import fs from 'node:fs/promises';
import path from 'node:path';
import { and, eq, inArray, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rest } from '../../src/lib/server/api/rest.ts';
import { alexandrias, jobs, sheetPreviews } from '../../src/lib/server/db/schema.ts';
import { enqueue, runWorker } from '../../src/lib/server/jobs/index.ts';
import { queueMissingSheetPreviews, SHEET_PREVIEWS_JOB, sheetPreviewsHandler, sheetPreviewsJob } from '../../src/lib/server/spreadsheets/preview-job.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { sheetPreviewsOf } from '../../src/lib/server/queries/sheets.ts';
import { seedArchive } from '../../src/lib/server/seed/index.ts';
import { alexandriaSheets } from '../../src/lib/server/spreadsheets/endpoint.ts';
import { extractSheetPreviews, readSheets, scheduleSheetPreviews } from '../../src/lib/server/spreadsheets/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';

const ORIGIN = 'https://archivo.test';
const XLSX = 'spreadsheets/cnss-recaudos-sfs-2003-2023.xlsx';
const ODS = 'spreadsheets/cnss-recaudos-sfs-2003-2023.ods';
const PRIMAS = 'spreadsheets/one-primas-netas-seguros-2015-2023.xlsx';
const XLS = 'spreadsheets/one-companias-aseguradoras-1995-2022.xls';

describe.each(testEngines())('sheet previews on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const recordOf = async (file: string) => {
    const [record] = await seeded.db.select().from(alexandrias).where(eq(alexandrias.originKey, `fixtures:${file}`));
    if (!record) throw new Error(`no record for ${file}`);
    return record;
  };
  const stored = async (cid: string) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of seeded.store.cat(cid)) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  };
  const call = async (id: string) => {
    const response = await rest(() => alexandriaSheets({ db: seeded.db, origin: ORIGIN }, id));
    return { status: response.status, headers: response.headers, json: (await response.json()) as { code: number; body?: string; message?: string } };
  };

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  it('the seed extracts every sheet of the spreadsheet fixtures, and nothing for other files', async () => {
    const rows = await seeded.db
      .select({ file: alexandrias.originKey, index: sheetPreviews.sheetIndex, name: sheetPreviews.name, rows: sheetPreviews.rowCount, columns: sheetPreviews.columnCount, truncated: sheetPreviews.truncated })
      .from(sheetPreviews)
      .innerJoin(alexandrias, eq(alexandrias.id, sheetPreviews.alexandriaId))
      .orderBy(alexandrias.originKey, sheetPreviews.sheetIndex);
    expect(rows.filter((row) => row.file === `fixtures:${XLSX}`)).toEqual([
      { file: `fixtures:${XLSX}`, index: 0, name: 'Recaudo y Dispersión', rows: 246, columns: 7, truncated: false },
    ]);
    expect(rows.filter((row) => row.file === `fixtures:${ODS}`)).toEqual([
      { file: `fixtures:${ODS}`, index: 0, name: 'Recaudo_y_Dispersión', rows: 246, columns: 7, truncated: false },
    ]);
    const primas = rows.filter((row) => row.file === `fixtures:${PRIMAS}`);
    expect(primas.map((row) => row.name)).toEqual(['2015', '2016', '2017', '2018', '2019', '2020', '2021', '2022', '2023']);
    // The legacy .xls (BIFF) and the CSV files get none.
    expect(new Set(rows.map((row) => row.file))).toEqual(new Set([`fixtures:${XLSX}`, `fixtures:${ODS}`, `fixtures:${PRIMAS}`]));
    expect(await sheetPreviewsOf(seeded.db, (await recordOf(XLS)).id)).toEqual([]);
  });

  it('seeding again changes nothing: no duplicate, no new identity value', async () => {
    const state = async () => ({
      rows: await seeded.db.select().from(sheetPreviews).orderBy(sheetPreviews.id),
      sequence: ((await seeded.db.execute(sql`select last_value from pg_sequences where sequencename = 'sheet_previews_id_seq'`)) as unknown as { rows: unknown[] }).rows,
    });
    const before = await state();
    expect(before.rows).toHaveLength(11);
    await seedArchive({ db: seeded.db, store: seeded.store, staging: seeded.staging, fixturesDir: FIXTURES_DIR });
    expect(await state()).toEqual(before);
  });

  it('stores each CSV so that reading it back by CID gives exactly what was extracted', async () => {
    for (const file of [XLSX, ODS, PRIMAS]) {
      const record = await recordOf(file);
      const extracted = await readSheets(new Uint8Array(await fs.readFile(path.join(FIXTURES_DIR, 'files', file))));
      const previews = await sheetPreviewsOf(seeded.db, record.id);
      expect(previews.map((preview) => preview.index)).toEqual(extracted.map((sheet) => sheet.index));
      for (const [i, preview] of previews.entries()) expect(await stored(preview.cid)).toBe(extracted[i]!.csv);
    }
    // The XLSX and its ODS twin give the same bytes, hence the same CID.
    const [fromXlsx] = await sheetPreviewsOf(seeded.db, (await recordOf(XLSX)).id);
    const [fromOds] = await sheetPreviewsOf(seeded.db, (await recordOf(ODS)).id);
    expect(fromOds?.cid).toBe(fromXlsx?.cid);
  });

  it('GET /v2/open-data/alexandrias/{id}/sheets answers the sheets in the {code, body} envelope, with gateway URLs', async () => {
    const record = await recordOf(PRIMAS);
    const { status, json, headers } = await call(String(record.id));
    expect(status).toBe(200);
    expect(json.code).toBe(200);
    expect(typeof json.body).toBe('string');
    const sheets = JSON.parse(json.body!) as Array<Record<string, unknown>>;
    expect(sheets).toHaveLength(9);
    expect(Object.keys(sheets[0]!)).toEqual(['index', 'name', 'cid', 'rows', 'columns', 'truncated', 'url']);
    expect(sheets[0]).toMatchObject({ index: 0, name: '2015', columns: 13, truncated: false, url: `${ORIGIN}/ipfs/${sheets[0]!.cid}` });
    expect(headers.get('access-control-allow-origin')).toBe('*');

    // The URL serves the CSV itself.
    const url = new URL(String(sheets[8]!.url));
    const response = await serveFile(seeded.db, seeded.store, readGatewayRequest(String(sheets[8]!.cid), new Request(url), url));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(await stored(String(sheets[8]!.cid)));
  });

  it('answers [] for a record without sheets, and 404 for one that does not exist', async () => {
    const csv = await recordOf('csv/salario-minimo-hacienda-2000-2025.csv');
    expect(JSON.parse((await call(String(csv.id))).json.body!)).toEqual([]);
    for (const id of ['999999999', 'abc', '0']) {
      const { status, json } = await call(id);
      expect(status).toBe(404);
      expect(json).toMatchObject({ code: 404, message: 'Ese registro no existe.' });
    }
  });

  it('an upload is extracted in the background once, however often it is asked', async () => {
    const record = await recordOf(PRIMAS);
    await seeded.db.delete(sheetPreviews).where(eq(sheetPreviews.alexandriaId, record.id));
    const source = { db: seeded.db, store: seeded.store, staging: seeded.staging, alexandriaId: record.id, cid: record.cid!, type: record.type };
    const [first, second] = await Promise.all([scheduleSheetPreviews(source), scheduleSheetPreviews(source)]);
    expect(first).toHaveLength(9);
    expect(second).toEqual(first);
    expect(await seeded.db.$count(sheetPreviews, eq(sheetPreviews.alexandriaId, record.id))).toBe(9);
  });

  it('records that lack previews get a job each, once, and the worker makes their previews', async () => {
    const record = await recordOf(XLSX);
    const before = await sheetPreviewsOf(seeded.db, record.id);
    await seeded.db.delete(sheetPreviews).where(eq(sheetPreviews.alexandriaId, record.id));
    expect(await queueMissingSheetPreviews(seeded.db)).toBe(1);
    // Asked again (another server starting, or the next start): no second job for the same file.
    expect(await queueMissingSheetPreviews(seeded.db)).toBe(0);
    // A job for a file the record no longer holds does nothing.
    await enqueue(seeded.db, sheetPreviewsJob(record.id, 'bafkqaaa'));

    const stop = new AbortController();
    const worker = runWorker({ db: seeded.db, handlers: { [SHEET_PREVIEWS_JOB]: sheetPreviewsHandler(seeded) }, signal: stop.signal, pollMs: 20 });
    try {
      for (let turn = 0; turn < 400; turn += 1) {
        const left = await seeded.db.$count(jobs, and(eq(jobs.kind, SHEET_PREVIEWS_JOB), inArray(jobs.status, ['queued', 'running'])));
        if (left === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      stop.abort();
      await worker;
    }
    const done = await seeded.db.select({ status: jobs.status }).from(jobs).where(eq(jobs.kind, SHEET_PREVIEWS_JOB));
    expect(done.map((job) => job.status)).toEqual(['done', 'done']);
    const after = await sheetPreviewsOf(seeded.db, record.id);
    expect(after.map((sheet) => [sheet.name, sheet.cid])).toEqual(before.map((sheet) => [sheet.name, sheet.cid]));
  });

  it('a damaged spreadsheet gets no previews and a warning, never an error', async () => {
    const { cid } = await seeded.store.add(new TextEncoder().encode('PK\u0003\u0004 esto no es una hoja de cálculo'));
    const [record] = await seeded.db
      .insert(alexandrias)
      .values({ title: 'Hoja dañada', type: 'ods', formats: ['ods'], cid, originKey: 'test:hoja-dañada' })
      .returning({ id: alexandrias.id });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await expect(extractSheetPreviews({ db: seeded.db, store: seeded.store, staging: seeded.staging, alexandriaId: record!.id, cid, type: 'ods' })).resolves.toEqual([]);
      await expect(extractSheetPreviews({ db: seeded.db, store: seeded.store, staging: seeded.staging, alexandriaId: record!.id, cid: 'bafkqaaa', type: 'xlsx' })).resolves.toEqual([]);
      expect(warn).toHaveBeenCalledTimes(2);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/No se pudieron extraer las hojas del registro \d+ .*zip/);
    } finally {
      warn.mockRestore();
    }
    expect(await sheetPreviewsOf(seeded.db, record!.id)).toEqual([]);
  });

  it('previews go with their record', async () => {
    const record = await recordOf(ODS);
    await seeded.db.delete(alexandrias).where(eq(alexandrias.id, record.id));
    expect(await seeded.db.$count(sheetPreviews, eq(sheetPreviews.alexandriaId, record.id))).toBe(0);
    expect(await seeded.db.$count(alexandrias, like(alexandrias.originKey, 'fixtures:spreadsheets/%'))).toBe(3);
  });
});
