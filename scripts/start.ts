/**
 * `npm start`: migrate, seed the real catalogue if the database is empty, then serve the built
 * archive. The database is closed before the server opens its own: PGlite has one owner per folder.
 *
 * The server is ours (node:http) around the adapter's handler rather than the adapter's own
 * standalone server, so that methods the archive never answers (TRACE, CONNECT…) get a 405 before
 * the adapter sees them: its static-file step builds a fetch Request outside any try/catch, and
 * `new Request()` throws on TRACE, which would take the whole process down.
 */
import http from 'node:http';
import { openArchive } from '../src/lib/server/archive.ts';
import { readConfig } from '../src/lib/server/config.ts';

const config = readConfig();
const started = Date.now();
const archive = await openArchive({ config, seedIfEmpty: config.seedOnEmpty });
console.log(
  `Base de datos lista (${archive.engine === 'pglite' ? `PGlite en ${config.dataDir}` : 'PostgreSQL'}) en ${Date.now() - started} ms.`,
);
await archive.close();

const host = process.env.HOST ?? 'localhost';
const port = Number(process.env.PORT ?? 4321);
process.env.ASTRO_NODE_AUTOSTART = 'disabled';
// @ts-ignore -- the server bundle exists only after `npm run build`.
const { handler } = (await import('../dist/server/entry.mjs')) as { handler: http.RequestListener };

const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);
const server = http.createServer((request, response) => {
  if (!METHODS.has(request.method ?? '')) {
    response.writeHead(405, { Allow: [...METHODS].join(', '), 'Content-Type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify({ code: 405, message: 'Método no permitido.' }));
    return;
  }
  handler(request, response);
});
server.listen(port, host, () => console.log(`Archivo Abierto sirve en http://${host}:${port}`));
