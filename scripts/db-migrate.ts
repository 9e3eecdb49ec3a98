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

const config = readConfigOrExit();
const started = Date.now();
const where = config.databaseUrl ? 'PostgreSQL de DATABASE_URL' : `PGlite en ${config.dataDir}`;
const archive = await openArchive({
  config,
  seedIfEmpty: process.argv.includes('--seed-if-empty') && config.seedOnEmpty,
  lockWaitMs: process.argv.includes('--wait-for-lock') ? 20_000 : 0,
}).catch((error: unknown) => {
  // A database that cannot be reached or refuses us (ENOTFOUND, ECONNREFUSED, a password or a
  // database name that is wrong: errors with a code) is told in one line; anything else is a bug,
  // and keeps its stack.
  const code = (error as { code?: unknown }).code;
  if (!(error instanceof Error) || typeof code !== 'string') throw error;
  console.error(`No se pudo preparar la base de datos (${where}): ${error.message} (${code}).`);
  process.exit(1);
});
console.log(`Base de datos lista, con las migraciones aplicadas (${where}) en ${Date.now() - started} ms.`);
await archive.close();
