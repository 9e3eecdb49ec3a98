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
 * copy alone.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';

export interface DiskCallsOptions {
  /** A direct call that takes longer than this sends the next ones through the threads. */
  slowCallMs?: number;
  /** For how long, after a slow call. */
  coolDownMs?: number;
  /** Larger writes always go through the threads. */
  maxDirectBytes?: number;
  /** The clock (`performance.now()`); tests pass their own. */
  now?: () => number;
}

/** How the next call will be made. */
export type DiskCallMode = 'direct' | 'threads';

export class DiskCalls {
  readonly #slowCallMs: number;
  readonly #coolDownMs: number;
  readonly #maxDirectBytes: number;
  readonly #now: () => number;
  /** Until when (on `#now`'s clock) calls go through the threads. */
  #threadsUntil = Number.NEGATIVE_INFINITY;

  constructor({ slowCallMs = 5, coolDownMs = 30_000, maxDirectBytes = 1024 * 1024, now = () => performance.now() }: DiskCallsOptions = {}) {
    this.#slowCallMs = slowCallMs;
    this.#coolDownMs = coolDownMs;
    this.#maxDirectBytes = maxDirectBytes;
    this.#now = now;
  }

  get mode(): DiskCallMode {
    return this.#now() < this.#threadsUntil ? 'threads' : 'direct';
  }

  /** Writes `bytes` to `file`, creating or replacing it. */
  async writeFile(file: string, bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength > this.#maxDirectBytes || this.mode === 'threads') return fs.writeFile(file, bytes);
    this.#timed(() => writeFileSync(file, bytes));
  }

  /** Moves `from` to `to`, replacing what is there. */
  async rename(from: string, to: string): Promise<void> {
    if (this.mode === 'threads') return fs.rename(from, to);
    this.#timed(() => renameSync(from, to));
  }

  /** Whether `file` exists (and can be seen): `fs.access` without a mode, as blockstore-fs asks. */
  async exists(file: string): Promise<boolean> {
    if (this.mode === 'threads') return fs.access(file).then(() => true, () => false);
    return this.#timed(() => existsSync(file));
  }

  /** Runs a direct call, and notes it when it was slow (failed or not). */
  #timed<T>(call: () => T): T {
    const started = this.#now();
    try {
      return call();
    } finally {
      const ended = this.#now();
      if (ended - started > this.#slowCallMs) this.#threadsUntil = ended + this.#coolDownMs;
    }
  }
}

/** The calls every store and staging area of this process makes: one disk, one judgement of it. */
export const diskCalls = new DiskCalls();
