import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/lib/server/db/index.ts';

const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-lock-'));
const dataDir = path.join(folder, 'pgdata');
afterAll(() => fs.rm(folder, { recursive: true, force: true }));

describe('the embedded database folder', () => {
  it('has one owner at a time, and is free again once closed', async () => {
    const first = await openDatabase({ dataDir });
    await expect(openDatabase({ dataDir })).rejects.toThrow(/está en uso por el proceso/);
    await first.close();
    const second = await openDatabase({ dataDir });
    await second.close();
  });

  it('can wait for an owner that is letting go of it (a quick restart)', async () => {
    const first = await openDatabase({ dataDir });
    const second = openDatabase({ dataDir, lockWaitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.close();
    await (await second).close();
  });

  it('is taken over from an owner that died without closing it', async () => {
    // A real process that has ended: its pid is no longer running.
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid;
    await new Promise((resolve) => child.on('exit', resolve));
    await fs.writeFile(`${dataDir}.lock`, String(pid));
    const reopened = await openDatabase({ dataDir });
    await reopened.close();
  });
});
