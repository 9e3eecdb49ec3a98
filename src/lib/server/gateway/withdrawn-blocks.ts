/**
 * Withdrawal reaches a file's blocks, not only its root (issue #16, item 10).
 *
 * A stored file is a DAG of blocks, and every block is itself a CID the gateway answers: a 700 KB
 * CSV is three raw 256 KiB leaves under one dag-pb root, and each leaf's CID gives its bytes. So
 * refusing a withdrawn file by its root alone leaves its bytes one block CID away. The gateway
 * therefore also refuses a CID that no record holds when it is a block of a withdrawn file, unless
 * a file that is still served is made of that block too (identical 256 KiB chunks, e.g. two
 * versions of a CSV that share their first rows): those bytes are public through that file anyway.
 *
 * Design: a file's blocks are found by walking its DAG when asked (`ContentStore.blockIds`, which
 * reads only the interior dag-pb nodes, one per 43 MB of file, since leaves are named by their
 * parents' links), and kept in memory by root. A root's DAG never changes (the CID is the hash of
 * its content), so the cache needs no invalidation; which files are withdrawn or served does
 * change, and is read from the catalogue on each such request. No table records block membership:
 * it would have to be filled on every path that stores a file (uploads, the seed, sheet
 * previews) and backfilled for the files already there, for a question the gateway asks only of
 * CIDs that are not a record's file.
 *
 * Cost: a CID a record holds (what every link of the archive points to) never gets here. Any
 * other CID costs one query for the withdrawn files, which is answered from the blocked records
 * (usually none: then nothing else happens), and a walk of each withdrawn file the first time.
 * Only a block of a withdrawn file leads to the served files: their blocks are gathered once into
 * one set, kept while the catalogue's fingerprint (a few indexed maxima) stays the same, and
 * built by one request at a time; a repeated request for such a block (an anonymous visitor can
 * loop on one) costs two small queries and a set lookup, not a walk of the catalogue.
 *
 * Blocks are compared by multihash, not by CID: the same bytes asked for under another codec
 * (a raw CID with a dag-pb node's hash) are the same block on disk.
 */
import { sql } from 'drizzle-orm';
import type { CID } from 'multiformats/cid';
import type { Db } from '../db/index.ts';
import { aletheias, alexandrias, recordVersions, sheetPreviews, statusHistory } from '../db/schema.ts';
import { parseCid, StorageError, type ContentStore } from '../storage/index.ts';
import { RAW_CODE } from '../storage/profile.ts';
import { catalogueFiles, servedFile } from './served-files.ts';

/** The blocked record a withdrawn file belongs to, to point the visitor at its reasons. */
export interface Withdrawal {
  id: number;
  cid: string | null;
}

/**
 * Most block ids the cache keeps (about 100 bytes each, so some 50 MB): the blocks of about
 * 125 GB of files. Past that, the files used least recently are forgotten and walked again.
 */
const MAX_CACHED_BLOCK_IDS = 500_000;

/** Multihashes of the blocks of each file walked, by the root's multihash; oldest use first. */
const blockSets = new Map<string, ReadonlySet<string>>();
let cachedIds = 0;

function blockKey(cid: CID): string {
  return Buffer.from(cid.multihash.bytes).toString('base64');
}

/**
 * The blocks of the stored file `root`, as multihash keys; empty when the catalogue names a file
 * the store cannot walk (not stored, or an invalid CID), as such a file serves no block either.
 */
async function blocksOf(store: ContentStore, root: string): Promise<ReadonlySet<string>> {
  let rootCid: CID;
  try {
    rootCid = parseCid(root);
  } catch {
    return new Set();
  }
  const key = blockKey(rootCid);
  const cached = blockSets.get(key);
  if (cached) {
    blockSets.delete(key);
    blockSets.set(key, cached);
    return cached;
  }
  // A single-block file is its own only block: no read needed.
  if (rootCid.code === RAW_CODE) return new Set([key]);
  let ids: CID[];
  try {
    ids = await store.blockIds(root);
  } catch (error) {
    // A file the catalogue names but the store lacks, or whose DAG is damaged: its blocks that
    // cannot be reached cannot be served through it either; the root alone is what is known.
    if (error instanceof StorageError) return new Set([key]);
    throw error;
  }
  const set = new Set(ids.map(blockKey));
  blockSets.set(key, set);
  cachedIds += set.size;
  for (const [oldest, evicted] of blockSets) {
    if (cachedIds <= MAX_CACHED_BLOCK_IDS || oldest === key) break;
    blockSets.delete(oldest);
    cachedIds -= evicted.size;
  }
  return set;
}

