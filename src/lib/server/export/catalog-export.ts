/**
 * Bulk exports of the catalogue's metadata (issue #9): `/export/catalogo.csv` and
 * `/export/catalogo.json`, one row per published record with Spanish column names.
 *
 * Regenerated on demand and cached: the first request writes the file under the data folder
 * (`exports/`), named by a hash of what it was built from (the catalogue's change counter, which
 * the database bumps with every change to what the export reads, the origin its links use, the
 * format and its version). A later request computes that hash again, one row read: the same hash
 * finds the file already written; any change to the records gives a new name, hence a new file.
 * The hash is also the ETag, and the file's time Last-Modified, so clients revalidate with a 304.
 *
 * The CSV is what spreadsheet users open: UTF-8 with a byte-order mark (so Excel reads the accents),
 * comma-separated, quoted as RFC 4180 says, CRLF line ends. A cell that starts with = + - @ (or a
 * tab or carriage return) gets a leading apostrophe, so a spreadsheet shows it as text instead of
 * running it as a formula (OWASP, "CSV injection"). The JSON holds the text exactly.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { absoluteUrl } from '../../paths.ts';
import type { Db } from '../db/index.ts';
import { catalogFingerprint, catalogRecordPages, type CatalogRecord } from '../queries/catalog.ts';
import { PUBLIC_DOCUMENT_HEADERS, fingerprintHash, isNotModified, notModified } from './http.ts';
import { csvField } from '../../tabular/csv-field.ts';

/** Raised whenever the columns or their contents change, so files written before are rebuilt. */
const EXPORT_VERSION = 4;

export const EXPORT_COLUMNS = [
  'id',
  'cid',
  'titulo',
  'descripcion',
  'formato',
  'estado',
  'institucion',
  'categoria',
  'fuente',
  'url_fuente',
  'url_descarga',
  'tamano_bytes',
  'sha256',
  'cartera',
  'creado',
  'actualizado',
  'licencia',
  'url_licencia',
  'palabras_clave',
  'retirado_del_catalogo',
  'desaparecido_en_origen',
  // Added last, so that a reader of the columns by position before it reads them still.
  'url_original',
] as const;

export type ExportColumn = (typeof EXPORT_COLUMNS)[number];
export type ExportRow = Record<ExportColumn, string | number | null>;

/** One record as an export row; `url_descarga` is the archive's gateway, for records it holds a file of. */
export function exportRow(record: CatalogRecord, origin: string): ExportRow {
  return {
    id: record.id,
    cid: record.cid,
    titulo: record.title,
    descripcion: record.description,
    formato: record.type,
    estado: record.status,
    institucion: record.department?.name ?? null,
    categoria: record.category?.title ?? null,
    fuente: record.source?.name ?? null,
    url_fuente: record.sourceUrl,
    url_descarga: record.cid ? absoluteUrl(origin, `/ipfs/${encodeURIComponent(record.cid)}`) : null,
    tamano_bytes: record.fileSize,
    sha256: record.fileSha256,
    cartera: record.walletAddress,
    creado: record.createdAt.toISOString(),
    actualizado: record.updatedAt.toISOString(),
    // What its catalogue declared: what a reuser may do with the data, and its tags («; » between them).
    licencia: record.licenseTitle,
    url_licencia: record.licenseUrl,
    palabras_clave: record.keywords.length > 0 ? record.keywords.join('; ') : null,
    // When its dataset left the catalogue it was harvested from, and since when its origin stopped serving it.
    retirado_del_catalogo: record.withdrawnFromCatalogAt?.toISOString() ?? null,
    desaparecido_en_origen: record.goneFromOriginSince?.toISOString() ?? null,
    // The origin's own link to the file, as its catalogue names it now (a harvested distribution's URL).
    url_original: record.originalUrl,
  };
}

const csvLine = (values: ReadonlyArray<string | number | null>) => `${values.map(csvField).join(',')}\r\n`;

async function* csvChunks(db: Db, origin: string): AsyncGenerator<string> {
  yield `\uFEFF${csvLine(EXPORT_COLUMNS)}`;
  for await (const page of catalogRecordPages(db)) {
    yield page.map((record) => {
      const row = exportRow(record, origin);
      return csvLine(EXPORT_COLUMNS.map((column) => row[column]));
    }).join('');
  }
}

async function* jsonChunks(db: Db, origin: string): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const page of catalogRecordPages(db)) {
    const rows = page.map((record) => JSON.stringify(exportRow(record, origin))).join(',\n');
    yield `${first ? '\n' : ',\n'}${rows}`;
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
}

