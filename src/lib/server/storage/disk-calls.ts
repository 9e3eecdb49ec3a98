/**
 * The small file calls of storing blocks (write a staged block, look for a block in the store, move
 * one in), made synchronously while the disk answers at once, and through libuv's threads while it
 * does not.
 *
 * Why not always through the threads, as Node servers usually do: an asynchronous `writeFile` is
 * three round trips to the thread pool (open, write, close), each woken and answered across threads,
 * and on a virtual machine (this one, most clouds') that costs two to four times the CPU of the same
 * calls made directly: 100–160 µs against 35–45 µs for a 50 KB block, measured on 30 November 2026.
 * A harvest stores a block or more per captured file, thousands a minute, on a machine whose cores
 * the database and the portals' answers share (README, "Rendimiento").
 *
 * Why not always directly: a call made directly holds the event loop, every request of the server
 * waiting, for as long as the kernel takes. Writing into the page cache takes tens of microseconds,
 * but a disk that falls behind its writeback, a full or failing device, or a network file system can
 * take milliseconds or seconds. So each direct call is timed, and one that took longer than
 * `slowCallMs` sends the calls of the next `coolDownMs` through the threads, where a slow disk stalls
 * only them. A server pays at most one slow call per cool-down on the event loop.
 *
 * Only block-sized writes go directly (`maxDirectBytes`): a larger buffer would hold the loop for its
 * copy alone. Calls made back to back (a commit moves a gigabyte's 4,000 blocks in one go, each just
 * under the slow mark) give the loop back once they have spent `turnBudgetMs` in one of its turns,
 * so that requests waiting meanwhile are served between them. And a folder on a network or FUSE file
 * system is never called directly (`diskCallsFor`): there a call can hang for as long as the server
 * or daemon behind it does, and one hung direct call would hang every request of the server.
 */
import { existsSync, renameSync, statfsSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface DiskCallsOptions {
  /** A direct call that takes longer than this sends the next ones through the threads. */
  slowCallMs?: number;
  /** For how long, after a slow call. */
  coolDownMs?: number;
  /** Larger writes always go through the threads. */
  maxDirectBytes?: number;
  /** Direct time in one turn of the event loop after which the next call first lets the loop go round. */
  turnBudgetMs?: number;
  /** False: every call through the threads (a folder on a network file system). */
  direct?: boolean;
  /** The clock (`performance.now()`); tests pass their own. */
  now?: () => number;
}

/** How the next call will be made. */
export type DiskCallMode = 'direct' | 'threads';

export class DiskCalls {
  readonly #slowCallMs: number;
  readonly #coolDownMs: number;
  readonly #maxDirectBytes: number;
  readonly #turnBudgetMs: number;
  readonly #direct: boolean;
  readonly #now: () => number;
  /** Until when (on `#now`'s clock) calls go through the threads. */
  #threadsUntil = Number.NEGATIVE_INFINITY;
  /** Direct time spent since the event loop last went round (`setImmediate` sets it back to 0). */
  #spentThisTurn = 0;
  #turnEnds = false;

  constructor({
    slowCallMs = 5,
    coolDownMs = 30_000,
    maxDirectBytes = 1024 * 1024,
    turnBudgetMs = 10,
    direct = true,
    now = () => performance.now(),
  }: DiskCallsOptions = {}) {
    this.#slowCallMs = slowCallMs;
    this.#coolDownMs = coolDownMs;
    this.#maxDirectBytes = maxDirectBytes;
    this.#turnBudgetMs = turnBudgetMs;
    this.#direct = direct;
    this.#now = now;
  }

  get mode(): DiskCallMode {
    return this.#direct && this.#now() >= this.#threadsUntil ? 'direct' : 'threads';
  }

  /** Writes `bytes` to `file`, creating or replacing it. */
  async writeFile(file: string, bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength > this.#maxDirectBytes) return fs.writeFile(file, bytes);
    const direct = this.#callDirectly();
    if (direct !== true && !(await direct)) return fs.writeFile(file, bytes);
    this.#timed(() => writeFileSync(file, bytes));
  }

  /** Moves `from` to `to`, replacing what is there. */
  async rename(from: string, to: string): Promise<void> {
    const direct = this.#callDirectly();
    if (direct !== true && !(await direct)) return fs.rename(from, to);
    this.#timed(() => renameSync(from, to));
  }

  /** Whether `file` exists (and can be seen): `fs.access` without a mode, as blockstore-fs asks. */
  async exists(file: string): Promise<boolean> {
    const direct = this.#callDirectly();
    if (direct !== true && !(await direct)) return fs.access(file).then(() => true, () => false);
    return this.#timed(() => existsSync(file));
  }

  /**
   * Whether to call directly. Once this turn's direct calls have spent their budget, it first waits
   * for the loop to go round (again, if the calls that went first in the new turn spent it too). A
   * plain `true` is used at once, without an `await`: no other call may come between the budget's
   * check and the call it allows.
   */
  #callDirectly(): boolean | Promise<boolean> {
    if (this.mode === 'threads') return false;
    if (this.#spentThisTurn < this.#turnBudgetMs) return true;
    return (async () => {
      while (this.#spentThisTurn >= this.#turnBudgetMs) await new Promise((resolve) => setImmediate(resolve));
      return this.mode === 'direct';
    })();
  }

  /** Runs a direct call, and notes it when it was slow (failed or not). */
  #timed<T>(call: () => T): T {
    const started = this.#now();
    try {
      return call();
    } finally {
      const ended = this.#now();
      if (ended - started > this.#slowCallMs) this.#threadsUntil = ended + this.#coolDownMs;
      this.#spentThisTurn += ended - started;
      if (!this.#turnEnds) {
        this.#turnEnds = true;
        setImmediate(() => {
          this.#spentThisTurn = 0;
          this.#turnEnds = false;
        });
      }
    }
  }
}

/**
 * File systems whose calls can hang for as long as something away from the machine does (`statfs`
 * magic numbers): NFS, SMB and CIFS, FUSE (sshfs, GlusterFS, s3fs...), Ceph, 9P, AFS, Lustre, GFS2
 * and OCFS2.
 */
const REMOTE_FILE_SYSTEMS: ReadonlySet<number> = new Set([
  0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x00c36400, 0x01021997, 0x5346414f, 0x0bd00bd0, 0x01161970, 0x7461636f,
]);

/** Whether a file system (by its `statfs` type) may hang a call for as long as a remote server does. */
export function isRemoteFileSystem(type: number | bigint): boolean {
  return REMOTE_FILE_SYSTEMS.has(Number(BigInt.asUintN(32, BigInt(type))));
}

/** The calls the stores and staging areas of this process make on local disks: one judgement of them. */
export const diskCalls = new DiskCalls();

/** Every call through the threads: for folders on remote file systems. */
const THROUGH_THREADS = new DiskCalls({ direct: false });

/**
 * The calls to make in `folder` (or where it will be: its nearest existing parent is asked): the
 * shared direct ones on a local disk, through the threads on a remote file system or one that
 * cannot be asked.
 */
export function diskCallsFor(folder: string): DiskCalls {
  for (let at = path.resolve(folder); ; at = path.dirname(at)) {
    try {
      return isRemoteFileSystem(statfsSync(at).type) ? THROUGH_THREADS : diskCalls;
    } catch {
      if (path.dirname(at) === at) return THROUGH_THREADS;
    }
  }
}
