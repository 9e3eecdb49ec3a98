/**
 * A record's versions as the public reads them (issue #19), on both engines: a seeded CSV record
 * gets a second version (a real fixture, then an edited copy: a column renamed, rows changed and
 * added, one removed), the archive's `version-diff` job compares them, and the record page's data
 * and GET /v2/open-data/alexandrias/{id}/versions list both versions, with what changed equal to
 * an independent computation; an unknown record is a 404, a record never captured has none.
 */
import { createHash } from 'node:crypto';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest } from '../../src/lib/server/api/rest.ts';
import { createGraphqlHandler } from '../../src/lib/server/graphql/index.ts';
import { alexandrias, captures, jobs, recordVersions } from '../../src/lib/server/db/schema.ts';
import { loadRecord } from '../../src/lib/server/queries/pages.ts';
import { currentRecordOfVersion } from '../../src/lib/server/queries/versions.ts';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { alexandriaVersions } from '../../src/lib/server/versions/endpoint.ts';
import { addVersion, addVersions, VERSION_DIFF_JOB, versionDiffHandler } from '../../src/lib/server/versions/index.ts';
import { drainJobs } from '../helpers/jobs.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { expectedChanges } from '../helpers/table-changes.ts';

const ORIGIN = 'https://archivo.test';
const FILE_NAME = 'empresas-servicios-turisticos-mitur-2018-2025.csv';

/** The edited copy: a column renamed, two rows changed, one removed, two added. */
function editedCopy(original: string): string {
  const lines = original.split('\n');
  lines[0] = lines[0]!.replace('Licencias Nuevas', 'Licencias nuevas otorgadas');
  lines[3] = lines[3]!.replace('Hoteles,0,8', 'Hoteles,0,80');
  lines[7] = lines[7]!.replace(/,\d+,0,0,/, ',123,0,0,');
  lines.splice(10, 1);
  const end = lines.at(-1) === '' ? lines.length - 1 : lines.length;
  lines.splice(end, 0, 'Hoteles,1,2,0,0,Octubre-Diciembre,2026', 'Gift Shop,3,4,0,0,Octubre-Diciembre,2026');
  return lines.join('\n');
}

