/** Records (alexandrias): the tables of a collection, a record by CID, a wallet's uploads. */
import { and, asc, count, desc, eq, getTableColumns, inArray, ne, type SQL, sql } from 'drizzle-orm';
import { LIMITS, type AssetStatus, type AssetType } from '../../domain/constants.ts';
import type { CollectionOrder, ListView } from '../../list-view.ts';
import { catalogueFactsOf, type CatalogueFacts } from '../db/catalogue-facts.ts';
import type { Db } from '../db/index.ts';
import { aletheias, alexandrias, captures, categories, deals, departments, harvestedRecords, pins, recordVersions, sources } from '../db/schema.ts';
import { readingOrder } from './groups.ts';
import { isRowId, pageWindow, toPage, type Page } from './paging.ts';
import { recordCondition, scopeFilter, type RecordScope } from './record-filter.ts';
import {
  departmentUnderReview,
  recordDepartmentJoin,
  recordSourceJoin,
  sourceUnderReview,
} from './visibility.ts';

export interface RecordRow {
  id: number;
  cid: string | null;
  title: string;
  description: string | null;
  type: AssetType;
  status: AssetStatus;
  updatedAt: Date;
  /** The page where the document is published: where a record without a CID can be found. */
  sourceUrl: string | null;
  department: { id: number; name: string } | null;
  /** When its catalogue stopped listing it ("retirado del catálogo"), or null: lists mark it. */
  withdrawnFromCatalogAt: Date | null;
  /** Since when its source URL is "desaparecido en origen" (`harvest/watch.ts`), or null: lists mark it. */
  goneFromOriginSince: Date | null;
}

/** What a list marks beside a harvested record, and its page tells at length (`OriginFacts`). */
type OriginMarks = Pick<RecordRow, 'withdrawnFromCatalogAt' | 'goneFromOriginSince'>;

export interface ProofEntry {
  id: number;
  cid: string;
  fileName: string | null;
  mimeType: string | null;
}

/** A record as its page and the APIs read it, with what its catalogue says of it (harvested records). */
export interface RecordDetail extends Omit<RecordRow, keyof OriginMarks>, CatalogueFacts {
  formats: AssetType[];
  originalUrl: string | null;
  apiEndpoint: string | null;
  apiEnabled: boolean;
  fileName: string | null;
  fileExtension: string | null;
  fileSize: number | null;
  mimeType: string | null;
  walletAddress: string | null;
  provenanceNote: string | null;
  /** The contributor's signed confirmation and its signature, as the server verified them. */
  signedMessage: string | null;
  signature: string | null;
  createdAt: Date;
  importId: number | null;
  department: { id: number; name: string; desciption: string | null; website: string | null; acronym: string | null } | null;
  source: { id: number; name: string; url: string } | null;
  category: { id: number; title: string } | null;
  /**
   * Whether the record's source or institution was created with it and waits for a moderator:
   * the page says so, while `source` / `department` stay null (their name and link withheld).
   */
  underReview: { source: boolean; department: boolean };
  aletheias: ProofEntry[];
}

/**
 * What the archive knows of a harvested record's origin, for its page (`withOriginFacts`): read
 * apart from `recordDetails`, which every list and API read calls and which needs none of it.
 */
export interface OriginFacts extends OriginMarks {
  /**
   * For a record with its file, the capture that brought that file (the one its current version
   * names), the proof of where its bytes came from, however many checks came after; for one
   * without, the latest capture tried. Null when none (a file uploaded by hand, a record never
   * captured).
   */
  capture: CaptureFacts | null;
  /** A check of the origin after `capture` (the same bytes, a 304, or a failure), the latest. */
  laterCheck: CaptureFacts | null;
  /**
   * Harvested from a catalogue: its languages and areas are what its catalogue declared or its
   * source's settings gave, none when neither did (an upload's are the archive's own: `statedLanguages`).
   */
  harvested: boolean;
}

export type RecordWithOrigin = RecordDetail & OriginFacts;

/** A capture as the record page tells it. */
export interface CaptureFacts {
  finalUrl: string | null;
  requestedUrl: string;
  status: number | null;
  capturedAt: Date;
  cid: string | null;
  /** A difference with what the catalogue declared (checksum, size, type), in Spanish. */
  mismatch: string | null;
  /** Why it failed, for a capture that got no file. */
  errorReason: string | null;
}

