/**
 * Sheet previews of hostile spreadsheets (issue #16, items 3 and 4): highly compressed sheets are
 * read in a worker thread, stopped by budgets of cells, inflated bytes, time and memory, while
 * the server's event loop keeps answering.
 */
import fs from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alexandrias, jobs, sheetPreviews } from '../../src/lib/server/db/schema.ts';
import { enqueue, runWorker } from '../../src/lib/server/jobs/index.ts';
import { SHEET_PREVIEWS_JOB, sheetPreviewsHandler, sheetPreviewsJob } from '../../src/lib/server/spreadsheets/preview-job.ts';
import { DEFAULT_LIMITS, extractSheetPreviews, readSheets, scheduleSheetPreviews, type SpreadsheetLimits } from '../../src/lib/server/spreadsheets/index.ts';
import { createStagingArea, databaseFileGuard, type StagingArea } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines } from '../helpers/database.ts';
import { gigabyteSheet, MAIN, part, repeatedPart, ROW, workbook, zip } from '../helpers/hostile-spreadsheets.ts';

/**
 * 64 MiB of shared strings (2,048 of 32,000 characters, the sheet showing the first) in about
 * 70 KB. Each string is two runs of rich text, so that it is joined into the reader's own heap
 * (a plain run may stay a slice of the decoded part, which Node keeps outside the V8 heap).
 */
const heavyStrings = () =>
  workbook(
    part('xl/worksheets/sheet1.xml', `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`),
    repeatedPart('xl/sharedStrings.xml', `<sst ${MAIN}>`, `<si><r><t>${'x'.repeat(31_999)}</t></r><r><t>y</t></r></si>`.repeat(32), 64, '</sst>'),
  );

/**
 * An ODS whose one row, with one number, repeats 20 million times: a single XML element, read in
 * one synchronous step that writes line after line (with limits that let it).
 */
const repeatedRow = () =>
  zip([
    part('mimetype', 'application/vnd.oasis.opendocument.spreadsheet'),
    part(
      'content.xml',
      '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0">' +
        '<office:body><office:spreadsheet><table:table table:name="Hoja1"><table:table-row table:number-rows-repeated="20000000">' +
        '<table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>',
    ),
  ]);

const small = () => workbook(part('xl/worksheets/sheet1.xml', `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1"><v>7</v></c></row></sheetData></worksheet>`));

describe('the budgets of a read', () => {
  it('a sheet inflating to 1 GiB, a hundred cells a row, stops at the budget of cells or of inflated bytes', async () => {
    const file = gigabyteSheet();
    expect(file.byteLength).toBeLessThan(4_000_000);
    // Cells: the row being read when the budget runs out is left out.
    const [byCells] = await readSheets(file, { ...DEFAULT_LIMITS, maxCells: 100_000 });
    expect(byCells).toMatchObject({ rows: 1_000, columns: 100, truncated: true });
    // Inflated bytes: 10 MB of XML hold 6,940 whole rows of 1,511 bytes.
    const [byBytes] = await readSheets(file, { ...DEFAULT_LIMITS, maxCells: Number.MAX_SAFE_INTEGER, maxPartBytes: 10_000_000 });
    expect(byBytes).toMatchObject({ rows: Math.floor((10_000_000 - `<worksheet ${MAIN}><sheetData>`.length) / ROW.length), columns: 100, truncated: true });
  });
});

