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

/**
 * Codes of a database that cannot be reached or refuses the connection: the name or the address
 * (ENOTFOUND, EAI_AGAIN, ECONNREFUSED, ETIMEDOUT), the password or role (28P01, 28000), the
 * database's name (3D000), a server still starting (57P03).
 */
const UNREACHABLE_DATABASE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT', '28P01', '28000', '3D000', '57P03']);

const config = readConfigOrExit();
const started = Date.now();
const where = config.databaseUrl ? 'PostgreSQL de DATABASE_URL' : `PGlite en ${config.dataDir}`;
const archive = await openArchive({
  config,
  seedIfEmpty: process.argv.includes('--seed-if-empty') && config.seedOnEmpty,
  lockWaitMs: process.argv.includes('--wait-for-lock') ? 20_000 : 0,
}).catch((error: unknown) => {
  // A database that cannot be reached or refuses us is the operator's to fix, and told in one
  // line; anything else (a seed file, a migration) keeps its stack.
  const code = (error as { code?: unknown }).code;
  if (!(error instanceof Error) || typeof code !== 'string' || !UNREACHABLE_DATABASE.has(code)) throw error;
  // `localhost` tried on ::1 and 127.0.0.1 fails as an AggregateError with no message of its own.
  const message = error.message || (error instanceof AggregateError ? (error.errors[0] as Error | undefined)?.message : undefined) || code;
  console.error(`No se pudo preparar la base de datos (${where}): ${message} (${code}).`);
  process.exit(1);
});
console.log(`Base de datos lista, con las migraciones aplicadas (${where}) en ${Date.now() - started} ms.`);
await archive.close();