describe.each(testEngines())('a record’s versions on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  let record: { id: number; cid: string };
  let other: { id: number; cid: string };
  let original: Buffer;
  let edited: Buffer;
  let v2Cid: string;

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    const [found] = await seeded.db.select({ id: alexandrias.id, cid: alexandrias.cid }).from(alexandrias).where(eq(alexandrias.fileName, FILE_NAME));
    record = { id: found!.id, cid: found!.cid! };
    const [another] = await seeded.db
      .select({ id: alexandrias.id, cid: alexandrias.cid })
      .from(alexandrias)
      .where(and(eq(alexandrias.type, 'pdf'), eq(alexandrias.status, 'on_line'), isNotNull(alexandrias.cid)))
      .limit(1);
    other = { id: another!.id, cid: another!.cid! };
    const chunks: Uint8Array[] = [];
    for await (const chunk of seeded.store.cat(record.cid)) chunks.push(chunk);
    original = Buffer.concat(chunks);
    edited = Buffer.from(editedCopy(original.toString('utf8')));
    v2Cid = (await seeded.store.add([edited])).cid;
    expect(v2Cid).toBe((await cidOf(edited)).cid);
    // v1 the seeded file, v2 the edited copy from a capture, the record pointing at the newest: as a recheck leaves them.
    await seeded.db.transaction(async (tx) => {
      const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
      await addVersion(tx, { alexandriaId: record.id, cid: record.cid, sha256: sha256(original), size: original.length, type: 'csv', mimeType: 'text/csv', fileName: FILE_NAME, captureId: null });
      const [capture] = await tx
        .insert(captures)
        .values({ alexandriaId: record.id, requestedUrl: 'https://datos.example.do/licencias.csv', finalUrl: 'https://datos.example.do/licencias.csv', status: 200, etag: '"v2"', lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT', cid: v2Cid })
        .returning({ id: captures.id });
      await addVersion(tx, { alexandriaId: record.id, cid: v2Cid, sha256: sha256(edited), size: edited.length, type: 'csv', mimeType: 'text/csv', fileName: FILE_NAME, captureId: capture!.id });
      await tx.update(alexandrias).set({ cid: v2Cid, fileSize: edited.length }).where(eq(alexandrias.id, record.id));
    });
  });
  afterAll(() => seeded?.destroy());

  /** Runs the `version-diff` jobs until none is queued or running (bounded). */
  async function compareQueued(timeoutMs = 30_000): Promise<void> {
    expect(await drainJobs(seeded.db, { [VERSION_DIFF_JOB]: versionDiffHandler(seeded.store) }, { timeoutMs })).toEqual([]);
  }

  const versionsRead = async (id: number | string) => {
    const response = await rest(() => alexandriaVersions({ db: seeded.db, origin: ORIGIN }, String(id)));
    const envelope = (await response.json()) as { code: number; body: string; message?: string };
    return { status: response.status, envelope, versions: envelope.code === 200 ? (JSON.parse(envelope.body) as Array<Record<string, unknown>>) : null };
  };

  it('says the comparison is pending until the job has run', async () => {
    const page = await loadRecord(seeded.db, v2Cid, record.id);
    expect(page?.versions.map((version) => [version.number, version.diffStatus])).toEqual([
      [1, 'none'],
      [2, 'pending'],
    ]);
    const { versions } = await versionsRead(record.id);
    expect(versions?.[1]).toMatchObject({ number: 2, diff: null, diffStatus: 'pending' });
  });

  it('lists both versions on the record page, with what changed equal to an independent computation', async () => {
    await compareQueued();
    const page = await loadRecord(seeded.db, v2Cid, record.id);
    const [first, second] = page!.versions;
    expect(first).toMatchObject({ number: 1, cid: record.cid, size: original.length, diff: null, capture: null });
    const expected = expectedChanges(original.toString('utf8'), edited.toString('utf8'));
    expect(expected).toEqual({ columnsAdded: ['Licencias nuevas otorgadas'], columnsRemoved: ['Licencias Nuevas'], rowsAdded: 2, rowsRemoved: 1, rowsChanged: 2 });
    expect(second).toMatchObject({ number: 2, cid: v2Cid, size: edited.length, diffStatus: 'done', diff: { kind: 'table', typeBefore: 'csv', typeAfter: 'csv', sizeBefore: original.length, sizeAfter: edited.length, ...expected } });
    // The sample: daff's header, then the five rows that changed, the edited cells as "before->after".
    const [header, ...rows] = second!.diff!.sample!;
    expect(header).toEqual(expect.arrayContaining(['@@', 'Empresa o Servicio', 'Licencias nuevas otorgadas', 'Licencias Nuevas']));
    expect(rows.map((row) => row[0]).sort()).toEqual(['+++', '+++', '---', '->', '->']);
    expect(rows.find((row) => row[0] === '->' && row[1] === 'Hoteles')).toContain('8->80');
  });

  it('answers the versions in REST, oldest first, each with its download by CID and its capture', async () => {
    const { status, versions } = await versionsRead(record.id);
    expect(status).toBe(200);
    expect(versions).toHaveLength(2);
    expect(versions![0]).toMatchObject({ number: 1, cid: record.cid, size: original.length, type: 'csv', url: `${ORIGIN}/ipfs/${record.cid}`, capture: null, diff: null, diffStatus: 'none' });
    expect(versions![1]).toMatchObject({
      number: 2,
      cid: v2Cid,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      url: `${ORIGIN}/ipfs/${v2Cid}`,
      capture: { finalUrl: 'https://datos.example.do/licencias.csv', status: 200, etag: '"v2"', lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT' },
      diffStatus: 'done',
      diff: { kind: 'table', rowsAdded: 2, rowsRemoved: 1, rowsChanged: 2 },
    });
    expect(new Date(versions![1]!.capturedAt as string).getTime()).not.toBeNaN();
  });

  it('answers the versions in GraphQL, for several records in one query', async () => {
    const yoga = createGraphqlHandler(async () => seeded.db);
    const response = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({
          query: `fragment V on Alexandria { id versions { number cid url size capture { status etag } diffStatus diff { kind rowsAdded rowsRemoved rowsChanged columnsAdded columnsRemoved sample } } }
            query ($a: ID!, $b: ID!) { a: alexandrias(where: { id: $a }) { ...V } b: alexandrias(where: { id: $b }) { ...V } }`,
          variables: { a: String(record.id), b: String(other.id) },
        }),
      }),
    );
    type Rows = Array<{ id: string; versions: Array<Record<string, any>> }>;
    const answer = (await response.json()) as { data?: { a: Rows; b: Rows }; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    const byId = new Map([...answer.data!.a, ...answer.data!.b].map((row) => [Number(row.id), row.versions]));
    expect(byId.get(other.id)).toEqual([]);
    const versions = byId.get(record.id)!;
    expect(versions.map((version) => version.number)).toEqual([1, 2]);
    expect(versions[0]).toMatchObject({ cid: record.cid, url: `${ORIGIN}/ipfs/${record.cid}`, capture: null, diff: null, diffStatus: 'none' });
    expect(versions[1]).toMatchObject({ cid: v2Cid, capture: { status: 200, etag: '"v2"' }, diffStatus: 'done', diff: { kind: 'table', rowsAdded: 2, rowsRemoved: 1, rowsChanged: 2 } });
    expect(versions[1]!.diff.sample[0]).toContain('@@');
  });

  it('quotes nothing of a blocked record\'s file in what changed: counts only', async () => {
    await seeded.db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, record.id));
    try {
      const { versions } = await versionsRead(record.id);
      expect(versions![1]!.diff).toMatchObject({ kind: 'table', rowsAdded: 2, rowsRemoved: 1, rowsChanged: 2 });
      expect(versions![1]!.diff).not.toHaveProperty('sample');
      expect(versions![1]!.diff).not.toHaveProperty('columnsAdded');
      expect(versions![1]!.diff).not.toHaveProperty('columnsRemoved');
    } finally {
      await seeded.db.update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, record.id));
    }
  });

  it('finds the record of an earlier version\'s CID, for the links shared before its file changed', async () => {
    expect(await currentRecordOfVersion(seeded.db, record.cid, record.id)).toEqual({ id: record.id, cid: v2Cid });
    expect(await currentRecordOfVersion(seeded.db, record.cid, null)).toEqual({ id: record.id, cid: v2Cid });
    expect(await currentRecordOfVersion(seeded.db, record.cid, other.id)).toBeNull();
    expect(await currentRecordOfVersion(seeded.db, 'bafkqaaa', null)).toBeNull();
    // Through the API too, as the original client's `where: { cid }` and REST's `?cid=` ask: the
    // record, with its current file.
    const yoga = createGraphqlHandler(async () => seeded.db);
    const response = await yoga.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ query: 'query ($cid: String) { alexandrias(where: { cid: $cid }) { id cid } alexandriasConnection(where: { cid: $cid }) { aggregate { count } } }', variables: { cid: record.cid } }),
      }),
    );
    const answer = (await response.json()) as { data?: { alexandrias: Array<{ id: string; cid: string }>; alexandriasConnection: { aggregate: { count: number } } }; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ alexandrias: [{ id: String(record.id), cid: v2Cid }], alexandriasConnection: { aggregate: { count: 1 } } });
  });

  it('answers [] for a record never captured, and 404 for one that does not exist', async () => {
    expect((await versionsRead(other.id)).versions).toEqual([]);
    expect((await loadRecord(seeded.db, other.cid, other.id))?.versions).toEqual([]);
    const missing = await versionsRead(999_999);
    expect(missing.status).toBe(404);
    expect(missing.envelope).toMatchObject({ code: 404, message: 'Ese registro no existe.' });
    expect((await versionsRead('abc')).status).toBe(404);
  });

  it('numbers the versions of several records in one statement, two of one record in the order given', async () => {
    const version = (alexandriaId: number, cid: string) => ({ alexandriaId, cid, sha256: 'a'.repeat(64), size: 1, type: 'csv' as const, mimeType: 'text/csv', fileName: 'x.csv', captureId: null });
    const rolledBack = new Error('deshecho por la prueba');
    await expect(
      seeded.db.transaction(async (tx) => {
        const diffsBefore = await tx.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, VERSION_DIFF_JOB));
        // `record` has v1 and v2 already; `other` none.
        const added = await addVersions(tx, [version(other.id, other.cid), version(record.id, v2Cid), version(other.id, record.cid)]);
        expect(added.map((one) => one.number)).toEqual([1, 3, 2]);
        const rows = await tx.select().from(recordVersions).where(inArray(recordVersions.id, added.map((one) => one.id)));
        expect(rows.map((row) => [row.alexandriaId, row.number, row.cid, row.diffStatus]).sort()).toEqual(
          [
            [other.id, 1, other.cid, 'none'],
            [other.id, 2, record.cid, 'pending'],
            [record.id, 3, v2Cid, 'pending'],
          ].sort(),
        );
        // A comparison is queued for each version after a first.
        const diffs = await tx.select({ payload: jobs.payload }).from(jobs).where(eq(jobs.kind, VERSION_DIFF_JOB));
        expect(diffs.length - diffsBefore.length).toBe(2);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});
