/**
 * Which block store a process writes its files into, as a name other processes can compare: two
 * servers whose names differ, with no gateways between them, each serve only the files they stored
 * themselves (`/v2/health` says so, `archive.ts`).
 *
 * A bucket is named by the configuration (`s3:<service>/<bucket>/<prefix>`). A folder cannot be named by its
 * path: `/srv/archivo/blocks` on two machines may be two disks or one shared mount. So the folder
 * names itself: the first process to use it writes a random id into it (`.archivo-store-id`, linked in
 * whole, so that two processes starting at once on one shared folder agree), and every process
 * that uses the folder later, on any machine, reads the same id. blockstore-fs only reads `*.data`
 * files, so the id is never taken for a block. A copy of the folder (a restored backup, a cloned
 * disk) carries the id with it: one that is to become a store of its own must drop the file
 * (README, «Varios servidores»).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlockstoreSettings } from '../config.ts';

/** The id file in a local store's folder. */
export const STORE_ID_FILE = '.archivo-store-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The name of the block store `settings` open (with the local one in `dataDir/blocks`), or null
 * when a folder cannot say it (it cannot be written or read, or holds something else under the
 * name's file): said in the log, since the other servers then cannot be compared with this one.
 */
export async function storeIdentity(settings: BlockstoreSettings, dataDir: string): Promise<string | null> {
  if (settings.kind === 's3') {
    // The service too: two MinIOs, one per server, may each hold a bucket of the same name.
    const service = settings.endpoint ? new URL(settings.endpoint).host : `aws:${settings.region}`;
    return `s3:${service}/${settings.bucket}/${settings.prefix}`;
  }
  const folder = path.join(dataDir, 'blocks');
  try {
    return `carpeta:${await folderId(folder)}`;
  } catch (error) {
    console.warn(
      `No se pudo leer ni dar nombre a la carpeta de bloques ${folder} (${error instanceof Error ? error.message : String(error)}): ` +
        'este servidor no podrá avisar si otro guarda sus archivos en otro almacén.',
    );
    return null;
  }
}

/** Reads of a name file found empty or cut short (written by a process without hard links) before giving up. */
const READ_TRIES = 5;

async function folderId(folder: string): Promise<string> {
  const file = path.join(folder, STORE_ID_FILE);
  const read = async () => {
    for (let attempt = 1; ; attempt += 1) {
      const id = (await fs.readFile(file, 'utf8')).trim();
      if (UUID.test(id)) return id;
      // Another process is writing it (see below): a moment later it is whole.
      if (attempt >= READ_TRIES || id.length >= 36) throw new Error(`${file} no guarda un identificador`);
      await sleep(20 * attempt);
    }
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
    const code = (error as NodeJS.ErrnoException).code;
    // Another process named the folder first: its id is the folder's.
    if (code === 'EEXIST') return read();
    if (code !== 'EPERM' && code !== 'ENOSYS' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    // A file system without hard links (SMB, exFAT, some FUSE): created exclusively instead, and a
    // reader that finds it before its few bytes are in reads again.
    try {
      await fs.writeFile(file, `${id}\n`, { flag: 'wx' });
      return id;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return read();
      throw cause;
    }
  } finally {
    await fs.rm(draft, { force: true });
  }
}