describe.each(testEngines())('extraction in a worker thread on %s', (engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  let staging: StagingArea;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    blocks = await createTestStore();
    staging = createStagingArea({ storeDir: blocks.dir, dir: `${blocks.dir}-staging`, guard: databaseFileGuard(database.db) });
  });
  afterAll(async () => {
    await database?.destroy();
    await blocks?.destroy();
    if (blocks) await fs.rm(`${blocks.dir}-staging`, { recursive: true, force: true });
  });

  /** A spreadsheet record of `file`, stored, and its extraction source. */
  const recordOf = async (file: Uint8Array, title: string, limits?: SpreadsheetLimits, type: 'xlsx' | 'ods' = 'xlsx') => {
    const { cid } = await blocks.store.add(file);
    const [record] = await database.db
      .insert(alexandrias)
      .values({ title, type, formats: [type], cid, originKey: `test:${title}` })
      .returning({ id: alexandrias.id });
    return { db: database.db, store: blocks.store, staging, alexandriaId: record!.id, cid, type, limits };
  };
  /** What `extractSheetPreviews(source)` logged as warnings, and its result. */
  const warnings = async (source: Parameters<typeof extractSheetPreviews>[0]) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const previews = await extractSheetPreviews(source);
      return { previews, messages: warn.mock.calls.map((call) => String(call[0])) };
    } finally {
      warn.mockRestore();
    }
  };
  const csvOf = async (cid: string) => {
    let bytes = 0;
    for await (const chunk of blocks.store.cat(cid)) bytes += chunk.byteLength;
    return bytes;
  };

  it('the event loop keeps answering while a 1 GiB sheet is read, and the preview stops at the budget of cells', async () => {
    const source = await recordOf(gigabyteSheet(), 'bomba de celdas');
    // The longest this thread worked without letting a timer run: CPU time between two ticks, not
    // wall time, which also counts the moments a busy machine (the other test files) gave its core
    // to someone else.
    let worstLag = 0;
    let last = process.threadCpuUsage();
    const ticker = setInterval(() => {
      const now = process.threadCpuUsage();
      worstLag = Math.max(worstLag, (now.user + now.system - last.user - last.system) / 1000);
      last = now;
    }, 5);
    const started = performance.now();
    let previews: Awaited<ReturnType<typeof extractSheetPreviews>>;
    try {
      previews = await extractSheetPreviews(source);
    } finally {
      clearInterval(ticker);
    }
    // Reading on this thread (issue #16), put back there to check this bound, measured 324 to 385
    // ms alone, more on a loaded machine. Read in the worker, the worst is 20 to 40 ms alone, and
    // up to 115 ms with the whole suite running beside it: messages pile up while this thread
    // waits for a core, and on the embedded engine the database runs on this thread too.
    expect(worstLag).toBeLessThan(250);
    expect(worstLag).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(DEFAULT_LIMITS.timeoutMs);
    expect(previews).toHaveLength(1);
    const [preview] = previews;
    expect(preview).toMatchObject({ rows: DEFAULT_LIMITS.maxCells / 100, columns: 100, truncated: true });
    expect(await csvOf(preview!.cid)).toBe(preview!.rows * `${Array(100).fill('1').join(',')}\r\n`.length);
  });

  it('a worker past its time is terminated, even in the middle of one long step: no preview, a warning, nothing thrown', async () => {
    // Without a worker, the deadline was only checked between steps: this one ran for 2 s past it.
    const limits = { ...DEFAULT_LIMITS, maxRows: 20_000_000, maxCsvBytes: Number.MAX_SAFE_INTEGER, minCsvBytes: Number.MAX_SAFE_INTEGER, timeoutMs: 300 };
    const source = await recordOf(repeatedRow(), 'fila repetida', limits, 'ods');
    const started = performance.now();
    const { previews, messages } = await warnings(source);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(previews).toEqual([]);
    expect(messages).toEqual([expect.stringMatching(new RegExp(`No se pudieron extraer las hojas del registro ${source.alexandriaId} .*no terminó en 300 ms`))]);
  });

  it('a worker past its memory is terminated: no preview, a warning, nothing thrown; the next file is read', async () => {
    const limits = { ...DEFAULT_LIMITS, workerHeapMb: 32 };
    const heavy = await recordOf(heavyStrings(), 'cadenas pesadas', limits);
    const { previews, messages } = await warnings(heavy);
    expect(previews).toEqual([]);
    expect(messages).toEqual([expect.stringMatching(new RegExp(`No se pudieron extraer las hojas del registro ${heavy.alexandriaId} .*pasó de 32 MiB de memoria`))]);
    // A small workbook fits that heap (the strings were too much, not the worker itself), and
    // extraction goes on after a stopped worker.
    const [seven] = await scheduleSheetPreviews(await recordOf(small(), 'pequeña', limits));
    expect(seven).toMatchObject({ rows: 1, columns: 1, truncated: false });
    expect(await csvOf(seven!.cid)).toBe('7\r\n'.length);
    // The same strings fit the default heap.
    const [strings] = await scheduleSheetPreviews({ ...heavy, limits: DEFAULT_LIMITS });
    expect(strings).toMatchObject({ rows: 1, columns: 1, truncated: false });
    expect(await csvOf(strings!.cid)).toBe(32_002);
  });

  it('a shutdown stops a read at once: the job goes back to the queue untried, nothing is written or left staged', { timeout: 120_000 }, async () => {
    // Read with the default limits, this sheet takes seconds (it stops at the budget of cells):
    // without the signal, the worker held the shutdown until the read ended and wrote its preview.
    const source = await recordOf(gigabyteSheet(), 'lectura interrumpida');
    const { job } = await enqueue(database.db, sheetPreviewsJob(source.alexandriaId, source.cid));
    const stagingRoot = `${blocks.dir}-staging`;
    const staged = async () => await fs.readdir(stagingRoot).catch(() => []);
    expect(await staged()).toEqual([]);
    const stop = new AbortController();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let warnings: unknown[][];
    const worker = runWorker({ db: database.db, handlers: { [SHEET_PREVIEWS_JOB]: sheetPreviewsHandler(source) }, signal: stop.signal, pollMs: 20 });
    try {
      // In the middle of the read: the worker thread has announced the sheet, and its CSV is being staged.
      let reading = false;
      for (let turn = 0; turn < 2_000 && !reading; turn += 1) {
        reading = (await staged()).length > 0;
        if (!reading) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(reading).toBe(true);
      const stopped = performance.now();
      stop.abort();
      await worker;
      // Generous for a shared machine; the read alone would take seconds more.
      expect(performance.now() - stopped).toBeLessThan(DEFAULT_LIMITS.timeoutMs);
    } finally {
      stop.abort();
      await worker;
      warnings = [...warn.mock.calls];
      warn.mockRestore();
    }
    const [row] = await database.db.select({ status: jobs.status, attempts: jobs.attempts }).from(jobs).where(eq(jobs.id, job.id));
    expect(row).toEqual({ status: 'queued', attempts: 0 });
    expect(await database.db.$count(sheetPreviews, eq(sheetPreviews.alexandriaId, source.alexandriaId))).toBe(0);
    // Not the file's fault: no "no se pudieron extraer" for good.
    expect(warnings).toEqual([]);
    expect(await staged()).toEqual([]);

    // The next worker reads it whole.
    const again = new AbortController();
    const next = runWorker({ db: database.db, handlers: { [SHEET_PREVIEWS_JOB]: sheetPreviewsHandler(source) }, signal: again.signal, pollMs: 20 });
    try {
      for (let turn = 0; turn < 3_000; turn += 1) {
        const [done] = await database.db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, job.id));
        if (done?.status === 'done') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      again.abort();
      await next;
    }
    const [done] = await database.db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, job.id));
    expect(done?.status).toBe('done');
    expect(await database.db.$count(sheetPreviews, eq(sheetPreviews.alexandriaId, source.alexandriaId))).toBe(1);
  });
});
