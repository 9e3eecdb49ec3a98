import type { ReadableStorage } from 'ipfs-unixfs-exporter';
import type { CID } from 'multiformats/cid';
import { RAW_CODE } from './profile.ts';
import { readVerifiedBlock, type BlockGetter } from './verify.ts';

/**
 * The blockstore side of one `cat`, built around two behaviours of ipfs-unixfs-exporter 16.2
 * (`exporters/unixfs-v1/content/file.js`):
 *
 * 1. It reads a file's blocks into an unbounded queue as fast as the disk allows, whatever
 *    the consumer's pace: a slow download of a large file would end up wholly in memory.
 *    So a leaf read waits while `readAhead` bytes are already read and not yet taken, unless
 *    the consumer is itself waiting for data (which rules out a deadlock).
 * 2. A blockstore error below the DAG's first level escapes as an unhandled rejection
 *    (`void childQueue.add(...)`), which would crash the server on one corrupt block.
 *    So `blocks.get` never throws at the exporter: it records the failure and never settles,
 *    and `guard` raises the failure to `cat`'s consumer instead. The abandoned walk holds no
 *    timer or handle, so it is garbage once `cat` lets go of it.
 */
export class ReadSession {
  readonly #store: BlockGetter;
  readonly #readAhead: number;
  #failure: Error | undefined;
  #rejectGuarded: ((error: Error) => void) | undefined;
  #closed = false;
  #unconsumed = 0;
  #consumerWaiting = false;
  #waitingReads = new Set<() => void>();

  constructor(store: BlockGetter, readAhead: number) {
    this.#store = store;
    this.#readAhead = readAhead;
  }

  /** The verified, paced blockstore to hand to the exporter for this session only. */
  readonly blocks: ReadableStorage = {
    get: (cid: CID) => this.#get(cid),
  };

  /** Settles like `promise`, or rejects as soon as any block read of the session fails. */
  guard<T>(promise: Promise<T>): Promise<T> {
    if (this.#failure !== undefined) {
      promise.catch(() => undefined);
      return Promise.reject(this.#failure);
    }
    // One slot, replaced per call, rather than a race against a long-lived failure promise:
    // each race would leave a reaction on it, a leak that grows with the file.
    return new Promise<T>((resolve, reject) => {
      this.#rejectGuarded = reject;
      promise.then(resolve, reject);
    });
  }

  /** Pulls the next chunk from the exporter, marking the consumer as waiting meanwhile. */
  async next(iterator: AsyncIterator<Uint8Array>): Promise<IteratorResult<Uint8Array>> {
    this.#consumerWaiting = true;
    this.#wakeReads();
    try {
      return await this.guard(iterator.next());
    } finally {
      this.#consumerWaiting = false;
    }
  }

  /** Records bytes handed to the consumer, making room for further reads. */
  consumed(bytes: number): void {
    this.#unconsumed -= bytes;
    this.#wakeReads();
  }

  /** Whether a read failed: the exporter is then stuck on it and must not be awaited again. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Ends the session: the exporter's remaining reads, now or later, never happen. */
  close(): void {
    this.#closed = true;
    this.#waitingReads.clear();
  }

  async *#get(cid: CID): AsyncGenerator<Uint8Array> {
    // Interior dag-pb nodes are a few KiB each and the exporter needs them to find the
    // leaves, so only raw leaves (the file's bytes) are paced.
    const isLeaf = cid.code === RAW_CODE;
    if (isLeaf) await this.#readSlot();
    if (this.#closed || this.#failure !== undefined) return await never();
    let block: Uint8Array;
    try {
      block = await readVerifiedBlock(this.#store, cid);
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
      return await never();
    }
    if (isLeaf) this.#unconsumed += block.byteLength;
    yield block;
  }

  async #readSlot(): Promise<void> {
    while (this.#unconsumed >= this.#readAhead && !this.#consumerWaiting) {
      await new Promise<void>((resolve) => this.#waitingReads.add(resolve));
    }
  }

  #wakeReads(): void {
    const waiting = [...this.#waitingReads];
    this.#waitingReads.clear();
    for (const wake of waiting) wake();
  }

  #fail(error: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#rejectGuarded?.(error);
  }
}

/** A promise that never settles. A fresh one per call: a shared one would collect waiters forever. */
function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}
