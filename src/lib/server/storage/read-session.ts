import type { ReadableStorage } from 'ipfs-unixfs-exporter';
import type { CID } from 'multiformats/cid';
import { CHUNK_SIZE, RAW_CODE } from './profile.ts';
import { readVerifiedBlock, type BlockGetter } from './verify.ts';

/**
 * The blockstore side of one `cat`, built around four behaviours of ipfs-unixfs-exporter 16.2
 * (`exporters/unixfs-v1/content/file.js`) and it-parallel 3.0:
 *
 * 1. The exporter reads a file's blocks into an unbounded queue as fast as the disk allows,
 *    whatever the consumer's pace: a slow download of a large file would end up in memory.
 * 2. Its `blockReadConcurrency` option does not bound that: it-parallel's ordered mode lets
 *    its task count overshoot the limit (`ops.length === concurrency` is then never true
 *    again), and a slow consumer sets 170 reads going at once.
 *    So the session paces leaf reads itself: a read starts only while fewer than `readAhead`
 *    bytes are being read or waiting for the consumer, or, so that nothing can deadlock, when
 *    the consumer is waiting for data and no other read is under way.
 * 3. A blockstore error below the DAG's first level escapes as an unhandled rejection
 *    (`void childQueue.add(...)`), which would crash the server on one corrupt block.
 *    So a failed `blocks.get` never throws at the exporter: it records the failure and never
 *    settles, and `guard` raises the failure to `cat`'s consumer instead. The abandoned walk
 *    holds no timer or handle, so it is garbage once `cat` lets go of it.
 * 4. A range that ends on a block boundary also reads the next block (the child test treats
 *    the exclusive end as inclusive). So a failure is raised only once no read is under way
 *    and the consumer still waits: a damaged block just past a range must not spoil it.
 */
export class ReadSession {
  readonly #store: BlockGetter;
  readonly #readAhead: number;
  #failure: Error | undefined;
  #rejectGuarded: ((error: Error) => void) | undefined;
  #closed = false;
  /** Leaf bytes being read, or read and not yet handed to the consumer. */
  #outstanding = 0;
  /** Block reads under way, leaves and interior nodes alike. */
  #reading = 0;
  #consumerWaiting = false;
  #waitingReads = new Set<() => void>();

  constructor(store: BlockGetter, readAhead: number) {
    this.#store = store;
    this.#readAhead = readAhead;
  }

  /** The verified, paced blockstore to hand to the exporter, for this session only. */
  readonly blocks: ReadableStorage = {
    get: (cid: CID) => this.#get(cid),
  };

  /** Settles like `promise`, unless a block read failed and nothing else is on its way. */
  guard<T>(promise: Promise<T>): Promise<T> {
    // One slot, replaced per call, rather than a race against a long-lived failure promise:
    // each race would leave a reaction on it, a leak that grows with the file.
    return new Promise<T>((resolve, reject) => {
      this.#rejectGuarded = reject;
      promise.then(resolve, reject);
      if (this.#failure !== undefined) this.#raiseFailureWhenIdle();
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
    this.#outstanding -= bytes;
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
    // The block's size is known only once read: count a full chunk until then.
    const reserved = isLeaf ? CHUNK_SIZE : 0;
    await this.#startRead(reserved);
    if (this.#closed) return await never();
    let block: Uint8Array | undefined;
    let failure: unknown;
    try {
      block = await readVerifiedBlock(this.#store, cid);
    } catch (error) {
      failure = error;
    }
    this.#outstanding += (isLeaf && block ? block.byteLength : 0) - reserved;
    this.#reading -= 1;
    if (block === undefined) {
      this.#fail(failure instanceof Error ? failure : new Error(String(failure)));
      return await never();
    }
    this.#wakeReads();
    yield block;
  }

  /** Waits for room to read `bytes`, then takes it (in the same turn, so no one else can). */
  async #startRead(bytes: number): Promise<void> {
    while (bytes > 0 && !this.#mayRead()) {
      await new Promise<void>((resolve) => this.#waitingReads.add(resolve));
    }
    this.#outstanding += bytes;
    this.#reading += 1;
  }

  #mayRead(): boolean {
    if (this.#outstanding < this.#readAhead) return true;
    // Past the budget, one read at a time while the consumer starves, so nothing deadlocks;
    // but not after a failure, when the starving consumer is owed an error instead.
    return this.#consumerWaiting && this.#reading === 0 && this.#failure === undefined;
  }

  #wakeReads(): void {
    const waiting = [...this.#waitingReads];
    this.#waitingReads.clear();
    for (const wake of waiting) wake();
    if (this.#failure !== undefined) this.#raiseFailureWhenIdle();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#wakeReads();
  }

  /**
   * Rejects the pending `guard` once no read is under way and what the finished ones produced
   * has had time to pass through the exporter (it does so in microtasks; `setImmediate` runs
   * after them). If bytes reached the consumer meanwhile, the rejection is a no-op.
   */
  #raiseFailureWhenIdle(): void {
    if (this.#reading > 0) return; // the last read to finish calls back through #wakeReads
    setImmediate(() => {
      const failure = this.#failure;
      if (failure !== undefined && this.#reading === 0) this.#rejectGuarded?.(failure);
    });
  }
}

/** A promise that never settles; a fresh one per call, as a shared one would hoard waiters. */
function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}
