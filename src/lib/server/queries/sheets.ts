/** The sheets of a spreadsheet record, each extracted as a CSV (issue #7 'Spreadsheets too'). */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, sheetPreviews } from '../db/schema.ts';
import { isRowId } from './paging.ts';

export interface SheetPreviewItem {
  /** Position of the sheet in the workbook, from 0; empty sheets have none, so there may be gaps. */
  index: number;
  name: string;
  /** CID of the sheet's CSV (UTF-8, comma, RFC 4180) in the archive's store. */
  cid: string;
  rows: number;
  columns: number;
  /** The CSV stops at a limit: the sheet has more rows or columns than it holds. */
  truncated: boolean;
}

/** The sheet previews of a record, in workbook order; none for a record that has none. */
export async function sheetPreviewsOf(db: Db, alexandriaId: number): Promise<SheetPreviewItem[]> {
  if (!isRowId(alexandriaId)) return [];
  return db
    .select({
      index: sheetPreviews.sheetIndex,
      name: sheetPreviews.name,
      cid: sheetPreviews.cid,
      rows: sheetPreviews.rowCount,
      columns: sheetPreviews.columnCount,
      truncated: sheetPreviews.truncated,
    })
    .from(sheetPreviews)
    .where(eq(sheetPreviews.alexandriaId, alexandriaId))
    .orderBy(asc(sheetPreviews.sheetIndex));
}

/** Like `sheetPreviewsOf`, but null when there is no such record. */
export async function recordSheetPreviews(db: Db, alexandriaId: number): Promise<SheetPreviewItem[] | null> {
  if (!isRowId(alexandriaId)) return null;
  const [record] = await db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.id, alexandriaId));
  return record ? sheetPreviewsOf(db, alexandriaId) : null;
}
