/**
 * Sheet previews are stored as uploads and captures are (issue #18): each CSV staged, then moved
 * into the store by the transaction that writes its `sheet_previews` row, under the database's
 * lock per file (`storage/file-guard.ts`). On both engines: a CSV whose bytes another upload is
 * undoing at the same moment keeps its blocks; a failure before or after the move, or an
 * extraction another one beat, leaves nothing staged and no block in the store that no row holds.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { alexandrias, sheetPreviews } from '../../src/lib/server/db/schema.ts';
import { sheetPreviewsOf } from '../../src/lib/server/queries/sheets.ts';
import type { Job } from '../../src/lib/server/jobs/index.ts';
import { extractSheetPreviews, readSheets } from '../../src/lib/server/spreadsheets/index.ts';
import { sheetPreviewsHandler, sheetPreviewsJob } from '../../src/lib/server/spreadsheets/preview-job.ts';
import { cidOf, createStagingArea, databaseFileGuard, type StagedUpload, type StagingArea } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { MAIN, part, workbook } from '../helpers/hostile-spreadsheets.ts';
import { gate, settled } from '../unit/storage/helpers.ts';

/** A one-sheet workbook of numbers, its CSV distinct per `seed`. */
const sheetOf = (seed: number) =>
  workbook(part('xl/worksheets/sheet1.xml', `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1"><v>${seed}</v></c><c r="B1"><v>2.5</v></c></row></sheetData></worksheet>`));

/** The CSV the archive's reader makes of `file`'s one sheet. */
async function csvOf(file: Uint8Array): Promise<Buffer> {
  const [sheet] = await readSheets(file);
  return Buffer.from(sheet!.csv, 'utf8');
}

/** `staging`, each upload of which is changed by `around` (the real upload is its argument). */
const wrapped = (staging: StagingArea, around: (upload: StagedUpload) => Partial<StagedUpload>): StagingArea => ({
  ...staging,
  begin() {
    const upload = staging.begin();
    return { ...upload, ...around(upload) };
  },
});

