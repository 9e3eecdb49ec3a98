/**
 * Loaders of the catalogue pages: each page's frontmatter calls one of these and renders what it
 * returns; null means the page does not exist (a real 404).
 */
import { eq } from 'drizzle-orm';
import { STATUS_STANDING, type AssetStatus } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { CollectionOrder, GroupOrder, ListView } from '../../list-view.ts';
import type { Db } from '../db/index.ts';
import { alexandrias } from '../db/schema.ts';
import { parseCid } from '../storage/index.ts';
import { categoryChoices, getGroupItem, listGroup, type CategoryChoice, type GroupItem } from './groups.ts';
import { recordHistory, type HistoryEntry } from './moderation.ts';
import { isRowId, type Page } from './paging.ts';
import {
  getRecord,
  listRecords,
  recordDetails,
  storageStatus,
  uploadsOf,
  withOriginFacts,
  type RecordDetail,
  type RecordRow,
  type RecordWithOrigin,
  type StorageStatus,
} from './records.ts';
import { sheetPreviewsOf, type SheetPreviewItem } from './sheets.ts';
import { currentRecordOfVersion, versionsOf, type VersionItem } from './versions.ts';

/** The largest page number read from `?page=`: more digits than this are past the end of any list. */
const MAX_PAGE = 9_999_999;

/**
 * A page number from `?page=`; anything that is not a whole number is page 1. A number past
 * `MAX_PAGE` is read as `MAX_PAGE`, past the end of the list, whose page then says how many pages
 * it has (rather than showing the first as if asked for it).
 */
export function parsePage(value: string | null): number {
  if (!value || !/^\d+$/.test(value)) return 1;
  return value.replace(/^0+/, '').length > String(MAX_PAGE).length ? MAX_PAGE : Math.min(MAX_PAGE, Math.max(1, Number(value)));
}

/** An id from the URL, or null when it cannot be one (so the page answers 404, not 500). */
export function parseId(value: string | undefined | null): number | null {
  if (!value || !/^\d{1,10}$/.test(value)) return null;
  const id = Number(value);
  return isRowId(id) ? id : null;
}

export interface CollectionPage {
  item: GroupItem;
  records: Page<RecordRow>;
}

/** A collection and a page of its records, in the order and with the filter of `view` (issue #20). */
export async function loadCollection(
  db: Db,
  entity: GroupEntity,
  id: number,
  page: number,
  view?: Partial<ListView<CollectionOrder>>,
): Promise<CollectionPage | null> {
  const item = await getGroupItem(db, entity, id);
  if (!item) return null;
  return { item, records: await listRecords(db, { entity, id }, page, item.records, view) };
}

export function loadGroup(db: Db, entity: GroupEntity, page: number, view?: Partial<ListView<GroupOrder>>): Promise<Page<GroupItem>> {
  return listGroup(db, entity, page, view);
}

/** What the page's table of files shows of another record of the same file: a row linking to its page. */
export type SiblingRecord = Pick<RecordDetail, 'id' | 'title' | 'fileName' | 'fileSize' | 'updatedAt' | 'status'>;

export interface RecordPage {
  record: RecordWithOrigin;
  /** Other records of the same file (the same CID contributed more than once). */
  siblings: SiblingRecord[];
  storage: StorageStatus;
  /** Every status change, oldest first (issue #8). */
  history: HistoryEntry[];
  /** A spreadsheet's sheets as searchable CSV previews (issue #7); none for other records. */
  sheets: SheetPreviewItem[];
  /** The files a captured record has had, oldest first (issue #19); none for other records. */
  versions: VersionItem[];
}

/** The record with `cid`; `assetId` picks one when several share the CID (SPEC §2). */
export async function loadRecord(db: Db, cid: string, assetId: number | null): Promise<RecordPage | null> {
  const records = await recordDetails(db, eq(alexandrias.cid, cid));
  const chosen = records.find((candidate) => candidate.id === assetId) ?? [...records].sort(byStanding)[0];
  if (!chosen) return null;
  // What is known of the origin (captures, withdrawal, disappearance) only for the record shown:
  // its siblings are a row each in the table of files.
  const [record] = await withOriginFacts(db, [chosen]);
  const siblings = records
    .filter((candidate) => candidate.id !== chosen.id)
    .map(({ id, title, fileName, fileSize, updatedAt, status }): SiblingRecord => ({ id, title, fileName, fileSize, updatedAt, status }));
  return recordPage(db, record!, siblings);
}

/**
 * Which of the records of one file a link by its CID alone (`/{cid}`, a pasted CID) shows: the
 * published one first, then one under review, one marked broken, a blocked one last; among equals
 * the oldest, the file's first record. A later upload of the same bytes, under review or blocked,
 * never takes over the page of the record the archive published.
 */
function byStanding(a: { status: AssetStatus; id: number }, b: { status: AssetStatus; id: number }): number {
  return STATUS_STANDING[a.status] - STATUS_STANDING[b.status] || a.id - b.id;
}

/**
 * The record page (`/{cid}`) of a CID typed or pasted into the search box (a citation hands its
 * reader one), when the archive has something to show for it: a record whose file it is, or one
 * that had it as an earlier version. Null for anything else, which is searched as text.
 */
export async function pageOfPastedCid(db: Db, text: string): Promise<string | null> {
  // Words never name a CID: only a long run of letters and digits is worth parsing.
  if (!/^[a-z0-9]{46,}$/i.test(text)) return null;
  try {
    parseCid(text);
  } catch {
    return null;
  }
  const [record] = await db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.cid, text)).limit(1);
  return record !== undefined || (await currentRecordOfVersion(db, text, null)) !== null ? `/${text}` : null;
}

/**
 * The record with `id`, for `/registro/{id}` (issue #20): the page of a record the archive holds
 * no file of yet. One with a file is read by its CID instead (`loadRecord`), with its siblings.
 */
export async function loadRecordById(db: Db, id: number): Promise<RecordPage | null> {
  const record = await getRecord(db, id);
  return record ? recordPage(db, record, []) : null;
}

/** What the record page shows around `record`; a record without a file has no storage, sheets or versions. */
async function recordPage(db: Db, record: RecordWithOrigin, siblings: SiblingRecord[]): Promise<RecordPage> {
  return {
    record,
    siblings,
    storage: record.cid ? await storageStatus(db, record.cid) : { pins: [], deals: [] },
    history: await recordHistory(db, record.id),
    sheets: record.cid && (record.type === 'xlsx' || record.type === 'ods') ? await sheetPreviewsOf(db, record.id) : [],
    versions: record.cid ? await versionsOf(db, record.id) : [],
  };
}

export interface ProfilePage {
  uploads: Page<RecordRow>;
  /** The upload wizard's category choices. */
  categories: CategoryChoice[];
}

/** The signed-in wallet's page: its uploads, newest first, and what its upload wizard offers. */
export async function loadProfile(db: Db, walletAddress: string, page: number): Promise<ProfilePage> {
  return { uploads: await uploadsOf(db, walletAddress, page), categories: await categoryChoices(db) };
}
