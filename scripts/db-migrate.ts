/**
 * `npm run db:migrate`: applies pending migrations to the configured database.
 *
 * With `--seed-if-empty` (how `npm start` readies the archive before serving) it also seeds the
 * real catalogue into an empty database, unless `ARCHIVE_SEED_ON_EMPTY=false`. With
 * `--wait-for-lock` it waits up to 20 s for an embedded database folder that another process holds:
 * on a quick restart, the previous server's database process may still be closing it.
 */
import { openArchive } from '../src/lib/server/archive.ts';
import { readConfig } from '../src/lib/server/config.ts';

const config = readConfig();
const started = Date.now();
const archive = await openArchive({
  config,
  seedIfEmpty: process.argv.includes('--seed-if-empty') && config.seedOnEmpty,
  lockWaitMs: process.argv.includes('--wait-for-lock') ? 20_000 : 0,
});
const where = archive.engine === 'pglite' ? `PGlite en ${config.dataDir}` : 'PostgreSQL';
console.log(`Base de datos lista, con las migraciones aplicadas (${where}) en ${Date.now() - started} ms.`);
await archive.close();
