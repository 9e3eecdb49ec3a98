/**
 * A staging area for files that are not accepted yet: an upload streams its blocks here, and only
 * once the contribution is verified are they moved into the store. A refused, failed or
 * interrupted upload then leaves nothing in the store, not even stray blocks.
 *
 * A staged upload is a flat folder of its own holding one file per block, named as the local store
 * names it, so that committing into the local store is one `rename` per block into its layout (the
 * staging root lives beside it, on the same file system); committing into a bucket is one PUT per
 * block, the staged copies removed once the move is settled. Writing there is a plain `writeFile`:
 * the folder is private to the upload and thrown away whole on failure, so it needs neither the
 * store's atomic temporary-file-and-rename nor its shard folders, and a gigabyte's 4,000 blocks cost
 * a third fewer system calls. A commit moves the blocks several at a time, and each file's root only
 * once all the other blocks are in (the roots side by side, but one that is also a block of another
 * file before that file's root): a crash half-way through a commit can leave some blocks in the
 * store, but never a root whose blocks are missing.
 *
 * Staging belongs to a server instance (issue #21, `instances/`), not to a process id: each upload's
 * folder and journal are named `<instance id>.<upload id>`, and a sweep clears only what instances
 * whose lease has run out left (or, for a name no instance row knows, what has lain idle for a
 * grace period). A live instance's uploads are never touched, whatever machine it runs on; and an
 * instance starts a commit only while its lease surely holds for a good while yet, so a commit is
 * never swept from under it.
 *
 * The move happens inside the upload's database transaction, last: after the transaction has
 * spent the upload's nonce, so that the same signed upload sent twice at once cannot move blocks
 * and then take them back from under the copy that won. The blocks it adds to the store are
 * journalled first, file by file: if the transaction then fails they are taken back (`discard`),
 * and if the process dies before `settle`, the sweep undoes the move.
 *
 * An undo takes back only the blocks of files that no committed row holds (`FileGuard`). The same
 * file is often captured or uploaded twice at once (one CSV in several datasets of a catalogue): a
 * second commit that finds the first one's blocks in the store journals nothing, so if the first
 * transaction then failed, taking its blocks back would leave the second's record without its
 * file. The guard asks the database which files a record holds, under a lock per file that every
 * committing transaction takes before it looks at the store, so an undo never decides while a
 * commit of the same file is under way. (Two differing files that share a 256 KiB chunk, committed
 * at the same moment, are not covered by the lock per file; nor is the seed, which runs only on an
 * empty database and stores its files without staging.)
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { CID } from 'multiformats/cid';
import type { Db } from '../db/index.ts';
import type { ServerInstance } from '../instances/index.ts';
import type { StagingTarget } from './blockstores.ts';
import type { ByteSource } from './byte-source.ts';
import { coalesceWrites } from './coalesce-writes.ts';
import { diskCallsFor, type DiskCalls } from './disk-calls.ts';
import { importContent, type AddResult } from './import-content.ts';
import { blockLayout, localBlockstore } from './local-blockstore.ts';

/** One upload's staged files. */
export interface StagedUpload {
  /** Stores a file in this upload's staging folder; the same CID `ContentStore.add` would give. */
  add(source: ByteSource): Promise<AddResult>;
  /**
   * Holds the staged files (`FileGuard.hold`) in `tx`, the transaction that will commit them, until
   * it ends. Best as its first statement: waiting there for another commit of the same file then
   * keeps no row locked that others (the queue's heartbeats) wait for. `commit` holds whatever is
   * not held yet.
   */
  hold(tx: GuardedTx): Promise<void>;
  /**
   * Moves every staged block into the store, the files' roots last, inside `tx`, the transaction
   * that writes the files' records: the staged files are held (`FileGuard.hold`) until it ends.
   * The blocks the store did not have yet are first written down in a journal beside the staging
   * folder, by file, so that a crash before `settle()` can be undone by a sweep.
   *
   * @throws {Error} when this server instance's lease is not sure to hold through the commit
   */
  commit(tx: GuardedTx): Promise<void>;
  /** The move is final (its record is committed): forgets the journal and the staging folder. */
  settle(): Promise<void>;
  /**
   * Takes back what the move added to the store (after `commit`, when the record could not be
   * written) for files no committed record holds, then clears the staging folder; before
   * `commit`, just clears it. Safe to repeat. When the database cannot say which files are held,
   * nothing is taken back unsure: the staging folder goes, the journal is left to a sweep under a
   * name no instance owns (undone once it has lain idle for the grace period), and it throws.
   */
  discard(): Promise<void>;
}

