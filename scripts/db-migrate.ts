/**
 * `npm run db:migrate`: applies pending migrations to the configured database.
 *
 * With `--seed-if-empty` (how `npm start` readies the archive before serving) it also seeds the
 * real catalogue into an empty database, unless `ARCHIVE_SEED_ON_EMPTY=false`. With
 * `--wait-for-lock` it waits up to 20 s for an embedded database folder that another process holds:
 * on a quick restart, the previous server's database process may still be closing it.
 */
import { openArchive } from '../src/lib/server/archive.ts';
import { readConfigOrExit } from '../src/lib/server/config.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EmbeddedDatabaseInUseError } from '../src/lib/server/db/pglite.ts';
import { unreachableDatabase, unusableDataFolder } from '../src/lib/server/db/unreachable.ts';

const config = readConfigOrExit();
const started = Date.now();
const where = config.databaseUrl ? 'PostgreSQL de DATABASE_URL' : `PGlite en ${config.dataDir}`;
const archive = await openArchive({
  config,
  seedIfEmpty: process.argv.includes('--seed-if-empty') && config.seedOnEmpty,
  lockWaitMs: process.argv.includes('--wait-for-lock') ? 20_000 : 0,
}).catch((error: unknown) => {
  // What the operator must fix (a database that cannot be reached or refuses us, a data folder
  // that cannot be written, another process on the embedded database, migrations not where the
  // configuration says) is told in one line; anything else (a seed file, a migration) keeps its stack.
  const problem =
    unreachableDatabase(error) ??
    unusableDataFolder(error, config.dataDir) ??
    (error instanceof EmbeddedDatabaseInUseError ? error.message : null) ??
    (!existsSync(path.join(config.migrationsDir, 'meta/_journal.json')) ? `no están las migraciones en ${config.migrationsDir} (ARCHIVE_MIGRATIONS_DIR; falta meta/_journal.json)` : null);
  if (!problem) throw error;
  console.error(`No se pudo preparar la base de datos (${where}): ${problem}${problem.endsWith('.') ? '' : '.'}`);
  process.exit(1);
});
console.log(`Base de datos lista, con las migraciones aplicadas (${where}) en ${Date.now() - started} ms.`);
await archive.close();