export const EXPORT_FORMATS = {
  csv: {
    fileName: 'catalogo.csv',
    contentType: 'text/csv; charset=utf-8; header=present',
    disposition: 'attachment; filename="catalogo.csv"',
    write: csvChunks,
  },
  json: {
    fileName: 'catalogo.json',
    contentType: 'application/json; charset=utf-8',
    disposition: 'inline; filename="catalogo.json"',
    write: jsonChunks,
  },
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

export interface ExportOptions {
  db: Db;
  /** The archive's data folder; the files go to its `exports/` folder. */
  dataDir: string;
  /** The archive's public origin, for the download links. */
  origin: string;
  format: ExportFormat;
}

export interface CachedExport {
  path: string;
  /** Strong tag: the file's bytes follow from what the name hashes. */
  etag: string;
  /** When the file was written. */
  lastModified: Date;
  size: number;
  /** Whether this call wrote the file (false: an earlier one had, from the same data). */
  built: boolean;
}

/** Files older than this, of an earlier state of the data (or a write cut short), are removed. */
const STALE_AFTER_MS = 5 * 60 * 1000;

/** One write per file at a time in this process; a second request waits for the first. */
const writing = new Map<string, Promise<void>>();

interface ExportTarget {
  dir: string;
  path: string;
  etag: string;
  /** Names of this format's files, of any state of the data, finished or being written. */
  pattern: RegExp;
}

/** The file name and tag of the export of the data as it is now. */
async function currentExport({ db, dataDir, origin, format }: ExportOptions): Promise<ExportTarget> {
  const hash = fingerprintHash({ version: EXPORT_VERSION, format, origin, data: await catalogFingerprint(db) });
  const { fileName } = EXPORT_FORMATS[format];
  const extension = path.extname(fileName);
  const base = path.basename(fileName, extension);
  const dir = path.join(dataDir, 'exports');
  return {
    dir,
    path: path.join(dir, `${base}-${hash}${extension}`),
    etag: `"${hash}"`,
    pattern: new RegExp(`^${base}-[0-9a-f]{32}\\${extension}(\\..+\\.tmp)?$`),
  };
}

/** Writes `chunks` to `target` through a temporary file, so nobody ever reads half a file. */
async function writeAtomically(target: string, chunks: AsyncIterable<string>): Promise<void> {
  const temporary = `${target}.${process.pid}.${randomUUID()}.tmp`;
  try {
    // pipeline: the next chunk waits for the disk (backpressure), and any error ends both sides.
    await pipeline(Readable.from(chunks), fs.createWriteStream(temporary));
    await fs.promises.rename(temporary, target);
  } catch (error) {
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
}

/** Removes this export's files of earlier states of the data, once nobody can still be starting to read them. */
async function removeStale(target: ExportTarget): Promise<void> {
  const now = Date.now();
  for (const name of await fs.promises.readdir(target.dir)) {
    const file = path.join(target.dir, name);
    if (file === target.path || !target.pattern.test(name)) continue;
    const stat = await fs.promises.stat(file).catch(() => null);
    if (stat && now - stat.mtimeMs > STALE_AFTER_MS) await fs.promises.rm(file, { force: true });
  }
}

/** Writes the file of `target` unless it exists, once per process however many requests ask at once. */
async function ensureWritten(options: ExportOptions, target: ExportTarget): Promise<boolean> {
  if (fs.existsSync(target.path)) return false;
  const pending = writing.get(target.path);
  if (pending) {
    await pending;
    return false;
  }
  const write = (async () => {
    await fs.promises.mkdir(target.dir, { recursive: true });
    await writeAtomically(target.path, EXPORT_FORMATS[options.format].write(options.db, options.origin));
    await removeStale(target);
  })().finally(() => writing.delete(target.path));
  writing.set(target.path, write);
  await write;
  return true;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * The export of the data as it is now, open for reading: the file already written for it, or a
 * new one. Open, it stays readable even if another process clears it away as stale meanwhile.
 */
export async function openExport(options: ExportOptions, known?: ExportTarget): Promise<CachedExport & { handle: fs.promises.FileHandle }> {
  let target = known ?? (await currentExport(options));
  for (let attempt = 1; ; attempt += 1) {
    const built = await ensureWritten(options, target);
    try {
      const handle = await fs.promises.open(target.path, 'r');
      const stat = await handle.stat().catch(async (error: unknown) => {
        await handle.close();
        throw error;
      });
      return { handle, path: target.path, etag: target.etag, lastModified: stat.mtime, size: stat.size, built };
    } catch (error) {
      // Removed between the check and the opening (the data changed and another process cleaned up): once more.
      if (!isMissing(error) || attempt >= 3) throw error;
      target = await currentExport(options);
    }
  }
}

/** Like `openExport`, closed again: where the file is and what it is. */
export async function cachedExport(options: ExportOptions): Promise<CachedExport> {
  const { handle, ...file } = await openExport(options);
  await handle.close();
  return file;
}

/** The answer of `/export/catalogo.{csv,json}`: the cached file, or a 304 when the client's copy is current. */
export async function exportResponse(options: ExportOptions & { request: Request }): Promise<Response> {
  const { contentType, disposition } = EXPORT_FORMATS[options.format];
  const target = await currentExport(options);
  const validators = { ...PUBLIC_DOCUMENT_HEADERS, ETag: target.etag };
  // The tag alone answers If-None-Match: no file needs to exist for that.
  if (options.request.headers.has('if-none-match') && isNotModified(options.request, target)) return notModified(validators);
  const file = await openExport(options, target);
  const headers = { ...validators, ETag: file.etag, 'Last-Modified': file.lastModified.toUTCString() };
  if (isNotModified(options.request, file)) {
    await file.handle.close();
    return notModified(headers);
  }
  const answer = { ...headers, 'Content-Type': contentType, 'Content-Length': String(file.size), 'Content-Disposition': disposition };
  // A HEAD's body would be thrown away unread (Astro answers HEAD with GET's headers): no file kept open for it.
  if (options.request.method === 'HEAD') {
    await file.handle.close();
    return new Response(null, { headers: answer });
  }
  return new Response(Readable.toWeb(file.handle.createReadStream()) as ReadableStream<Uint8Array>, { headers: answer });
}