/**
 * The columns of a table row of records (with its department), shared by lists and search. Join
 * the department with `recordDepartmentJoin`, so one under review or refused reads as none.
 */
export const rowColumns = {
  id: alexandrias.id,
  cid: alexandrias.cid,
  title: alexandrias.title,
  description: alexandrias.description,
  type: alexandrias.type,
  status: alexandrias.status,
  updatedAt: alexandrias.updatedAt,
  sourceUrl: alexandrias.sourceUrl,
  departmentId: departments.id,
  departmentName: departments.name,
};

/** A row as `rowColumns` reads it, before `withOriginMarks` adds what a list marks. */
export type UnmarkedRecordRow = Omit<RecordRow, keyof OriginMarks>;

export function toRow(row: {
  departmentId: number | null;
  departmentName: string | null;
} & Omit<UnmarkedRecordRow, 'department'>): UnmarkedRecordRow {
  const { departmentId, departmentName, ...rest } = row;
  return {
    ...rest,
    department: departmentId !== null && departmentName !== null ? { id: departmentId, name: departmentName } : null,
  };
}

/**
 * A page of the records of one source, department or category, most recently updated first, or
 * A–Z by title (`view.order`), only those whose title contains `view.q` (issue #20). A caller
 * that already counted the group's records passes `knownTotal` and saves a second count; it is
 * not used with a filter.
 */
export async function listRecords(
  db: Db,
  scope: RecordScope,
  page?: number,
  knownTotal?: number,
  view: Partial<ListView<CollectionOrder>> = {},
): Promise<Page<RecordRow>> {
  const window = pageWindow(page);
  if (!isRowId(scope.id)) return toPage([], 0, window);
  const where = recordCondition({ ...scopeFilter(scope), title: view.q || undefined });
  const counted = view.q ? undefined : knownTotal;
  const total = counted ?? (await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(where))[0]?.n ?? 0;
  // OFFSET walks every skipped row: a page past the middle is read from the other end instead,
  // so the last page of 80,000 records costs what the first does.
  const fromEnd = window.offset > total / 2 && window.offset < total;
  // Titles in the order people read them (`readingOrder`); the id settles ties.
  const [key, direction] = view.order === 'az' ? [readingOrder(alexandrias.title), asc] : [sql`${alexandrias.updatedAt}`, desc];
  const reverse = direction === asc ? desc : asc;
  const rows = await db
    .select(rowColumns)
    .from(alexandrias)
    .leftJoin(departments, recordDepartmentJoin)
    .where(where)
    .orderBy(...(fromEnd ? [reverse(key), reverse(alexandrias.id)] : [direction(key), direction(alexandrias.id)]))
    .limit(fromEnd ? Math.min(window.pageSize, total - window.offset) : window.pageSize)
    .offset(fromEnd ? Math.max(0, total - window.offset - window.pageSize) : window.offset);
  if (fromEnd) rows.reverse();
  return toPage(await withOriginMarks(db, rows.map(toRow)), total, window);
}

/**
 * The withdrawals and disappearances of harvested records among `ids`, in one query; a record with
 * neither is absent. Read apart from the rows rather than as a subquery of theirs: PostgreSQL would
 * evaluate it for every row an OFFSET skips too.
 */
async function originMarksOf(db: Db, ids: number[]): Promise<Map<number, OriginMarks>> {
  if (ids.length === 0) return new Map();
  // Every harvested record among `ids`, marked or not: a record page also tells harvested from uploaded by it.
  const rows = await db
    .select({ alexandriaId: harvestedRecords.alexandriaId, withdrawnAt: harvestedRecords.withdrawnAt, goneSince: harvestedRecords.goneSince })
    .from(harvestedRecords)
    .where(inArray(harvestedRecords.alexandriaId, ids));
  return new Map(rows.map((row) => [row.alexandriaId, { withdrawnFromCatalogAt: row.withdrawnAt, goneFromOriginSince: row.goneSince }]));
}

const NO_MARKS: OriginMarks = { withdrawnFromCatalogAt: null, goneFromOriginSince: null };

/** `rows` with what a list marks beside each: a record its catalogue withdrew, or gone from its origin. */
export async function withOriginMarks<R extends { id: number }>(db: Db, rows: R[]): Promise<Array<R & OriginMarks>> {
  const marks = await originMarksOf(db, rows.map((row) => row.id));
  return rows.map((row) => ({ ...row, ...(marks.get(row.id) ?? NO_MARKS) }));
}

