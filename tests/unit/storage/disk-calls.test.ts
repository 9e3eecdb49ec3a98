import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { DiskCalls, diskCalls, diskCallsFor, isRemoteFileSystem } from '../../../src/lib/server/storage/disk-calls.ts';
import { useTempDirs } from './helpers.ts';

/** A clock the test moves: every reading of it moves it on by `callTakes`, so a timed call lasts that long. */
function steppingClock() {
  let time = 0;
  let step = 0;
  return {
    now: () => {
      const read = time;
      time += step;
      return read;
    },
    set callTakes(ms: number) {
      step = ms;
    },
    advance(ms: number) {
      time += ms;
    },
  };
}

/** Calls that go through the threads: every direct call counts as slow, and one is made first. */
async function throughThreads(dir: string): Promise<DiskCalls> {
  const calls = new DiskCalls({ slowCallMs: -1 });
  await calls.exists(dir);
  expect(calls.mode).toBe('threads');
  return calls;
}

describe('DiskCalls', () => {
  const tempDir = useTempDirs();
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });

  it('writes, moves and finds files, both directly and through the threads', async () => {
    // Direct however slow this machine's disk is: a slow call would quietly switch the mode.
    for (const calls of [new DiskCalls({ slowCallMs: Number.POSITIVE_INFINITY }), await throughThreads(dir)]) {
      const mode = calls.mode;
      const staged = path.join(dir, `staged-${calls.mode}`);
      const kept = path.join(dir, `kept-${calls.mode}`);
      await calls.writeFile(staged, new Uint8Array([1, 2, 3]));
      expect(await calls.exists(staged)).toBe(true);
      await calls.rename(staged, kept);
      expect(await calls.exists(staged)).toBe(false);
      expect([...readFileSync(kept)]).toEqual([1, 2, 3]);
      // A move replaces what is there: the same block adopted twice.
      writeFileSync(staged, 'otra');
      await calls.rename(staged, kept);
      expect(readFileSync(kept, 'utf8')).toBe('otra');
      expect(calls.mode).toBe(mode);
    }
  });

  it('fails as the file system does, with its error code, whichever way it calls', async () => {
    const missing = path.join(dir, 'no-such-folder', 'block');
    const direct = new DiskCalls({ slowCallMs: Number.POSITIVE_INFINITY });
    await expect(direct.writeFile(missing, new Uint8Array(1))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(direct.rename(missing, path.join(dir, 'x'))).rejects.toMatchObject({ code: 'ENOENT' });
    const threads = await throughThreads(dir);
    await expect(threads.writeFile(missing, new Uint8Array(1))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(threads.rename(missing, path.join(dir, 'x'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('sends calls through the threads for a while after a slow one, then directly again', async () => {
    const clock = steppingClock();
    const calls = new DiskCalls({ slowCallMs: 5, coolDownMs: 1_000, now: clock.now });
    const file = path.join(dir, 'block');
    clock.callTakes = 1;
    await calls.writeFile(file, new Uint8Array(10));
    expect(calls.mode).toBe('direct');
    // The disk falls behind: one call takes 20 ms.
    clock.callTakes = 20;
    await calls.writeFile(file, new Uint8Array(10));
    clock.callTakes = 0;
    expect(calls.mode).toBe('threads');
    // Through the threads nothing is timed: however long a call takes, the cool-down is not pushed on.
    clock.callTakes = 20;
    await calls.rename(file, path.join(dir, 'moved'));
    clock.callTakes = 0;
    expect(await calls.exists(path.join(dir, 'moved'))).toBe(true);
    expect(calls.mode).toBe('threads');
    clock.advance(1_000);
    expect(calls.mode).toBe('direct');
    // A slow call that failed counts as slow too.
    clock.callTakes = 20;
    await expect(calls.rename(path.join(dir, 'gone'), file)).rejects.toMatchObject({ code: 'ENOENT' });
    clock.callTakes = 0;
    expect(calls.mode).toBe('threads');
  });

  it('writes a buffer larger than a block through the threads, never holding the loop for its copy', async () => {
    const clock = steppingClock();
    clock.callTakes = 50;
    const calls = new DiskCalls({ slowCallMs: 5, maxDirectBytes: 1024, now: clock.now });
    await calls.writeFile(path.join(dir, 'large'), new Uint8Array(4096));
    // Not made directly, so not timed: a slow answer would have switched the mode.
    expect(calls.mode).toBe('direct');
    await calls.writeFile(path.join(dir, 'small'), new Uint8Array(1024));
    clock.callTakes = 0;
    expect(calls.mode).toBe('threads');
  });

  it('lets the event loop go round once direct calls have spent their budget in one turn', async () => {
    const clock = steppingClock();
    // Each call takes 4 ms, under the slow mark: three spend the 10 ms of a turn.
    clock.callTakes = 4;
    const calls = new DiskCalls({ slowCallMs: 5, turnBudgetMs: 10, now: clock.now });
    const order: string[] = [];
    setImmediate(() => order.push('el bucle da la vuelta'));
    await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => {
        await calls.writeFile(path.join(dir, `block-${n}`), new Uint8Array(10));
        order.push(`bloque ${n}`);
      }),
    );
    expect(order).toEqual(['bloque 1', 'bloque 2', 'bloque 3', 'el bucle da la vuelta', 'bloque 4', 'bloque 5']);
    clock.callTakes = 0;
    expect(calls.mode).toBe('direct');
  });

  it('never calls directly in a folder of a network or FUSE file system', () => {
    // statfs magic numbers: NFS, CIFS (signed or not), SMB2, FUSE; ext4, tmpfs and XFS are local.
    for (const remote of [0x6969, 0xff534d42, -0xacb2be, 0xfe534d42, 0x65735546, 0x5346414fn]) expect(isRemoteFileSystem(remote), String(remote)).toBe(true);
    for (const local of [0xef53, 0x01021994, 0x58465342]) expect(isRemoteFileSystem(local), String(local)).toBe(false);
    // The temporary folder is on a local disk here (tmpfs or ext4): the shared direct calls, also for a folder not made yet.
    expect(diskCallsFor(path.join(dir, 'blocks', 'aún no'))).toBe(diskCalls);
  });
});
