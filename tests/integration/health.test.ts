/**
 * What `/v2/health` tells a load balancer (`Archive.unready`), on the embedded database: a server
 * that reaches its database, holds its lease and can write its block store is ready; one whose
 * block store it cannot write (here a file where its folder should be) is not, and says why,
 * instead of answering «ok» while every upload and download fails; one whose lease ran out (a
 * process that stalled longer than the lease: other servers may be clearing what it staged) is
 * not ready until its next heartbeat gives it a lease again.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { MIGRATIONS_DIR } from '../helpers/database.ts';

const opened: Archive[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((archive) => archive.close()));
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

async function archiveIn(prepare: (dataDir: string) => Promise<void> = async () => {}, settings: Record<string, string> = {}): Promise<Archive> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-health-'));
  dirs.push(dataDir);
  await prepare(dataDir);
  const { DATABASE_URL: _, ...env } = process.env;
  const archive = await openArchive({ config: readConfig({ ...env, ARCHIVE_DATA_DIR: dataDir, ARCHIVE_MIGRATIONS_DIR: MIGRATIONS_DIR, ...settings }) });
  opened.push(archive);
  return archive;
}

describe('the health check', () => {
  it('says a server that reaches its database and can write its blocks is ready', async () => {
    const archive = await archiveIn();
    expect(await archive.unready()).toBeNull();
  }, 60_000);

  it('says why when the block store is not there to be used', async () => {
    const archive = await archiveIn((dataDir) => fs.writeFile(path.join(dataDir, 'blocks'), 'no es una carpeta'));
    expect(await archive.unready()).toBe('El archivo no puede usar su almacén de bloques: vea el registro del servidor.');
  }, 60_000);

  it('says so while the lease has run out, and is ready again once a heartbeat gets a new one', async () => {
    // A lease of 2 s, renewed every 500 ms.
    const archive = await archiveIn(undefined, { ARCHIVE_INSTANCE_LEASE_MS: '2000' });
    expect(await archive.unready()).toBeNull();
    // What the server logs meanwhile, read below instead of printed.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      // The whole process stalls past its lease (a long pause of the collector, a frozen VM): no
      // timer, so no heartbeat, runs meanwhile.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_500);
      expect(await archive.unready()).toBe('La concesión de este servidor en la base de datos venció: no confirma subidas ni capturas hasta renovarla.');
      // The next heartbeat finds the lease gone and registers the server again, under a new id,
      // and says so in the server's log.
      const deadline = Date.now() + 10_000;
      let problem: string | null = 'sin respuesta';
      while (problem !== null && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        problem = await archive.unready();
      }
      expect(problem).toBeNull();
      const told = logged.mock.calls.map(([, error]) => (error instanceof Error ? error.message : '')).find((message) => message.includes('venció'));
      const [, lost, now] = /^La concesión de la instancia (\S+) venció; sigue como (\S+)\.$/.exec(told ?? '') ?? [];
      expect(lost).toBeTruthy();
      expect(now).not.toBe(lost);
    } finally {
      logged.mockRestore();
    }
  }, 60_000);
});
