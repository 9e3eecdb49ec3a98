import { createCipheriv, createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { FileGuard, GuardedTx } from '../../../src/lib/server/storage/index.ts';

export const KiB = 1024;
export const MiB = 1024 * KiB;

/**
 * A fresh temporary folder per test, removed after it. Call at the top of a `describe`; the
 * returned function gives the current test's folder.
 */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archivo-storage-'));
    made.push(dir);
    return dir;
  };
}

/**
 * Deterministic pseudo-random bytes (the AES-128-CTR keystream of `seed`), generated lazily
 * in pieces of `pieceSize`. The odd default size makes pieces straddle chunk boundaries.
 */
export async function* pseudoRandom(
  total: number,
  seed = 1,
  pieceSize = 100_003,
): AsyncGenerator<Uint8Array> {
  const key = Buffer.alloc(16);
  key.writeUInt32BE(seed);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(pieceSize);
  for (let done = 0; done < total; done += pieceSize) {
    yield cipher.update(zeros.subarray(0, Math.min(pieceSize, total - done)));
  }
}

/** Zero bytes, lazily, in 1 MiB pieces. */
export async function* zeros(total: number): AsyncGenerator<Uint8Array> {
  const piece = new Uint8Array(MiB);
  for (let done = 0; done < total; done += piece.length) {
    yield piece.subarray(0, Math.min(piece.length, total - done));
  }
}

/** Gathers a (small) stream into one buffer. */
export async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

/** sha-256 and length of a stream, to compare large contents without holding them. */
export async function digestOf(
  stream: AsyncIterable<Uint8Array>,
): Promise<{ sha256: string; length: number }> {
  const hash = createHash('sha256');
  let length = 0;
  for await (const part of stream) {
    hash.update(part);
    length += part.length;
  }
  return { sha256: hash.digest('hex'), length };
}

/** Every file under `dir`, recursively, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * A staging guard whose "committed rows" hold the files in `held`, for staging without a database
 * (the database's guard is tested in tests/integration/staging-instances.test.ts); each undo's
 * question goes into `asked`.
 */
export function guardHolding(held: ReadonlySet<string> = new Set(), asked: string[][] = []): FileGuard {
  return {
    hold: async () => {},
    undoing: (cids, undo) => {
      asked.push([...cids]);
      return undo(new Set(cids.filter((cid) => held.has(cid))));
    },
  };
}

/** Where staging without a database commits: `guardHolding` never uses it, and it runs no statement. */
export const NO_TRANSACTION: GuardedTx = {
  execute: () => {
    throw new Error('Sin base de datos en esta prueba.');
  },
};

/** A gate a test opens by hand: `opened` resolves once `open()` is called. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Whether `promise` has settled yet, read synchronously (`state.done`). */
export function settled(promise: Promise<unknown>): { done: boolean } {
  const state = { done: false };
  void promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}
