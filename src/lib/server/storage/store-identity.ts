/**
 * Which block store a process writes its files into, as a name other processes can compare: two
 * servers whose names differ, with no gateways between them, each serve only the files they stored
 * themselves (`/v2/health` says so, `archive.ts`).
 *
 * A bucket is named by the configuration (`s3:<bucket>/<prefix>`). A folder cannot be named by its
 * path: `/srv/archivo/blocks` on two machines may be two disks or one shared mount. So the folder
 * names itself: the first process to use it writes a random id into it (`.archivo-store-id`, linked in
 * whole, so that two processes starting at once on one shared folder agree), and every process
 * that uses the folder later, on any machine, reads the same id. blockstore-fs only reads `*.data`
 * files, so the id is never taken for a block.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BlockstoreSettings } from '../config.ts';

/** The id file in a local store's folder. */
export const STORE_ID_FILE = '.archivo-store-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The name of the block store `settings` open (with the local one in `dataDir/blocks`), or null
 * when a folder cannot say it (it cannot be written or read: the health check reports that store
 * as unusable anyway).
 */
export async function storeIdentity(settings: BlockstoreSettings, dataDir: string): Promise<string | null> {
  if (settings.kind === 's3') return `s3:${settings.bucket}/${settings.prefix}`;
  try {
    return `carpeta:${await folderId(path.join(dataDir, 'blocks'))}`;
  } catch {
    return null;
  }
}

async function folderId(folder: string): Promise<string> {
  const file = path.join(folder, STORE_ID_FILE);
  const read = async () => {
    const id = (await fs.readFile(file, 'utf8')).trim();
    if (!UUID.test(id)) throw new Error(`${file} no guarda un identificador`);
    return id;
  };
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(folder, { recursive: true });
  const id = randomUUID();
  // Written whole under a name of its own, then linked in: `link` refuses a name that exists, so the
  // first process wins, and no reader ever finds the file half written.
  const draft = path.join(folder, `${STORE_ID_FILE}.${id}`);
  await fs.writeFile(draft, `${id}\n`);
  try {
    await fs.link(draft, file);
    return id;
  } catch (error) {
    // Another process named the folder first: its id is the folder's.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return read();
    throw error;
  } finally {
    await fs.rm(draft, { force: true });
  }
}
