/**
 * The database's side of staging (`staging.ts`, `FileGuard`): which staged files a committed row
 * holds, and a lock per file between the transactions that commit files and the undos that would
 * take their blocks back.
 *
 * The lock is a transaction-level advisory lock keyed by the file's CID (hashed: a collision only
 * makes two files wait for each other). A committing transaction takes its files' locks, all in
 * one statement and in one order, so that two groups of captures sharing files never wait for each
 * other in a cycle; it keeps them until it commits or rolls back. An undo takes the same locks in
 * a short transaction of its own, reads which files are held, and takes back the blocks of the
 * others before letting go: a transaction committing one of those files waits, then finds the
 * blocks gone and moves its own.
 *
 * On the embedded database one session runs every transaction, one at a time, and the locks never
 * wait: what keeps an undo from deciding while a commit of the same file is open is that the undo
 * is a transaction too, which waits for that one to end. It must stay one. (While it deletes blocks
 * it holds that single connection: an undo is rare, after a failure.)
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jsonList } from '../db/json-values.ts';
import { catalogueFiles } from '../gateway/served-files.ts';
import type { FileGuard, GuardedTx } from './staging.ts';

/**
 * How long an undo waits for a file's lock: a transaction that holds it for longer (a server that
 * died with its connection half open) leaves the journal for the next sweep, rather than stalling
 * this one.
 */
const UNDO_LOCK_TIMEOUT = '10s';

/**
 * The CIDs as a list of bound values, for `in (…)`: unlike one JSON value, a list is pushed down
 * into each branch of a union, to the CID indexes.
 */
function cidList(cids: readonly string[]) {
  return sql.join(
    [...new Set(cids)].map((cid) => sql`${cid}`),
    sql`, `,
  );
}

/** Takes, in `tx`, the lock of each file in `cids`, in the order of their keys. */
async function lockFiles(tx: GuardedTx, cids: readonly string[]): Promise<void> {
  if (cids.length === 0) return;
  await tx.execute(sql`
    select pg_advisory_xact_lock(hashtext('stored-file'), key)
      from (select distinct hashtext(cid) as key from ${jsonList([...new Set(cids)], 'text')} as files(cid) order by key) as keys`);
}

/** The guard over `db`'s records, for `createStagingArea({ guard })`. */
export function databaseFileGuard(db: Db): FileGuard {
  return {
    hold: lockFiles,
    undoing(cids, undo) {
      return db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local lock_timeout = '${UNDO_LOCK_TIMEOUT}'`));
        await lockFiles(tx, cids);
        const held = (await tx.execute(sql`select distinct file_cid from (${catalogueFiles}) as files where file_cid in (${cidList(cids)})`)) as unknown as {
          rows: Array<{ file_cid: string }>;
        };
        return undo(new Set(held.rows.map((row) => row.file_cid)));
      });
    },
  };
}
