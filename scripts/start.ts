/**
 * `npm start`: migrate, seed the real catalogue if the database is empty, then serve the built
 * archive. The database is closed before the server opens its own: PGlite has one owner per folder.
 */
import { openArchive } from '../src/lib/server/archive.ts';
import { readConfig } from '../src/lib/server/config.ts';

const config = readConfig();
const started = Date.now();
const archive = await openArchive({ config, seedIfEmpty: config.seedOnEmpty });
console.log(
  `Base de datos lista (${archive.engine === 'pglite' ? `PGlite en ${config.dataDir}` : 'PostgreSQL'}) en ${Date.now() - started} ms.`,
);
await archive.close();

process.env.HOST ??= 'localhost';
process.env.PORT ??= '4321';
// @ts-ignore -- the server bundle exists only after `npm run build`.
await import('../dist/server/entry.mjs');
