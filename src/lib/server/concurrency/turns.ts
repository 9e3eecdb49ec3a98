/**
 * Turns at something only so many may do at once, per key: the one hand-off of a held slot in this
 * process. The job worker takes one per host (politeness) and one of its `concurrency` slots; the
 * read-through takes one of its gateway request slots.
 *
 * The waiters of a key are served in the order they came, and a turn given back passes straight
 * to the next of them rather than being freed: a newcomer that finds the count below the limit
 * can never jump ahead of one that has been waiting. A waiter whose signal aborts leaves the line
 * (only it) with the signal's reason. With `maxWaiting`, a line that long refuses the next waiter
 * at once, so that a flood is a quick error rather than an ever longer wait.
 */

export interface TurnsOptions {
  /** Waiters per key at most; past that, `take` rejects at once with `tooManyWaiting()`. No cap without it. */
  maxWaiting?: number;
  /** The error a waiter past `maxWaiting` gets. */
  tooManyWaiting?: () => Error;
}

interface Waiter {
  granted(): void;
}

export class Turns {
  readonly #limit: number;
  readonly #maxWaiting: number;
  readonly #tooManyWaiting: () => Error;
  /** Turns held per key; a key with none is absent. */
  #taken = new Map<string, number>();
  /** Waiters per key, first come first; a key with none is absent. */
  #waiting = new Map<string, Waiter[]>();

  /** `limit` turns at once per key. */
  constructor(limit: number, options: TurnsOptions = {}) {
    this.#limit = limit;
    this.#maxWaiting = options.maxWaiting ?? Number.POSITIVE_INFINITY;
    this.#tooManyWaiting = options.tooManyWaiting ?? (() => new Error('Demasiados turnos en espera.'));
  }

  /** Whether a turn at `key` would be given at once. */
  free(key: string): boolean {
    return (this.#taken.get(key) ?? 0) < this.#limit;
  }

  /** How many wait for a turn at `key`. */
  waiting(key: string): number {
    return this.#waiting.get(key)?.length ?? 0;
  }

  /**
   * Resolves, once a turn at `key` is this caller's, with the function that gives it back (once,
   * however often it is called). Rejects with `signal`'s reason if it aborts first (or had, when
   * the caller has to wait), and at once when the line is full (`maxWaiting`). A turn free now is
   * given whatever the signal says: the caller's own work will see the abort.
   */
  async take(key: string, signal: AbortSignal): Promise<() => void> {
    if (this.free(key)) this.#taken.set(key, (this.#taken.get(key) ?? 0) + 1);
    else await this.#wait(key, signal);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#giveBack(key);
    };
  }

  /** `task` run while holding a turn at `key` (`take`'s rules), the turn given back when it settles. */
  async run<R>(key: string, signal: AbortSignal, task: () => Promise<R>): Promise<R> {
    const giveBack = await this.take(key, signal);
    try {
      return await task();
    } finally {
      giveBack();
    }
  }

  #wait(key: string, signal: AbortSignal): Promise<void> {
    const line = this.#waiting.get(key) ?? [];
    if (line.length >= this.#maxWaiting) return Promise.reject(this.#tooManyWaiting());
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#leave(key, waiter);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        granted() {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      line.push(waiter);
      this.#waiting.set(key, line);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #leave(key: string, waiter: Waiter): void {
    const line = this.#waiting.get(key);
    if (!line) return;
    const index = line.indexOf(waiter);
    if (index >= 0) line.splice(index, 1);
    if (line.length === 0) this.#waiting.delete(key);
  }

  #giveBack(key: string): void {
    // The turn passes straight to the next waiter (the count stays), or is freed.
    const line = this.#waiting.get(key);
    const next = line?.shift();
    if (line?.length === 0) this.#waiting.delete(key);
    if (next) return next.granted();
    const taken = (this.#taken.get(key) ?? 1) - 1;
    if (taken > 0) this.#taken.set(key, taken);
    else this.#taken.delete(key);
  }
}