describe.each(testEngines())('sheet previews through staging on %s', (engine) => {
  let database: TestDatabase;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  let stagingDir: string;
  let staging: StagingArea;

  beforeEach(async () => {
    database = await createTestDatabase(engine);
    blocks = await createTestStore();
    stagingDir = `${blocks.dir}-staging`;
    staging = createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(database.db) });
  });
  afterEach(async () => {
    await database.destroy();
    await blocks.destroy();
    await fs.rm(stagingDir, { recursive: true, force: true });
  });

  /** A spreadsheet record of `file`, stored, and its extraction source. */
  const recordOf = async (file: Uint8Array, title: string) => {
    const { cid } = await blocks.store.add(file);
    const [record] = await database.db
      .insert(alexandrias)
      .values({ title, type: 'xlsx', formats: ['xlsx'], cid, originKey: `test:${title}` })
      .returning({ id: alexandrias.id });
    return { db: database.db, store: blocks.store, staging, alexandriaId: record!.id, cid, type: 'xlsx' };
  };
  const textOf = async (cid: string) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of blocks.store.cat(cid)) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  };
  /** Every block file in the store. */
  const storeFiles = async () => {
    const entries = await fs.readdir(blocks.dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)).sort();
  };
  const stagingLeft = () => fs.readdir(stagingDir).catch(() => []);
  /** `work`'s result and what it logged as warnings. */
  const warnings = async <T>(work: () => Promise<T>) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const result = await work();
      return { result, messages: warn.mock.calls.map((call) => String(call[0])) };
    } finally {
      warn.mockRestore();
    }
  };

  it('a CSV committed while another upload of the same bytes is undone keeps its blocks', async () => {
    const file = sheetOf(1001);
    const source = await recordOf(file, 'carrera');
    const csv = await csvOf(file);
    // Another upload of the same bytes moved them into the store, and its record failed: its undo is due.
    const other = staging.begin();
    const { cid } = await other.add(csv);
    await expect(
      database.db.transaction(async (tx) => {
        await other.commit(tx);
        throw new Error('el registro no se pudo escribir');
      }),
    ).rejects.toThrow('el registro no se pudo escribir');
    expect(await blocks.store.has(cid)).toBe(true);

    // The extraction stops once its CSV is moved (the blocks were there: it journals none), its row not yet committed.
    const moved = gate();
    const resume = gate();
    const pausing = wrapped(staging, (upload) => ({
      async commit(tx) {
        await upload.commit(tx);
        moved.open();
        await resume.opened;
      },
    }));
    try {
      const extracting = extractSheetPreviews({ ...source, staging: pausing });
      await moved.opened;
      // The undo waits for the extraction's transaction (its lock on the file), rather than deciding now.
      const undoing = other.discard();
      const undone = settled(undoing);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(undone.done).toBe(false);
      resume.open();
      const previews = await extracting;
      await undoing;
      expect(previews).toEqual([expect.objectContaining({ index: 0, cid, rows: 1, columns: 2 })]);
    } finally {
      // A failed expectation must not leave the extraction's transaction open.
      resume.open();
    }
    // The undo found the preview's row holding the file, and took nothing.
    expect(await textOf(cid)).toBe(csv.toString('utf8'));
    expect(await stagingLeft()).toEqual([]);
  });

  it('rows that cannot be written fail the extraction (its job tries again), with nothing staged and nothing in the store', async () => {
    const file = sheetOf(1002);
    const { cid } = await blocks.store.add(file);
    const csvCid = (await cidOf(await csvOf(file))).cid;
    const before = await storeFiles();
    // A record that is gone (deleted meanwhile): its rows break the foreign key.
    const { result, messages } = await warnings(() =>
      extractSheetPreviews({ db: database.db, store: blocks.store, staging, alexandriaId: 2_000_000_000, cid, type: 'xlsx' }).catch((error: unknown) => error),
    );
    // Not the file's fault: thrown, so that the job is not done without previews for good.
    expect(String(result)).toMatch(/sheet_previews/);
    expect(messages).toEqual([]);
    expect(await blocks.store.has(csvCid)).toBe(false);
    expect(await storeFiles()).toEqual(before);
    expect(await stagingLeft()).toEqual([]);
  });

  it('a transaction that fails after the move takes the CSV back out of the store, and fails the extraction', async () => {
    const file = sheetOf(1003);
    const source = await recordOf(file, 'falla tras mover');
    const csvCid = (await cidOf(await csvOf(file))).cid;
    const before = await storeFiles();
    let movedIn = false;
    const failing = wrapped(staging, (upload) => ({
      async commit(tx) {
        await upload.commit(tx);
        movedIn = await blocks.store.has(csvCid);
        throw new Error('la base de datos no confirmó');
      },
    }));
    const { result, messages } = await warnings(() => extractSheetPreviews({ ...source, staging: failing }).catch((error: unknown) => error));
    expect(movedIn).toBe(true);
    expect(result).toEqual(new Error('la base de datos no confirmó'));
    expect(messages).toEqual([]);
    expect(await sheetPreviewsOf(database.db, source.alexandriaId)).toEqual([]);
    expect(await blocks.store.has(csvCid)).toBe(false);
    expect(await storeFiles()).toEqual(before);
    expect(await stagingLeft()).toEqual([]);
  });

  it('a failure that may pass fails the job\'s attempt, so the next attempt makes the previews', async () => {
    const file = sheetOf(1005);
    const source = await recordOf(file, 'reintento');
    let failuresLeft = 1;
    const flaky = wrapped(staging, (upload) => ({
      async commit(tx) {
        if (failuresLeft-- > 0) throw new Error('el disco de la espera no respondió');
        await upload.commit(tx);
      },
    }));
    const handle = sheetPreviewsHandler({ store: blocks.store, staging: flaky });
    // The job as the queue hands it over; only its payload matters to the handler.
    const job = { ...sheetPreviewsJob(source.alexandriaId, source.cid), id: 1, attempts: 1 } as unknown as Job;
    const context = { db: database.db, signal: new AbortController().signal };
    await expect(handle(job, context)).rejects.toThrow('el disco de la espera no respondió');
    expect(await sheetPreviewsOf(database.db, source.alexandriaId)).toEqual([]);
    expect(await stagingLeft()).toEqual([]);
    await handle(job, context);
    const previews = await sheetPreviewsOf(database.db, source.alexandriaId);
    expect(previews).toHaveLength(1);
    expect(await textOf(previews[0]!.cid)).toBe((await csvOf(file)).toString('utf8'));
  });

  it('an extraction another one beat answers the winner\'s previews, and its own CSV never enters the store', async () => {
    const file = sheetOf(1004);
    const source = await recordOf(file, 'perdedora');
    const csvCid = (await cidOf(await csvOf(file))).cid;
    // The winner (another server, other limits) committed a different CSV while this one read the file.
    const winner = await blocks.store.add(new TextEncoder().encode('1004\r\n'));
    const beaten = wrapped(staging, (upload) => ({
      async add(bytes) {
        const added = await upload.add(bytes);
        await database.db.insert(sheetPreviews).values({ alexandriaId: source.alexandriaId, sheetIndex: 0, name: 'Hoja1', cid: winner.cid, rowCount: 1, columnCount: 1 });
        return added;
      },
    }));
    const before = await storeFiles();
    const { result, messages } = await warnings(() => extractSheetPreviews({ ...source, staging: beaten }));
    expect(messages).toEqual([]);
    expect(result).toEqual([expect.objectContaining({ index: 0, cid: winner.cid, rows: 1, columns: 1 })]);
    expect(await database.db.$count(sheetPreviews, eq(sheetPreviews.alexandriaId, source.alexandriaId))).toBe(1);
    expect(await blocks.store.has(csvCid)).toBe(false);
    expect(await storeFiles()).toEqual(before);
    expect(await stagingLeft()).toEqual([]);
  });
});
