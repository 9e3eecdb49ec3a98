/**
 * The README's "Copias de seguridad", done as an operator would, on both engines: an archive is
 * copied the way the README says, restored somewhere else, and opened by the same code `npm start`
 * runs. The copy must hold every record and every byte: each stored file (documents, proofs,
 * sheets, versions) is read back through the restored store and checked against its CID.
 *
 * - embedded: the server stopped, the data folder copied as it is (its `staging/` left behind);
 * - PostgreSQL: `pg_dump` while the archive runs, then its blocks folder, in that order.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { count } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { alexandrias, imports, sheetPreviews, sources } from '../../src/lib/server/db/schema.ts';
import { auditFile } from '../../src/lib/server/fixity/index.ts';
import { storedFilesAfter } from '../../src/lib/server/fixity/files.ts';
import { adminQuery, databaseUrl } from '../setup/database-templates.ts';
import { testEngines } from '../helpers/database.ts';

const run = promisify(execFile);

/** What must come back whole: the rows that count, and every stored file's CID. */
async function contents(archive: Archive) {
  const rows = async (table: typeof alexandrias | typeof imports | typeof sheetPreviews | typeof sources) => (await archive.db.select({ n: count() }).from(table))[0]!.n;
  const files = await storedFilesAfter(archive.db, null, 100_000);
  return {
    records: await rows(alexandrias),
    imports: await rows(imports),
    sheets: await rows(sheetPreviews),
    sources: await rows(sources),
    files: files.map((file) => file.cid),
  };
}

/** Every stored file read back from `archive`'s store and checked against its CID; the failures. */
async function unreadable(archive: Archive, cids: readonly string[]) {
  const failures: string[] = [];
  for (const cid of cids) {
    const audit = await auditFile(archive.store, cid);
    if (!audit.ok) failures.push(`${cid}: ${audit.reason}`);
  }
  return failures;
}

const temporaryDir = (prefix: string) => fs.mkdtemp(path.join(os.tmpdir(), prefix));

/** The archive on `dataDir` (and on the PostgreSQL at `url`, else embedded there), opened as `npm start` opens it. */
const openAt = (dataDir: string, url = '') =>
  openArchive({ config: readConfig({ ...process.env, DATABASE_URL: url, ARCHIVE_DATA_DIR: dataDir }), seedIfEmpty: true });

describe('a copy of the embedded archive, taken as the README says', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true }))));

  it('opens elsewhere with every record and every byte, and is not seeded again', async () => {
    const original = await temporaryDir('archivo-original-');
    const copy = await temporaryDir('archivo-copia-');
    dirs.push(original, copy);
    const archive = await openAt(original);
    const before = await contents(archive);
    expect(before.files.length).toBeGreaterThan(11);
    // Stopped (npm start's Ctrl-C or SIGTERM ends here too), then the folder copied as it is.
    await archive.close();
    await fs.cp(original, copy, { recursive: true, filter: (source) => path.basename(source) !== 'staging' });
    await fs.rm(original, { recursive: true, force: true });

    const restored = await openAt(copy);
    try {
      expect(await contents(restored)).toEqual(before);
      expect(await unreadable(restored, before.files)).toEqual([]);
    } finally {
      await restored.close();
    }
  }, 120_000);
});

describe.runIf(testEngines().includes('postgres'))('a copy of an archive on PostgreSQL, taken as the README says', () => {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const names = [`archivo_respaldo_${randomUUID().replaceAll('-', '')}`, `archivo_restaurado_${randomUUID().replaceAll('-', '')}`];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const name of names) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name}`);
    await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
  });

  it('pg_dump while it runs, then its blocks: restored, it has every record and every byte', async () => {
    const [live, restoredName] = names as [string, string];
    const original = await temporaryDir('archivo-original-');
    const copy = await temporaryDir('archivo-copia-');
    const dumpDir = await temporaryDir('archivo-volcado-');
    dirs.push(original, copy, dumpDir);
    await adminQuery(serverUrl, `CREATE DATABASE ${live}`);
    const archive = await openAt(original, databaseUrl(serverUrl, live));
    let before: Awaited<ReturnType<typeof contents>>;
    const dump = path.join(dumpDir, 'archivo.dump');
    try {
      before = await contents(archive);
      // While it runs: the database first, then the blocks. Every block a dumped row names is in
      // the store by then (files enter it before their rows commit, and no row's blocks are ever
      // deleted); blocks that came after are only extra.
      await run('pg_dump', ['--format=custom', `--file=${dump}`, databaseUrl(serverUrl, live)]);
      await fs.cp(path.join(original, 'blocks'), path.join(copy, 'blocks'), { recursive: true });
    } finally {
      await archive.close();
    }

    await adminQuery(serverUrl, `CREATE DATABASE ${restoredName}`);
    await run('pg_restore', ['--no-owner', `--dbname=${databaseUrl(serverUrl, restoredName)}`, dump]);
    const restored = await openAt(copy, databaseUrl(serverUrl, restoredName));
    try {
      expect(await contents(restored)).toEqual(before);
      expect(await unreadable(restored, before.files)).toEqual([]);
    } finally {
      await restored.close();
    }
  }, 180_000);
});