/** A wallet's latest uploads (SPEC §7: limit 5, newest first; the address is compared lower-cased). */
export async function latestUploadsOf(db: Db, walletAddress: string, limit: number = LIMITS.searchResults, offset = 0): Promise<RecordRow[]> {
  const rows = await db
    .select(rowColumns)
    .from(alexandrias)
    .leftJoin(departments, recordDepartmentJoin)
    .where(eq(alexandrias.walletAddress, walletAddress.toLowerCase()))
    .orderBy(desc(alexandrias.createdAt), desc(alexandrias.id))
    .limit(limit)
    .offset(offset);
  return withOriginMarks(db, rows.map(toRow));
}

/** Every upload of a wallet, newest first, a page at a time (its profile and contributions). */
export async function uploadsOf(db: Db, walletAddress: string, page: number): Promise<Page<RecordRow>> {
  const window = pageWindow(page);
  const [counted] = await db
    .select({ total: count() })
    .from(alexandrias)
    .where(eq(alexandrias.walletAddress, walletAddress.toLowerCase()));
  const items = await latestUploadsOf(db, walletAddress, window.pageSize, window.offset);
  return toPage(items, counted?.total ?? 0, window);
}

/** Every column of a record but its search vectors, which no reader needs and which are large. */
const { search: _search, searchTyped: _searchTyped, ...detailColumns } = getTableColumns(alexandrias);

export interface DetailOptions {
  orderBy?: SQL[];
  limit?: number;
  offset?: number;
  /**
   * Name sources and institutions still under review too: for the moderation queue only, where a
   * moderator judges them. Refused ones are never named. Public reads leave it unset.
   */
  forModerators?: boolean;
}

/** Records with everything their page and the API show, for any condition. */
export async function recordDetails(db: Db, where: SQL | undefined, options: DetailOptions = {}): Promise<RecordDetail[]> {
  const sourceJoin = options.forModerators ? and(eq(alexandrias.sourceId, sources.id), ne(sources.reviewStatus, 'refused')) : recordSourceJoin;
  const departmentJoin = options.forModerators
    ? and(eq(alexandrias.departmentId, departments.id), ne(departments.reviewStatus, 'refused'))
    : recordDepartmentJoin;
  const rows = await db
    .select({
      record: detailColumns,
      department: {
        id: departments.id,
        name: departments.name,
        desciption: departments.desciption,
        website: departments.website,
        acronym: departments.acronym,
      },
      source: { id: sources.id, name: sources.name, url: sources.url },
      category: { id: categories.id, title: categories.title },
      sourceUnderReview,
      departmentUnderReview,
    })
    .from(alexandrias)
    .leftJoin(departments, departmentJoin)
    .leftJoin(sources, sourceJoin)
    .leftJoin(categories, eq(alexandrias.categoryId, categories.id))
    .where(where)
    .orderBy(...(options.orderBy ?? [desc(alexandrias.updatedAt), desc(alexandrias.id)]))
    .limit(options.limit ?? 1_000)
    .offset(options.offset ?? 0);
  if (rows.length === 0) return [];
  const proofs = await db
    .select({
      alexandriaId: aletheias.alexandriaId,
      id: aletheias.id,
      cid: aletheias.cid,
      fileName: aletheias.fileName,
      mimeType: aletheias.mimeType,
    })
    .from(aletheias)
    .where(inArray(aletheias.alexandriaId, rows.map((row) => row.record.id)))
    .orderBy(aletheias.id);
  return rows.map(({ record, department, source, category, ...review }) => ({
    id: record.id,
    cid: record.cid,
    title: record.title,
    description: record.description,
    type: record.type,
    formats: record.formats,
    status: record.status,
    updatedAt: record.updatedAt,
    createdAt: record.createdAt,
    sourceUrl: record.sourceUrl,
    originalUrl: record.originalUrl,
    apiEndpoint: record.apiEndpoint,
    apiEnabled: record.apiEnabled,
    fileName: record.fileName,
    fileExtension: record.fileExtension,
    fileSize: record.fileSize,
    mimeType: record.mimeType,
    walletAddress: record.walletAddress,
    provenanceNote: record.provenanceNote,
    signedMessage: record.signedMessage,
    signature: record.signature,
    importId: record.importId,
    department: department?.id != null ? department : null,
    source: source?.id != null ? source : null,
    category: category?.id != null ? category : null,
    underReview: { source: Boolean(review.sourceUnderReview), department: Boolean(review.departmentUnderReview) },
    aletheias: proofs
      .filter((proof) => proof.alexandriaId === record.id)
      .map(({ alexandriaId: _, ...proof }) => proof),
    ...catalogueFactsOf(record),
  }));
}

