/**
 * Where a running `npm start` serves its embedded database, so that another process of the same
 * user (`npm run harvest`) can reach it while it runs: PGlite has one owner, but its owner serves
 * it over a Unix socket (`pglite-socket.ts`) that several sessions share.
 *
 * The address is written beside the database folder (readable by this user only) when the
 * database process is ready and removed when it stops; one naming a process that is no longer
 * alive (a crash) is ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { embeddedDatabaseDir } from '../config.ts';

interface EmbeddedAddress {
  /** The `pg` connection string of the socket. */
  url: string;
  /** The database process. */
  pid: number;
}

const fileOf = (dataDir: string) => `${embeddedDatabaseDir(dataDir)}.socket.json`;

export function writeEmbeddedAddress(dataDir: string, url: string): void {
  const address: EmbeddedAddress = { url, pid: process.pid };
  fs.writeFileSync(fileOf(dataDir), JSON.stringify(address), { mode: 0o600 });
}

export function removeEmbeddedAddress(dataDir: string): void {
  fs.rmSync(fileOf(dataDir), { force: true });
}

/** The connection string of the embedded database a live process serves from `dataDir`, if any. */
export function readEmbeddedAddress(dataDir: string): string | undefined {
  let address: Partial<EmbeddedAddress>;
  try {
    address = JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as Partial<EmbeddedAddress>;
  } catch {
    return undefined;
  }
  if (typeof address.url !== 'string' || !Number.isInteger(address.pid)) return undefined;
  try {
    process.kill(address.pid!, 0);
  } catch {
    // Gone (or another user's process, whose database is not ours to reach).
    return undefined;
  }
  // The socket's folder must still be there (a reused pid is not our database).
  const folder = new URL(address.url).searchParams.get('host');
  return folder && fs.existsSync(path.join(folder, '.s.PGSQL.5432')) ? address.url : undefined;
}
