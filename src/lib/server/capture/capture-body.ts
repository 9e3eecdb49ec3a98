/**
 * The body of a captured response as a stream the caller reads at its own pace, with the limits a
 * hostile server must not get past: a size limit counted on the bytes as they arrive (a
 * Content-Length may lie, a chunked body has none), an idle limit between chunks, and a check that
 * the server finished what it started (a connection cut mid-body is an error, never a short file).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { CaptureError } from './errors.ts';

export interface BodyLimits {
  /** Most bytes accepted; one more fails the stream with `too_large`. */
  maxBytes: number;
  /** Longest wait for the next chunk while the reader is asking for one. */
  idleTimeoutMs: number;
  /** The URL being read, for the error. */
  url: string;
}

/**
 * A readable stream over `response`'s body. The idle timer runs only while this stream is waiting
 * for the server: a slow reader (a disk, a hash) pauses the response without counting as the
 * server's silence.
 */
export class CaptureBody extends Readable {
  readonly #response: IncomingMessage;
  readonly #limits: BodyLimits;
  #idle: NodeJS.Timeout | undefined;
  #received = 0;

  constructor(response: IncomingMessage, limits: BodyLimits) {
    super();
    // A body can fail before anyone reads it (the server cuts the connection while the caller is
    // still writing its capture record); an 'error' event nobody listens to would end the whole
    // process. The error stays on the stream (`errored`): a later read, `for await` or `pipeline`
    // still fails with it.
    this.on('error', () => {});
    this.#response = response;
    this.#limits = limits;
    response.on('data', (chunk: Buffer) => this.#onChunk(chunk));
    response.pause();
    response.on('end', () => {
      this.#stopIdle();
      if (response.complete) this.push(null);
      else this.#fail(new CaptureError('body_incomplete', undefined, { url: limits.url }));
    });
    response.on('error', (error) => this.#fail(error));
    response.on('close', () => {
      if (!response.complete) this.#fail(new CaptureError('body_incomplete', undefined, { url: limits.url }));
    });
  }

  /** Bytes received from the server so far (all of them once the stream has ended). */
  get bytesReceived(): number {
    return this.#received;
  }

  override _read(): void {
    this.#startIdle();
    this.#response.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#stopIdle();
    this.#response.destroy();
    callback(error);
  }

  #onChunk(chunk: Buffer): void {
    this.#stopIdle();
    this.#received += chunk.length;
    if (this.#received > this.#limits.maxBytes) {
      this.#fail(new CaptureError('too_large', `más de ${this.#limits.maxBytes} bytes`, { url: this.#limits.url }));
      return;
    }
    if (this.push(chunk)) this.#startIdle();
    else this.#response.pause();
  }

  #fail(error: Error): void {
    if (this.destroyed) return;
    const failure =
      error instanceof CaptureError ? error : new CaptureError('body_incomplete', error.message, { cause: error, url: this.#limits.url });
    this.destroy(failure);
  }

  #startIdle(): void {
    if (this.#idle || this.readableEnded) return;
    this.#idle = setTimeout(() => {
      this.#fail(new CaptureError('body_idle_timeout', `${this.#limits.idleTimeoutMs} ms sin datos`, { url: this.#limits.url }));
    }, this.#limits.idleTimeoutMs);
  }

  #stopIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }
}
