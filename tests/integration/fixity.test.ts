/**
 * The fixity audit (issue #19), on both engines, over the real seeded catalogue and its store: a
 * pass over an intact store finds nothing, paced slices read a bounded share and resume where the
 * last one stopped; a block altered on disk is caught, its record marked broken with the reason in
 * its history, a re-capture of its URL queued, and /preservacion's figures say so.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { alexandrias, fixityFailures, fixityRuns, jobs, statusHistory } from '../../src/lib/server/db/schema.ts';
import { auditSlice, FIXITY_JOB, fixityHandler, queueDueFixity, sliceBudget, type FixityJobPayload } from '../../src/lib/server/fixity/index.ts';
import { storedFilesAfter, storedFileTotals } from '../../src/lib/server/fixity/files.ts';
import { runWorker } from '../../src/lib/server/jobs/index.ts';
import { loadPreservation } from '../../src/lib/server/queries/preservation.ts';
import type { ContentStore } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { recordsWithFiles, watchRecords, type SeededRecord } from '../helpers/watched-records.ts';

/** A period so short that one slice reads the whole store and the next pass is due at once. */
const AT_ONCE = { periodDays: 1e-9 };

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe.each(testEngines())('the fixity audit on %s', (engine) => {
  let archive: TestDatabase & { store: ContentStore };
  let storeDir: string;
  let records: SeededRecord[];
  let damaged: SeededRecord;

  beforeAll(async () => {
    // The seeded catalogue with a copy of its store in a folder the test knows, to alter a block there.
    const database = await createTestDatabase(engine, 'seeded');
    const blocks = await createTestStore(inject('databaseTemplates').blocks);
    archive = { ...database, store: blocks.store, destroy: async () => { await database.destroy(); await blocks.destroy(); } };
    storeDir = blocks.dir;
    records = await recordsWithFiles(archive.db);
    // The smallest file: one block, so altering it alters the file's only block.
    damaged = [...records].sort((a, b) => (a.fileSize ?? 0) - (b.fileSize ?? 0))[0]!;
    await watchRecords(archive.db, [damaged]);
  });
  afterAll(() => archive?.destroy());

  /** The bytes of `cid`'s root block, as the store gives them. */
  async function blockBytes(cid: string): Promise<Buffer> {
    for await (const block of archive.store.blocks(cid)) return Buffer.from(block.bytes);
    throw new Error('no block');
  }

  async function blockFile(dir: string, cid: string): Promise<string> {
    const wanted = await blockBytes(cid);
    const digest = createHash('sha256').update(wanted).digest('hex');
    for (const file of await filesUnder(dir)) {
      if (createHash('sha256').update(await fs.readFile(file)).digest('hex') === digest) return file;
    }
    throw new Error(`no block file of ${cid} in ${dir}`);
  }

  /** Runs the queue's fixity jobs until none is left (bounded). */
  async function runFixityJobs(settings = AT_ONCE): Promise<void> {
    const stop = new AbortController();
    const errors: unknown[] = [];
    const worker = runWorker({
      db: archive.db,
      handlers: { [FIXITY_JOB]: fixityHandler({ store: archive.store, settings }) },
      signal: stop.signal,
      pollMs: 20,
      onError: (error) => errors.push(error),
    });
    const deadline = Date.now() + 30_000;
    try {
      for (;;) {
        const left = await archive.db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.kind, FIXITY_JOB), inArray(jobs.status, ['queued', 'running'])));
        if (left.length === 0) break;
        if (Date.now() > deadline) throw new Error('fixity jobs still pending');
        await sleep(25);
      }
    } finally {
      stop.abort();
      await worker;
    }
    expect(errors).toEqual([]);
    const failed = await archive.db.select().from(jobs).where(and(eq(jobs.kind, FIXITY_JOB), eq(jobs.status, 'failed')));
    expect(failed).toEqual([]);
  }

  it('lists every stored file once, in CID order, whatever the batch size', async () => {
    const totals = await storedFileTotals(archive.db);
    const whole = await storedFilesAfter(archive.db, null, 100_000);
    expect(whole).toHaveLength(totals.files);
    expect(whole.reduce((sum, file) => sum + file.size, 0)).toBe(totals.bytes);
    for (const size of [1, 3, 7]) {
      const paged: typeof whole = [];
      for (let cursor: string | null = null; ; ) {
        const batch = await storedFilesAfter(archive.db, cursor, size);
        if (batch.length === 0) break;
        paged.push(...batch);
        cursor = batch.at(-1)!.cid;
      }
      expect(paged, `batches of ${size}`).toEqual(whole);
    }
    expect(whole.map((file) => file.cid)).toEqual([...whole.map((file) => file.cid)].sort());
  });

  it('paces a pass: a slice reads its share of the bytes, and the next waits its turn', async () => {
    const settings = { periodDays: 30 };
    expect(await queueDueFixity(archive.db, settings)).toBe(true);
    // One slice at a time: queued once, however often the schedule looks.
    expect(await queueDueFixity(archive.db, settings)).toBe(false);
    const [job] = await archive.db.select().from(jobs).where(eq(jobs.kind, FIXITY_JOB));
    const [run] = await archive.db.select().from(fixityRuns);
    const totals = await storedFileTotals(archive.db);
    expect(run).toMatchObject({ number: 1, filesTotal: totals.files, bytesTotal: totals.bytes, slices: 0, finishedAt: null });
    expect(totals.files).toBeGreaterThan(1);
    // 30 days of ten-minute slices: a share far smaller than any file, so one file per slice.
    expect(sliceBudget(totals.bytes, settings)).toBeLessThan(Math.min(...records.map((record) => record.fileSize ?? 0)));
    await runFixityJobs(settings);
    const [after] = await archive.db.select().from(fixityRuns);
    expect(after).toMatchObject({ filesChecked: 1, slices: 1, failures: 0, finishedAt: null });
    expect(after!.cursor).not.toBeNull();
    expect(await queueDueFixity(archive.db, settings)).toBe(false);
    // A slice already done is not done twice.
    expect(await auditSlice(archive.db, archive.store, settings, job!.payload as FixityJobPayload)).toBeNull();
  });

  it('finishes a pass over an intact store with every file read and no failure, in its period even if the store grew', async () => {
    // As if the pass began almost 30 days ago on an empty store: one slice is left, and it reads the rest.
    await archive.db.update(fixityRuns).set({ bytesTotal: 1, startedAt: sql`now() - interval '30 days' + interval '5 minutes'` });
    const [run] = await archive.db.select().from(fixityRuns);
    const report = await auditSlice(archive.db, archive.store, { periodDays: 30 }, { runId: run!.id, slice: run!.slices });
    expect(report).toMatchObject({ failures: 0, finished: true });
    const [done] = await archive.db.select().from(fixityRuns);
    const totals = await storedFileTotals(archive.db);
    expect(done!.filesChecked).toBe(totals.files);
    expect(done!.bytesChecked).toBeGreaterThanOrEqual(totals.bytes);
    expect(done!.finishedAt).toBeInstanceOf(Date);
    expect(await archive.db.select().from(fixityFailures)).toEqual([]);
    const statuses = await archive.db.select({ status: alexandrias.status }).from(alexandrias).where(inArray(alexandrias.id, records.map((record) => record.id)));
    expect(statuses.every((row) => row.status === 'on_line')).toBe(true);
  });

  it('catches a block altered on disk: the record is broken with the reason in its history, and captured again', async () => {
    const file = await blockFile(storeDir, damaged.cid);
    const bytes = await fs.readFile(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    await fs.writeFile(file, bytes);

    // The last pass began a period ago (a very short period here): the next one starts.
    expect(await queueDueFixity(archive.db, AT_ONCE)).toBe(true);
    await runFixityJobs();
    const [second] = await archive.db.select().from(fixityRuns).where(eq(fixityRuns.number, 2));
    expect(second).toMatchObject({ failures: 1 });
    expect(second!.finishedAt).toBeInstanceOf(Date);

    const failures = await archive.db.select().from(fixityFailures);
    expect(failures).toMatchObject([{ runId: second!.id, cid: damaged.cid, kind: 'corrupt' }]);
    const [record] = await archive.db.select({ status: alexandrias.status }).from(alexandrias).where(eq(alexandrias.id, damaged.id));
    expect(record!.status).toBe('broken');
    const history = await archive.db.select().from(statusHistory).where(eq(statusHistory.alexandriaId, damaged.id)).orderBy(asc(statusHistory.id));
    expect(history.at(-1)).toMatchObject({ fromStatus: 'on_line', toStatus: 'broken', actor: null });
    expect(history.at(-1)!.reason).toMatch(/^Auditoría de integridad del \d\d\/\d\d\/\d{4}: el bloque \S+ ya no coincide con su hash SHA-256/);

    const recaptures = await archive.db.select().from(jobs).where(eq(jobs.kind, 'capture'));
    expect(recaptures).toHaveLength(1);
    expect(recaptures[0]).toMatchObject({ status: 'queued', payload: { alexandriaId: damaged.id, url: `http://127.0.0.1:9/portal/files/${damaged.id}.csv`, repair: true } });

    // Every other record is untouched.
    const others = await archive.db.select({ status: alexandrias.status }).from(alexandrias).where(inArray(alexandrias.id, records.filter((item) => item.id !== damaged.id).map((item) => item.id)));
    expect(others.every((row) => row.status === 'on_line')).toBe(true);
  });

  it('shows the audit on the preservation record', async () => {
    const totals = await storedFileTotals(archive.db);
    const record = await loadPreservation(archive.db);
    expect(record.latestPass).toMatchObject({ number: 2, filesChecked: totals.files, failures: 1 });
    expect(record.latestPass!.lastReadAt).toBeInstanceOf(Date);
    expect(record.lastCompletePass?.number).toBe(2);
    expect(record.failuresEver).toBe(1);
    expect(record.recentFailures).toMatchObject([{ cid: damaged.cid }]);
    expect(record.recentFailures[0]!.reason).toContain('ya no coincide con su hash');
    expect(record.watchedUrls).toBe(1);
    expect(record.disappeared).toBe(0);
    // The seed keeps no versions; a capture's v1 would count here.
    expect(record.versions).toEqual({ total: 0, older: 0 });
  });
});
