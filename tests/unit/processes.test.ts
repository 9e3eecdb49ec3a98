/**
 * The benchmark's server stop (bench/server.ts) waits for the server's children: the embedded
 * database goes on writing into the data folder for a moment after the server has ended.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf, isRunning, waitForExit } from '../helpers/processes.ts';

const node = (code: string) => spawn(process.execPath, ['-e', code], { stdio: 'ignore' });

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
});

describe('waiting for a process to end', () => {
  it('outlasts a child that goes on writing after its parent has gone, like the embedded database', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-processes-'));
    // The child writes ten files, 30 ms apart, once its parent's IPC channel closes (as embedded-db.ts closes PGlite).
    const child = `process.on('disconnect', async () => {
      for (let i = 0; i < 10; i++) { require('fs').writeFileSync(${JSON.stringify(dir)} + '/' + i, 'x'); await new Promise((r) => setTimeout(r, 30)); }
      process.exit(0);
    }); setInterval(() => {}, 1000);`;
    const parent = node(`require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }); setInterval(() => {}, 1000);`);
    let children: number[] = [];
    for (let tries = 0; children.length === 0 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      children = childrenOf(parent.pid!);
    }
    started.push(parent.pid!, ...children);
    expect(children).toHaveLength(1);

    parent.kill('SIGTERM');
    await new Promise((resolve) => parent.once('exit', resolve));
    expect(await waitForExit(children, 10_000)).toEqual([]);
    expect(isRunning(children[0]!)).toBe(false);
    // Every file was written before the wait ended: removing the folder now races with nothing.
    expect((await fs.readdir(dir)).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    await fs.rm(dir, { recursive: true });
  });

  it('kills what is still running at the deadline, and says so', async () => {
    const stuck = node('setInterval(() => {}, 1000);');
    started.push(stuck.pid!);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = Date.now();
    expect(await waitForExit([stuck.pid!], 300)).toEqual([stuck.pid]);
    expect(Date.now() - before).toBeGreaterThanOrEqual(300);
    // Killed, it may linger as a zombie until Node reaps it: that is not running.
    expect(isRunning(stuck.pid!)).toBe(false);
  });

  it('takes a zombie (ended, not yet reaped) for ended, as process.kill(pid, 0) does not', async () => {
    // `sleep 0` ends at once, and the `sleep 5` that replaces its parent shell never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & exec sleep 5'], { stdio: 'ignore' });
    started.push(parent.pid!);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [zombie] = childrenOf(parent.pid!);
    expect(zombie).toBeDefined();
    expect(() => process.kill(zombie!, 0)).not.toThrow();
    expect(isRunning(zombie!)).toBe(false);
  });

  it('answers at once for processes that have already ended', async () => {
    const done = node('');
    await new Promise((resolve) => done.once('exit', resolve));
    const before = Date.now();
    expect(await waitForExit([done.pid!], 5000)).toEqual([]);
    expect(Date.now() - before).toBeLessThan(1000);
  });
});
