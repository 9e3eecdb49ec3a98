/**
 * `npm run db:migrate`: applies pending migrations to the configured database.
 *
 * With `--seed-if-empty` (how `npm start` readies the archive before serving) it also seeds the
 * real catalogue into an empty database, unless `ARCHIVE_SEED_ON_EMPTY=false`.
 */
import { openArchive } from '../src/lib/server/archive.ts';
import { readConfig } from '../src/lib/server/config.ts';

const config = readConfig();
const started = Date.now();
const archive = await openArchive({ config, seedIfEmpty: process.argv.includes('--seed-if-empty') && config.seedOnEmpty });
const where = archive.engine === 'pglite' ? `PGlite en ${config.dataDir}` : 'PostgreSQL';
console.log(`Base de datos lista, con las migraciones aplicadas (${where}) en ${Date.now() - started} ms.`);
await archive.close();