/** `records` with what the archive knows of their origin: their latest capture, withdrawal, disappearance. */
export async function withOriginFacts(db: Db, records: RecordDetail[]): Promise<RecordWithOrigin[]> {
  const ids = records.map((record) => record.id);
  if (ids.length === 0) return [];
  // The newest capture of each record, and the one that brought its current file (DISTINCT ON
  // keeps the first row of each id in this order).
  const newestCapture = (condition?: SQL) =>
    db
      .selectDistinctOn([captures.alexandriaId], {
        id: captures.id,
        alexandriaId: captures.alexandriaId,
        finalUrl: captures.finalUrl,
        requestedUrl: captures.requestedUrl,
        status: captures.status,
        capturedAt: captures.capturedAt,
        cid: captures.cid,
        mismatch: captures.mismatch,
        errorReason: captures.errorReason,
      })
      .from(captures)
      .where(and(inArray(captures.alexandriaId, ids), condition))
      .orderBy(captures.alexandriaId, desc(captures.capturedAt), desc(captures.id));
  const byRecord = (rows: Awaited<ReturnType<typeof newestCapture>>) => new Map(rows.map(({ alexandriaId, ...capture }) => [alexandriaId, capture]));
  const latestOf = byRecord(await newestCapture());
  // The version of the current file names the capture that brought it: a later check that got the
  // same bytes with a 200 (a server that ignores conditional requests, a repair) is not its proof.
  const bringingOf = byRecord(
    await newestCapture(
      sql`${captures.id} = (select v.capture_id from ${recordVersions} v join ${alexandrias} a on a.id = v.alexandria_id
        where v.alexandria_id = ${captures.alexandriaId} and v.cid = a.cid order by v.number desc limit 1)`,
    ),
  );
  const marks = await originMarksOf(db, ids);
  const originOf = (record: RecordDetail) => {
    const latest = latestOf.get(record.id) ?? null;
    const proof = record.cid ? (bringingOf.get(record.id) ?? null) : latest;
    const later = latest && latest.id !== proof?.id ? latest : null;
    const facts = (row: typeof latest) => {
      if (!row) return null;
      const { id: _id, ...capture } = row;
      return capture;
    };
    return { capture: facts(proof), laterCheck: facts(later), harvested: marks.has(record.id) };
  };
  return records.map((record) => ({ ...record, ...(marks.get(record.id) ?? NO_MARKS), ...originOf(record) }));
}

/** One record by id, with what its page shows of its origin, or null. */
export async function getRecord(db: Db, id: number): Promise<RecordWithOrigin | null> {
  if (!isRowId(id)) return null;
  const [record] = await withOriginFacts(db, await recordDetails(db, eq(alexandrias.id, id), { limit: 1 }));
  return record ?? null;
}

/**
 * The record's id and current file, or null when there is no such record: enough to tell where its
 * page lives (`recordPath`) before reading everything the page shows.
 */
export async function recordAddress(db: Db, id: number): Promise<{ id: number; cid: string | null } | null> {
  if (!isRowId(id)) return null;
  const [found] = await db.select({ id: alexandrias.id, cid: alexandrias.cid }).from(alexandrias).where(eq(alexandrias.id, id));
  return found ?? null;
}

export interface StorageStatus {
  pins: Array<{ provider: string; status: string; updatedAt: Date }>;
  deals: Array<{ dealId: string; storageProvider: string; status: string | null }>;
}

/** What the archive knows of a CID's storage: its pins and deals (SPEC §3 storage-status response). */
export async function storageStatus(db: Db, cid: string): Promise<StorageStatus> {
  const pinRows = await db
    .select({ provider: pins.provider, status: pins.status, updatedAt: pins.updatedAt })
    .from(pins)
    .where(eq(pins.cid, cid))
    .orderBy(desc(pins.updatedAt));
  const dealRows = await db
    .select({ dealId: deals.dealId, storageProvider: deals.storageProvider, status: deals.status })
    .from(deals)
    .where(eq(deals.cid, cid))
    .orderBy(deals.id);
  return { pins: pinRows, deals: dealRows };
}
