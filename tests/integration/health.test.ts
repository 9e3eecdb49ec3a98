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
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { serverInstances } from '../../src/lib/server/instances/index.ts';
import { STORE_ID_FILE } from '../../src/lib/server/storage/store-identity.ts';
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
  const archive = await openArchive({ config: readConfig({ ...env, ARCHIVE_DATA_DIR: dataDir, ARCHIVE_MIGRATIONS_DIR: MIGRATIONS_DIR, ...settings }), serves: true });
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

  describe('beside its «ok», other servers that keep their files in another block store', () => {
    const WARNING =
      'Otro servidor en marcha guarda sus archivos en otro almacén de bloques que este, y este no tiene pasarelas (ARCHIVE_TRUSTLESS_GATEWAYS): cada servidor sirve solo los archivos que guardó él. Compartan un bucket (ARCHIVE_BLOCKSTORE=s3) o nombre cada uno las pasarelas /ipfs/ de los demás.';

    /** Another server's row, as it registers itself: its lease holding for a minute, or run out. */
    const otherServer = (archive: Archive, storeId: string | null, leaseMs = 60_000) =>
      archive.db.insert(serverInstances).values({
        id: randomUUID(),
        hostname: 'servidor-b.interno',
        pid: 4242,
        storeId,
        leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
      });

    it('warns while one runs on its own folder, without naming it, and not for one on this folder, one gone, or one that did not say', async () => {
      const archive = await archiveIn();
      const dataDir = archive.config.dataDir;
      const ownId = (await fs.readFile(path.join(dataDir, 'blocks', STORE_ID_FILE), 'utf8')).trim();
      expect(ownId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await archive.warnings()).toEqual([]);

      await otherServer(archive, `carpeta:${randomUUID()}`);
      expect(await archive.warnings()).toEqual([WARNING]);
      expect((await archive.warnings()).join(' ')).not.toContain('servidor-b');
      // A warning, not a failure: the load balancer keeps the server.
      expect(await archive.unready()).toBeNull();

      // Two of them are counted.
      await otherServer(archive, 's3:otro-bucket/blocks/');
      expect(await archive.warnings()).toEqual([WARNING.replace('Otro servidor en marcha guarda', '2 servidores más en marcha guardan')]);

      // The same folder (a shared mount), a server whose lease ran out, and an older version's row: nothing.
      await archive.db.delete(serverInstances).where(eq(serverInstances.hostname, 'servidor-b.interno'));
      await otherServer(archive, `carpeta:${ownId}`);
      await otherServer(archive, `carpeta:${randomUUID()}`, -1_000);
      await otherServer(archive, null);
      expect(await archive.warnings()).toEqual([]);
    }, 60_000);

    it('says nothing when gateways join the stores, and the folder keeps its name across restarts', async () => {
      const archive = await archiveIn(undefined, { ARCHIVE_TRUSTLESS_GATEWAYS: 'http://127.0.0.1:9' });
      await otherServer(archive, `carpeta:${randomUUID()}`);
      expect(await archive.warnings()).toEqual([]);
      const dataDir = archive.config.dataDir;
      const named = await fs.readFile(path.join(dataDir, 'blocks', STORE_ID_FILE), 'utf8');
      await opened.splice(opened.indexOf(archive), 1)[0]!.close();
      const again = await openArchive({ config: archive.config, serves: true });
      opened.push(again);
      expect(await fs.readFile(path.join(dataDir, 'blocks', STORE_ID_FILE), 'utf8')).toBe(named);
      const [row] = await again.db.select({ storeId: serverInstances.storeId }).from(serverInstances).where(sql`${serverInstances.hostname} <> 'servidor-b.interno'`);
      expect(row?.storeId).toBe(`carpeta:${named.trim()}`);
      // A command (a harvest queued, a migration) serves no file: it does not say where it keeps them.
      await opened.splice(opened.indexOf(again), 1)[0]!.close();
      const command = await openArchive({ config: archive.config });
      opened.push(command);
      const rows = await command.db.select({ storeId: serverInstances.storeId }).from(serverInstances).where(sql`${serverInstances.hostname} <> 'servidor-b.interno'`);
      expect(rows).toEqual([{ storeId: null }]);
    }, 60_000);
  });
});
