/**
 * The bulk exports (`/export/catalogo.csv`, `/export/catalogo.json`): parsed back with papaparse and
 * JSON.parse and compared with the database; the formula guard; the cached file and when it is
 * written again; conditional requests.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, categories, departments, harvestedRecords, sources } from '../../src/lib/server/db/schema.ts';
import {
  cachedExport,
  EXPORT_COLUMNS,
  exportResponse,
  type ExportFormat,
} from '../../src/lib/server/export/catalog-export.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const ORIGIN = 'https://archivo.example';
const HEADER = 'id,cid,titulo,descripcion,formato,estado,institucion,categoria,fuente,url_fuente,url_descarga,tamano_bytes,sha256,cartera,creado,actualizado,licencia,url_licencia,palabras_clave,retirado_del_catalogo,desaparecido_en_origen,url_original';

/** Cells a spreadsheet would run as formulas, and text that must survive the CSV quoting. */
const FORMULA = '=HYPERLINK("http://malo.example","clic")';
const TRICKY = 'Informe "anual", 2024\r\nsegunda línea; <script>alert(1)</script> — ñandú';

type Row = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

describe.each(testEngines())('the catalogue exports on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  let dataDir: string;
  const ids = {} as { formula: number; plus: number; at: number; minus: number; tricky: number; blocked: number };

  const options = (format: ExportFormat, origin = ORIGIN) => ({ db: seeded.db, dataDir, origin, format });

  /** What the export should say, read from the database on its own terms (not through the export's code). */
  async function expectedRows(): Promise<Row[]> {
    const rows = await seeded.db
      .select({ record: alexandrias, department: departments.name, category: categories.title, source: sources.name, harvested: harvestedRecords })
      .from(alexandrias)
      .leftJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
      .leftJoin(departments, eq(departments.id, alexandrias.departmentId))
      .leftJoin(categories, eq(categories.id, alexandrias.categoryId))
      .leftJoin(sources, eq(sources.id, alexandrias.sourceId))
      .where(inArray(alexandrias.status, ['on_line', 'under_review']))
      .orderBy(asc(alexandrias.id));
    return rows.map(({ record, department, category, source, harvested }) => ({
      id: record.id,
      cid: record.cid,
      titulo: record.title,
      descripcion: record.description,
      formato: record.type,
      estado: record.status,
      institucion: department,
      categoria: category,
      fuente: source,
      url_fuente: record.sourceUrl,
      url_descarga: record.cid ? `${ORIGIN}/ipfs/${record.cid}` : null,
      tamano_bytes: record.fileSize,
      sha256: record.fileSha256,
      cartera: record.walletAddress,
      creado: record.createdAt.toISOString(),
      actualizado: record.updatedAt.toISOString(),
      licencia: record.licenseTitle,
      url_licencia: record.licenseUrl,
      palabras_clave: record.keywords.length > 0 ? record.keywords.join('; ') : null,
      retirado_del_catalogo: harvested?.withdrawnAt?.toISOString() ?? null,
      desaparecido_en_origen: harvested?.goneSince?.toISOString() ?? null,
      url_original: record.originalUrl,
    }));
  }

  /** A row as a spreadsheet user gets it back from the CSV: text, formula starts defused. */
  const asCsvCells = (row: Row) =>
    Object.fromEntries(
      Object.entries(row).map(([column, value]) => {
        if (value === null) return [column, ''];
        if (typeof value === 'number') return [column, String(value)];
        return [column, /^[=+\-@\t\r]/.test(value) ? `'${value}` : value];
      }),
    );

  async function readCsv(file: string) {
    const bytes = await fs.readFile(file);
    const text = bytes.toString('utf8');
    return { bytes, text, parsed: Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true }) };
  }

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-export-'));
    const first = await seeded.db.select({ id: alexandrias.id }).from(alexandrias).orderBy(asc(alexandrias.id)).limit(6);
    const [formula, plus, at, minus, tricky, blocked] = first.map((row) => row.id) as [number, number, number, number, number, number];
    Object.assign(ids, { formula, plus, at, minus, tricky, blocked });
    const db = seeded.db;
    await db.update(alexandrias).set({ title: FORMULA, description: '-2+3' }).where(eq(alexandrias.id, formula));
    await db.update(alexandrias).set({ title: '+1 809 000 0000' }).where(eq(alexandrias.id, plus));
    await db.update(alexandrias).set({ title: '@SUM(A1:A9)', walletAddress: '0x71c7656ec7ab88b098defb751b7401b5f6d8976f' }).where(eq(alexandrias.id, at));
    await db.update(alexandrias).set({ title: '-10 %', description: '\tcon tabulador' }).where(eq(alexandrias.id, minus));
    await db.update(alexandrias).set({ title: TRICKY, description: `${TRICKY}\n"otra"` }).where(eq(alexandrias.id, tricky));
    // What a harvested record's catalogue declared: its licence and keywords (the seed's export declares none).
    await db
      .update(alexandrias)
      .set({
        licenseTitle: 'Creative Commons Atribución 4.0',
        licenseUrl: 'https://creativecommons.org/licenses/by/4.0/',
        keywords: ['presupuesto', 'ejecución mensual'],
        originalUrl: 'https://datos.gob.do/dataset/presupuesto/resource/1/download/ejecucion.csv',
      })
      .where(eq(alexandrias.id, plus));
    await db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, blocked));
  });
  afterAll(async () => {
    await seeded?.destroy();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('writes a CSV with a byte-order mark, the Spanish header and CRLF line ends that parses back to the database rows', async () => {
    const file = await cachedExport(options('csv'));
    expect(file.path.startsWith(path.join(dataDir, 'exports'))).toBe(true);
    const { bytes, text, parsed } = await readCsv(file.path);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text.slice(1).startsWith(`${HEADER}\r\n`)).toBe(true);
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([...EXPORT_COLUMNS]);

    const expected = await expectedRows();
    expect(expected).toHaveLength(1075);
    expect(parsed.data).toEqual(expected.map(asCsvCells));
    expect(parsed.data.find((row) => row.id === String(ids.plus))).toMatchObject({
      licencia: 'Creative Commons Atribución 4.0',
      url_licencia: 'https://creativecommons.org/licenses/by/4.0/',
      palabras_clave: 'presupuesto; ejecución mensual',
      url_original: 'https://datos.gob.do/dataset/presupuesto/resource/1/download/ejecucion.csv',
    });
    expect(parsed.data.some((row) => row.id === String(ids.blocked))).toBe(false);
    // Every record ends its line with CRLF, the line breaks inside the quoted text aside.
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.split('\r\n').length).toBeGreaterThan(expected.length);
  });

  it('defuses cells a spreadsheet would run as formulas, and keeps text with quotes and line breaks whole', async () => {
    const { parsed } = await readCsv((await cachedExport(options('csv'))).path);
    const row = (id: number) => parsed.data.find((candidate) => candidate.id === String(id))!;
    expect(row(ids.formula).titulo).toBe(`'${FORMULA}`);
    expect(row(ids.formula).descripcion).toBe("'-2+3");
    expect(row(ids.plus).titulo).toBe("'+1 809 000 0000");
    expect(row(ids.at).titulo).toBe("'@SUM(A1:A9)");
    expect(row(ids.at).cartera).toBe('0x71c7656ec7ab88b098defb751b7401b5f6d8976f');
    expect(row(ids.minus).titulo).toBe("'-10 %");
    expect(row(ids.minus).descripcion).toBe("'\tcon tabulador");
    expect(row(ids.tricky).titulo).toBe(TRICKY);
    expect(row(ids.tricky).descripcion).toBe(`${TRICKY}\n"otra"`);
    // The archived files carry their gateway link, size and checksum.
    const archived = parsed.data.filter((candidate) => candidate.cid !== '');
    expect(archived).toHaveLength(11);
    for (const file of archived) {
      expect(file.url_descarga).toBe(`${ORIGIN}/ipfs/${file.cid}`);
      expect(file.tamano_bytes).toMatch(/^\d+$/);
      expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('writes the same rows as a JSON array, with the text exactly as it is', async () => {
    const file = await cachedExport(options('json'));
    const rows = JSON.parse(await fs.readFile(file.path, 'utf8')) as Row[];
    expect(rows).toEqual(await expectedRows());
    expect(Object.keys(rows[0]!)).toEqual([...EXPORT_COLUMNS]);
    expect(rows.find((row) => row.id === ids.formula)!.titulo).toBe(FORMULA);
  });

  it('serves the cached file while the records stay the same, and writes a new one when they change', async () => {
    const first = await cachedExport(options('csv'));
    const again = await cachedExport(options('csv'));
    expect(again).toMatchObject({ built: false, path: first.path, etag: first.etag });
    expect(again.lastModified.getTime()).toBe(first.lastModified.getTime());

    // A record edited: a new file with the new text.
    await seeded.db.update(alexandrias).set({ title: 'Título corregido' }).where(eq(alexandrias.id, ids.plus));
    const edited = await cachedExport(options('csv'));
    expect(edited.built).toBe(true);
    expect(edited.etag).not.toBe(first.etag);
    expect((await readCsv(edited.path)).parsed.data.find((row) => row.id === String(ids.plus))!.titulo).toBe('Título corregido');
    expect(await cachedExport(options('csv'))).toMatchObject({ built: false, path: edited.path });

    // An institution renamed: its name is in every row of its records.
    const [record] = await seeded.db.select({ departmentId: alexandrias.departmentId }).from(alexandrias).where(eq(alexandrias.id, ids.tricky));
    await seeded.db.update(departments).set({ name: 'Institución renombrada' }).where(eq(departments.id, record!.departmentId!));
    const renamed = await cachedExport(options('csv'));
    expect(renamed.built).toBe(true);
    expect((await readCsv(renamed.path)).parsed.data.find((row) => row.id === String(ids.tricky))!.institucion).toBe('Institución renombrada');

    // A harvested record's origin stops serving its file, then another's dataset leaves its catalogue:
    // each date comes out in a new file (the change counter follows harvested_records' two dates).
    const [gone, withdrawn] = await seeded.db
      .select({ id: harvestedRecords.alexandriaId })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(inArray(alexandrias.status, ['on_line', 'under_review']))
      .orderBy(asc(harvestedRecords.alexandriaId))
      .limit(2);
    await seeded.db.update(harvestedRecords).set({ goneSince: new Date('2026-10-01T08:00:00Z') }).where(eq(harvestedRecords.alexandriaId, gone!.id));
    const goneFile = await cachedExport(options('csv'));
    expect(goneFile.built).toBe(true);
    expect((await readCsv(goneFile.path)).parsed.data.find((row) => row.id === String(gone!.id))).toMatchObject({ desaparecido_en_origen: '2026-10-01T08:00:00.000Z', retirado_del_catalogo: '' });
    await seeded.db.update(harvestedRecords).set({ withdrawnAt: new Date('2026-10-02T09:00:00Z') }).where(eq(harvestedRecords.alexandriaId, withdrawn!.id));
    const withdrawnFile = await cachedExport(options('json'));
    expect(JSON.parse(await fs.readFile(withdrawnFile.path, 'utf8')).find((row: Row) => row.id === withdrawn!.id)).toMatchObject({ retirado_del_catalogo: '2026-10-02T09:00:00.000Z', desaparecido_en_origen: null });
    expect((await cachedExport(options('csv'))).built).toBe(true);
    // A harvest run that finds every dataset still listed, or a check that finds a file still there,
    // names the dates without changing them: the export stands, and a harvester still gets its 304.
    await seeded.db.update(harvestedRecords).set({ withdrawnAt: null, goneSince: null }).where(and(isNull(harvestedRecords.withdrawnAt), isNull(harvestedRecords.goneSince)));
    await seeded.db.update(harvestedRecords).set({ withdrawnAt: new Date('2026-10-02T09:00:00Z') }).where(eq(harvestedRecords.alexandriaId, withdrawn!.id));
    expect((await cachedExport(options('csv'))).built).toBe(false);

    // A record deleted: one row fewer.
    await seeded.db.delete(alexandrias).where(eq(alexandrias.id, ids.minus));
    const deleted = await cachedExport(options('csv'));
    expect(deleted.built).toBe(true);
    const { parsed } = await readCsv(deleted.path);
    expect(parsed.data).toEqual((await expectedRows()).map(asCsvCells));
    expect(parsed.data).toHaveLength(1074);

    // Another origin writes links of its own.
    const elsewhere = await cachedExport(options('csv', 'https://espejo.example'));
    expect(elsewhere.built).toBe(true);
    expect(elsewhere.path).not.toBe(deleted.path);
  });

  it('clears away files of earlier data once they are old, and only files of its own format', async () => {
    const json = await cachedExport(options('json'));
    const csv = await cachedExport(options('csv'));
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
    await fs.utimes(json.path, anHourAgo, anHourAgo);
    await fs.utimes(csv.path, anHourAgo, anHourAgo);
    const abandoned = `${csv.path}.999.abandonado.tmp`;
    await fs.writeFile(abandoned, 'a medias');
    await fs.utimes(abandoned, anHourAgo, anHourAgo);

    await seeded.db.update(alexandrias).set({ title: 'Otra corrección' }).where(eq(alexandrias.id, ids.at));
    const next = await cachedExport(options('csv'));
    expect(next.built).toBe(true);
    const names = await fs.readdir(path.dirname(next.path));
    expect(names).toContain(path.basename(next.path));
    expect(names).not.toContain(path.basename(csv.path));
    expect(names).not.toContain(path.basename(abandoned));
    // The JSON of the earlier data is the JSON export's to replace, not the CSV's.
    expect(names).toContain(path.basename(json.path));
  });

  it('answers with the file, its validators and caching headers, and 304 to a current copy', async () => {
    const request = (headers: Record<string, string> = {}) => new Request(`${ORIGIN}/export/catalogo.csv`, { headers });
    const response = await exportResponse({ ...options('csv'), request: request() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="catalogo.csv"');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = response.headers.get('etag')!;
    const lastModified = response.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(new Date(lastModified).getTime()).not.toBeNaN();
    const body = new Uint8Array(await response.arrayBuffer());
    const file = await cachedExport(options('csv'));
    expect(Buffer.from(body).equals(await fs.readFile(file.path))).toBe(true);
    expect(response.headers.get('content-length')).toBe(String(body.byteLength));
    // A HEAD gets the same headers and no body: no file is kept open for a body Astro would throw away.
    const head = await exportResponse({ ...options('csv'), request: new Request(`${ORIGIN}/export/catalogo.csv`, { method: 'HEAD' }) });
    expect(head.body).toBeNull();
    expect(Object.fromEntries(head.headers)).toEqual(Object.fromEntries(response.headers));

    const byTag = await exportResponse({ ...options('csv'), request: request({ 'If-None-Match': `W/${etag}, "otro"` }) });
    expect(byTag.status).toBe(304);
    expect(byTag.headers.get('etag')).toBe(etag);
    const byDate = await exportResponse({ ...options('csv'), request: request({ 'If-Modified-Since': lastModified }) });
    expect(byDate.status).toBe(304);
    const stale = await exportResponse({ ...options('csv'), request: request({ 'If-Modified-Since': new Date(Date.parse(lastModified) - 3600_000).toUTCString() }) });
    expect(stale.status).toBe(200);
    await stale.body?.cancel();

    const json = await exportResponse({ ...options('json'), request: new Request(`${ORIGIN}/export/catalogo.json`) });
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((JSON.parse(await json.text()) as unknown[]).length).toBe((await expectedRows()).length);
  });
});
