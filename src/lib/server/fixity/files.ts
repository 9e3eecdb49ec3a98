/**
 * The files the fixity audit reads: every CID the archive keeps in its store and names in the
 * database (a record's current file, its older versions, proofs and sheet previews), each once,
 * in CID order so a pass can stop anywhere and resume after the last one it read.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, aletheias, recordVersions, sheetPreviews } from '../db/schema.ts';

export interface StoredFileEntry {
  cid: string;
  /** The size the database knows (bytes), or 0 when none is recorded (a sheet preview). */
  size: number;
}

/** Every stored file with its known size, one row per CID (a subquery to select from). */
const storedFiles = sql`(
  select cid, max(size) as size from (
    select ${alexandrias.cid} as cid, ${alexandrias.fileSize} as size from ${alexandrias} where ${alexandrias.cid} is not null
    union all select ${recordVersions.cid}, ${recordVersions.size} from ${recordVersions}
    union all select ${aletheias.cid}, ${aletheias.fileSize} from ${aletheias}
    union all select ${sheetPreviews.cid}, null from ${sheetPreviews}
  ) as kept group by cid
) as stored_files`;

/** How many files, and how many bytes, a pass starting now has to read. */
export async function storedFileTotals(db: Db): Promise<{ files: number; bytes: number }> {
  // Both drivers answer `execute` with `rows` (PGlite and node-postgres alike); drizzle types it per driver.
  const result = (await db.execute(sql`select count(*)::int as files, coalesce(sum(size), 0)::bigint as bytes from ${storedFiles}`)) as unknown as {
    rows: Array<{ files: number; bytes: string | number }>;
  };
  const row = result.rows[0];
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/**
 * The next `limit` files after `cursor` (from the first when null), in CID order. Each table is
 * read from the cursor on, by its CID index, and only for its first `limit` CIDs: the first
 * `limit` of the whole set are among them, so a batch costs its own size, not the archive's.
 */
export async function storedFilesAfter(db: Db, cursor: string | null, limit: number): Promise<StoredFileEntry[]> {
  const after = (column: SQL) => (cursor === null ? sql`${column} is not null` : sql`${column} > ${cursor}`);
  const firstOf = (cid: SQL, size: SQL, table: SQL) =>
    sql`(select ${cid} as cid, max(${size}) as size from ${table} where ${after(cid)} group by ${cid} order by ${cid} limit ${limit})`;
  const result = (await db.execute(sql`
    select cid, max(size) as size from (
      ${firstOf(sql`${alexandrias.cid}`, sql`${alexandrias.fileSize}`, sql`${alexandrias}`)}
      union all ${firstOf(sql`${recordVersions.cid}`, sql`${recordVersions.size}`, sql`${recordVersions}`)}
      union all ${firstOf(sql`${aletheias.cid}`, sql`${aletheias.fileSize}`, sql`${aletheias}`)}
      union all ${firstOf(sql`${sheetPreviews.cid}`, sql`null::bigint`, sql`${sheetPreviews}`)}
    ) as firsts group by cid order by cid limit ${limit}`)) as unknown as { rows: Array<{ cid: string; size: string | number | null }> };
  return result.rows.map((row) => ({ cid: row.cid, size: Number(row.size ?? 0) }));
}

/** The bytes of the files after `cursor` (all of them when null): what a pass still has to read. */
export async function storedBytesAfter(db: Db, cursor: string | null): Promise<number> {
  const result = (await db.execute(
    sql`select coalesce(sum(size), 0)::bigint as bytes from ${storedFiles} where ${cursor === null ? sql`true` : sql`cid > ${cursor}`}`,
  )) as unknown as { rows: Array<{ bytes: string | number }> };
  return Number(result.rows[0]?.bytes ?? 0);
}