/** A transaction of the archive's database, as a commit holds files in it. */
export type GuardedTx = Pick<Db, 'execute'>;

/**
 * The database's side of staging: which files committed rows hold, and a lock per file between
 * the transactions that commit them and the undos that would take their blocks back.
 */
export interface FileGuard {
  /** In the committing transaction `tx`, before the store is looked at: no undo decides about `cids` until it ends. */
  hold(tx: GuardedTx, cids: readonly string[]): Promise<void>;
  /** Runs `undo` with those of `cids` that committed rows hold, while no transaction can commit any of them. */
  undoing<T>(cids: readonly string[], undo: (held: ReadonlySet<string>) => Promise<T>): Promise<T>;
}

/** A staged file whose blocks a move added: its root and those blocks (CIDs). */
interface JournalledFile {
  root: string;
  added: string[];
}

/**
 * What a commit in progress wrote down: the blocks it added to the store, file by file. A journal
 * written before the guard names one CID, `keptBy`, whose record made the whole move final, and
 * the blocks flat (CIDs, or before issue #21 block file paths).
 */
interface Journal {
  files?: JournalledFile[];
  keptBy?: string;
  added?: string[];
}

/** Who the staging belongs to: this server instance, and how the others stand (`ServerInstance`). */
export type StagingOwner = Pick<ServerInstance, 'id' | 'leaseMs' | 'leaseLeftMs' | 'standing' | 'alone'>;

export interface StagingArea {
  /** Starts a staged upload in a fresh folder of this instance's. */
  begin(): StagedUpload;
  /**
   * Clears what instances that are gone (a crash mid-upload) left: staging folders, and moves that
   * were journalled but never settled, undone for the files no committed record holds. Alone among the servers on the database (a leased lock); resolves to
   * how many folders and journals it removed (0 when another server kept the lock too long).
   */
  sweep(): Promise<number>;
}

export interface StagingOptions {
  /** The staging folder, private to this machine's servers. */
  dir: string;
  /** The store commits move blocks into (the archive's opened blockstore). */
  store?: StagingTarget;
  /** Or the folder of a local store, beside `dir` on the same file system. */
  storeDir?: string;
  /** The server instance staging belongs to; by default this process alone, as with the embedded database. */
  owner?: StagingOwner;
  /** How long what no instance row names must lie untouched before a sweep clears it (10 min). */
  graceMs?: number;
  /** Which files committed rows hold (`databaseFileGuard`, over the archive's database). */
  guard: FileGuard;
}

/**
 * File-system or network calls a commit keeps in flight: enough to keep libuv's four threads (or a
 * bucket's connections) busy, as one at a time left a gigabyte's commit waiting on 8,000 round trips.
 */
const MOVES_AT_ONCE = 16;

const DEFAULT_GRACE_MS = 10 * 60_000;

const JOURNAL = '.journal.json';

/** The middle of a journal's name whose undo failed and was left to the sweep (`<uuid>.orphan.journal.json`). */
const ORPHANED = '.orphan';

/** The sweep's lock, one for every server on the database. */
const SWEEP_LOCK = 'staging-sweep';