/**
 * Files every holder of which is blocked (the gateway's rule for a withdrawn file), each with its
 * first blocked record. Starts from the blocked records, so an archive with none pays an indexed
 * nothing; the `not exists` checks use the CID indexes of migration 0015.
 */
async function withdrawnFiles(db: Db): Promise<Array<{ fileCid: string; withdrawal: Withdrawal }>> {
  const result = (await db.execute(sql`
    with blocked as (
      select ${alexandrias.cid} as file_cid, ${alexandrias.id} as record_id, ${alexandrias.cid} as record_cid
        from ${alexandrias} where ${alexandrias.status} = 'blocked' and ${alexandrias.cid} is not null
      union all
      select ${aletheias.cid}, ${alexandrias.id}, ${alexandrias.cid}
        from ${aletheias} join ${alexandrias} on ${alexandrias.id} = ${aletheias.alexandriaId} where ${alexandrias.status} = 'blocked'
      union all
      select ${sheetPreviews.cid}, ${alexandrias.id}, ${alexandrias.cid}
        from ${sheetPreviews} join ${alexandrias} on ${alexandrias.id} = ${sheetPreviews.alexandriaId} where ${alexandrias.status} = 'blocked'
      union all
      select ${recordVersions.cid}, ${alexandrias.id}, ${alexandrias.cid}
        from ${recordVersions} join ${alexandrias} on ${alexandrias.id} = ${recordVersions.alexandriaId} where ${alexandrias.status} = 'blocked'
    )
    select distinct on (b.file_cid) b.file_cid, b.record_id, b.record_cid from blocked b
    where not ${servedFile(sql`b.file_cid`)}
    order by b.file_cid, b.record_id`)) as unknown as { rows: Array<{ file_cid: string; record_id: number; record_cid: string | null }> };
  return result.rows.map((row) => ({ fileCid: row.file_cid, withdrawal: { id: Number(row.record_id), cid: row.record_cid } }));
}

/** Files some record that is not blocked holds: the files the gateway serves. */
async function servedFiles(db: Db): Promise<string[]> {
  const result = (await db.execute(sql`
    select distinct f.file_cid from (${catalogueFiles}) f where f.status <> 'blocked'`)) as unknown as { rows: Array<{ file_cid: string }> };
  return result.rows.map((row) => row.file_cid);
}

/**
 * What changes which files are served, read from indexed maxima (never from a clock): a new
 * record, proof or sheet preview adds a row, and every change of a record's status adds one to
 * its history.
 */
async function catalogueFingerprint(db: Db): Promise<string> {
  const result = (await db.execute(sql`
    select (select max(${alexandrias.id}) from ${alexandrias}) as records,
           (select max(${aletheias.id}) from ${aletheias}) as proofs,
           (select max(${sheetPreviews.id}) from ${sheetPreviews}) as previews,
           (select max(${recordVersions.id}) from ${recordVersions}) as versions,
           (select max(${statusHistory.id}) from ${statusHistory}) as changes`)) as unknown as { rows: Array<Record<string, unknown>> };
  return JSON.stringify(result.rows[0] ?? {});
}

/** The blocks of every served file, for one fingerprint of the catalogue. */
let servedIndex: { fingerprint: string; blocks: Promise<ReadonlySet<string>> } | undefined;

async function servedBlocks(db: Db, store: ContentStore): Promise<ReadonlySet<string>> {
  const fingerprint = await catalogueFingerprint(db);
  if (servedIndex?.fingerprint !== fingerprint) {
    const blocks = (async () => {
      const all = new Set<string>();
      for (const file of await servedFiles(db)) for (const block of await blocksOf(store, file)) all.add(block);
      return all;
    })();
    servedIndex = { fingerprint, blocks };
    // A failed build is not kept: the next request tries again.
    blocks.catch(() => {
      if (servedIndex?.blocks === blocks) servedIndex = undefined;
    });
  }
  return servedIndex.blocks;
}

/**
 * Whether `cid`, a CID no record holds as a file, is a block of a withdrawn file that no served
 * file is made of too; if so, the blocked record to name in the refusal, else null.
 */
export async function withdrawnBlockOf(db: Db, store: ContentStore, cid: string): Promise<Withdrawal | null> {
  const withdrawn = await withdrawnFiles(db);
  if (withdrawn.length === 0) return null;
  const key = blockKey(parseCid(cid));
  let withdrawal: Withdrawal | null = null;
  for (const file of withdrawn) {
    if ((await blocksOf(store, file.fileCid)).has(key)) {
      withdrawal = file.withdrawal;
      break;
    }
  }
  if (!withdrawal) return null;
  return (await servedBlocks(db, store)).has(key) ? null : withdrawal;
}
