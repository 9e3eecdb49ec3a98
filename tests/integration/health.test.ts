/**
 * What `/v2/health` tells a load balancer (`Archive.unready`), on the embedded database: a server
 * that reaches its database, holds its lease and can write its block store is ready; one whose
 * block store it cannot write (here a file where its folder should be) is not, and says why,
 * instead of answering «ok» while every upload and download fails.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { MIGRATIONS_DIR } from '../helpers/database.ts';

const opened: Archive[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((archive) => archive.close()));
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

async function archiveIn(prepare: (dataDir: string) => Promise<void> = async () => {}): Promise<Archive> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-health-'));
  dirs.push(dataDir);
  await prepare(dataDir);
  const { DATABASE_URL: _, ...env } = process.env;
  const archive = await openArchive({ config: readConfig({ ...env, ARCHIVE_DATA_DIR: dataDir, ARCHIVE_MIGRATIONS_DIR: MIGRATIONS_DIR }) });
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
});