/** The staging area in `dir` committing into `store` (or the local store in `storeDir`). */
export function createStagingArea(options: StagingOptions): StagingArea {
  const { dir } = options;
  if (options.store === undefined && options.storeDir === undefined) throw new Error('createStagingArea needs the store to commit into (store or storeDir).');
  const store: StagingTarget = options.store ?? localBlockstore(options.storeDir!);
  const owner = options.owner ?? soleProcess();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const { guard } = options;

  /** A commit starts, and moves the roots, only while the lease holds for half its length yet. */
  function assertLease(instance: string): void {
    if (owner.leaseLeftMs(instance) < owner.leaseMs / 2) {
      throw new Error(`La concesión de la instancia ${instance} no alcanza para confirmar la subida: otro servidor podría estar limpiando su espera.`);
    }
  }

  let sweeping: Promise<unknown> = Promise.resolve();
  /** Direct or through the threads, by the folder's file system: asked once, when first needed. */
  let calls: DiskCalls | undefined;
  const diskCalls = () => (calls ??= diskCallsFor(dir));

  return {
    begin() {
      const instance = owner.id;
      const folder = path.join(dir, `${instance}.${randomUUID()}`);
      const journalFile = `${folder}${JOURNAL}`;
      // A block written twice at once (a repeated chunk) reaches the disk once.
      const writer = coalesceWrites({
        async put(cid, bytes) {
          const file = path.join(folder, blockLayout.encode(cid).file);
          // The importer hands over each block whole; a block, a file per capture, is the call to make cheap.
          if (bytes instanceof Uint8Array) await diskCalls().writeFile(file, bytes);
          else await fs.writeFile(file, bytes);
          return cid;
        },
      });
      /** Each staged file's root and every block its import wrote (files added side by side interleave). */
      const staged: Array<{ root: string; blocks: CID[] }> = [];
      let opened: Promise<unknown> | undefined;
      let journalled: JournalledFile[] = [];
      /** The transaction that holds the files, and which of them. */
      let holding: { tx: GuardedTx; roots: Set<string> } | undefined;
      const holdIn = async (tx: GuardedTx) => {
        if (holding?.tx !== tx) holding = { tx, roots: new Set() };
        const roots = staged.map((file) => file.root).filter((root) => !holding!.roots.has(root));
        if (roots.length === 0) return;
        await guard.hold(tx, roots);
        for (const root of roots) holding.roots.add(root);
      };

      return {
        async add(source) {
          await (opened ??= fs.mkdir(folder, { recursive: true }));
          const blocks: CID[] = [];
          const added = await importContent(source, {
            async put(cid, bytes, options) {
              await writer.put(cid, bytes, options);
              blocks.push(cid);
              return cid;
            },
          });
          staged.push({ root: added.cid, blocks });
          return added;
        },
        hold: holdIn,
        async commit(tx) {
          assertLease(instance);
          // Before the store is looked at: an undo of the same files elsewhere waits, or has finished.
          await holdIn(tx);
          // The wait may have been long: the lease must still hold for the whole move.
          assertLease(instance);
          const roots = holding!.roots;
          // One move per staged file: a repeated chunk is one block, and a block that is also a root moves with the roots.
          const moves = new Map<string, { cid: CID; file: string; isRoot: boolean }>();
          for (const cid of staged.flatMap((file) => file.blocks)) {
            const file = path.join(folder, blockLayout.encode(cid).file);
            const isRoot = roots.has(cid.toString()) || moves.get(file)?.isRoot === true;
            moves.set(file, { cid: moves.get(file)?.cid ?? cid, file, isRoot });
          }
          const all = [...moves.values()];
          const isNew = await eachAtOnce(all, async (move) => !(await store.has(move.cid)));
          const added = new Set(all.filter((_, index) => isNew[index]).map((move) => move.cid.toString()));
          journalled = staged
            .map((file) => ({ root: file.root, added: [...new Set(file.blocks.map(String))].filter((cid) => added.has(cid)) }))
            .filter((file) => file.added.length > 0);
          // Written down before the first block moves: a crash from here on can be undone.
          await writeJournal(journalFile, { files: journalled });
          await eachAtOnce(all.filter((move) => !move.isRoot), (move) => store.adopt(move.cid, move.file));
          assertLease(instance);
          for (const layer of rootLayers(all, staged)) await eachAtOnce(layer, (move) => store.adopt(move.cid, move.file));
        },
        async settle() {
          journalled = [];
          await fs.rm(journalFile, { force: true });
          await fs.rm(folder, { recursive: true, force: true });
        },
        async discard() {
          try {
            await undo(store, guard, journalled);
          } catch (error) {
            // A live instance's journal is never swept: under a name no instance owns, it is.
            if (journalled.length > 0) await fs.rename(journalFile, path.join(dir, `${randomUUID()}${ORPHANED}${JOURNAL}`)).catch(() => undefined);
            journalled = [];
            await fs.rm(folder, { recursive: true, force: true });
            throw error;
          }
          journalled = [];
          await fs.rm(journalFile, { force: true });
          await fs.rm(folder, { recursive: true, force: true });
        },
      };
    },
    async sweep() {
      // One sweep at a time in this process too (the lease lock lets its holder in again).
      const run = sweeping.then(() => owner.alone(SWEEP_LOCK, () => sweepNow()));
      sweeping = run.catch(() => undefined);
      const outcome = await run;
      return outcome.ran ? outcome.value : 0;
    },
  };

  async function sweepNow(): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return 0;
    }
    const byOwner = new Map<string, string[]>();
    for (const name of names) {
      // `<instance>.<upload>[.journal.json]`, `<uuid>.orphan.journal.json`; before issue #21, `<pid>-<upload>[.journal.json]`.
      const ownerId = name.split('.')[0]!;
      byOwner.set(ownerId, [...(byOwner.get(ownerId) ?? []), name]);
    }
    const standing = await owner.standing([...byOwner.keys()]);
    const gone: string[] = [];
    for (const [ownerId, entries] of byOwner) {
      const verdict = standing.get(ownerId) ?? 'unknown';
      if (verdict === 'dead' || (verdict === 'unknown' && (await idleMs(entries)) >= graceMs)) gone.push(...entries);
    }
    let removed = 0;
    // Unsettled moves first: undone for the files no committed record holds (their own, if it made it).
    for (const name of gone.filter((entry) => entry.endsWith(JOURNAL))) {
      const file = path.join(dir, name);
      const journal = await readJournal(file);
      try {
        if (journal) await undo(store, guard, journalledFiles(journal));
      } catch (error) {
        // Kept for the next sweep (the database did not answer, or a commit of the same file held
        // its lock too long); the rest of this sweep goes on.
        console.error(`No se pudo deshacer la subida interrumpida ${name}; se intentará en el próximo barrido:`, error);
        continue;
      }
      await fs.rm(file, { force: true });
      removed += 1;
    }
    for (const name of gone.filter((entry) => !entry.endsWith(JOURNAL))) {
      await fs.rm(path.join(dir, name), { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }

  /** How long since any of an owner's entries last changed. */
  async function idleMs(entries: string[]): Promise<number> {
    const times = await Promise.all(entries.map((name) => fs.stat(path.join(dir, name)).then((stat) => stat.mtimeMs, () => 0)));
    return Date.now() - Math.max(...times);
  }
}

/**
 * The owner when no instance is registered (tests, tools on a private folder): this process alone,
 * whose lease never ends, and every other owner of the folder is gone.
 */
function soleProcess(): StagingOwner {
  const id = randomUUID();
  return {
    id,
    leaseMs: Number.POSITIVE_INFINITY,
    leaseLeftMs: (of) => (of === id ? Number.POSITIVE_INFINITY : 0),
    standing: async (ids) => new Map(ids.map((other) => [other, other === id ? 'alive' : 'dead'])),
    alone: async (_name, work) => ({ ran: true, value: await work() }),
  };
}

/** A journal's files; one written before the guard is one file, the root whose record kept the move. */
function journalledFiles(journal: Journal): JournalledFile[] {
  return journal.files ?? (journal.keptBy && journal.added ? [{ root: journal.keptBy, added: journal.added }] : []);
}

/**
 * Takes the blocks a move added back out of the store, for the files no committed record holds; a
 * block of such a file that a held file of the same move also uses stays.
 */
async function undo(store: StagingTarget, guard: FileGuard, files: readonly JournalledFile[]): Promise<void> {
  if (files.length === 0) return;
  await guard.undoing([...new Set(files.map((file) => file.root))], async (held) => {
    const kept = new Set(files.filter((file) => held.has(file.root)).flatMap((file) => file.added));
    const taken = new Set(files.filter((file) => !held.has(file.root)).flatMap((file) => file.added).filter((block) => !kept.has(block)));
    const remove = async (entry: string) => {
      // A journal written before issue #21 names block files of the local store.
      if (path.isAbsolute(entry)) await fs.rm(entry, { force: true });
      else await store.delete(CID.parse(entry));
    };
    // The roots go first, as they came last: an undo cut short (a failed delete stops the rest,
    // the journal stays for the sweep) leaves stray blocks, never a root whose blocks are gone.
    const roots = new Set(files.map((file) => file.root));
    await eachAtOnce([...taken].filter((entry) => roots.has(entry)), remove);
    await eachAtOnce([...taken].filter((entry) => !roots.has(entry)), remove);
  });
}

/**
 * `work` over every item, `MOVES_AT_ONCE` at a time; the results in the items' order. After a
 * failure no item is started, and it rejects (with the first failure) only once the ones under way
 * have ended: a commit that failed is then taken back (`discard`) with no rename still landing
 * behind the undo. (A bucket's PUT whose answer timed out may still complete on its side; the
 * journal, kept when an undo fails, lets the sweep take such a block back.)
 */
async function eachAtOnce<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  /** The first failure in time, which the others may follow from. */
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MOVES_AT_ONCE, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * The roots' moves in the order they may land: side by side, since a group of captures has
 * hundreds, but a root that is also a block of another staged file (a small file equal to one of
 * a larger one's chunks) in a layer before that file's root, which must find every block in.
 */
function rootLayers<M extends { cid: CID; isRoot: boolean }>(moves: readonly M[], staged: ReadonlyArray<{ root: string; blocks: readonly CID[] }>): M[][] {
  const pending = new Map(moves.filter((move) => move.isRoot).map((move) => [move.cid.toString(), move]));
  // Each root's other blocks that are themselves roots waiting to move.
  const below = new Map<string, Set<string>>();
  for (const file of staged) {
    const set = below.get(file.root) ?? new Set<string>();
    for (const block of file.blocks) {
      const key = block.toString();
      if (key !== file.root && pending.has(key)) set.add(key);
    }
    below.set(file.root, set);
  }
  const layers: M[][] = [];
  while (pending.size > 0) {
    let layer = [...pending.entries()].filter(([root]) => ![...(below.get(root) ?? [])].some((block) => pending.has(block)));
    // Content addressing allows no cycle; were one ever found, the rest move together rather than never.
    if (layer.length === 0) layer = [...pending.entries()];
    for (const [root] of layer) pending.delete(root);
    layers.push(layer.map(([, move]) => move));
  }
  return layers;
}

/** Written to a temporary name and renamed: a journal is either whole or absent. */
async function writeJournal(file: string, journal: Journal): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  const handle = await fs.open(temporary, 'w');
  try {
    await handle.writeFile(JSON.stringify(journal));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
}

async function readJournal(file: string): Promise<Journal | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Journal;
  } catch {
    return null;
  }
}
