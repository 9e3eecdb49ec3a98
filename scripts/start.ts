/**
 * `npm start`: migrate, seed the real catalogue if the database is empty, then serve the built
 * archive.
 *
 * The preparation (`scripts/db-migrate.ts --seed-if-empty`) runs in a child process that has exited
 * before this one opens the database: PGlite has one owner per folder, and what preparing loads and
 * leaves behind (the seed; drizzle read from source, whose large package.json Node parses once per
 * imported file) would otherwise stay in the server's heap, and its RSS, for good.
 *
 * The server is ours (node:http) around the adapter's handler rather than the adapter's own
 * standalone server, so that methods the archive never answers (TRACE, CONNECT…) get a 405 before
 * the adapter sees them: its static-file step builds a fetch Request outside any try/catch, and
 * `new Request()` throws on TRACE, which would take the whole process down.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { withNodeRequest } from '../src/lib/server/http/node-request.ts';

const prepared = spawnSync(process.execPath, [fileURLToPath(new URL('db-migrate.ts', import.meta.url)), '--seed-if-empty'], { stdio: 'inherit' });
if (prepared.status !== 0) process.exit(prepared.status ?? 1);

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
  // The upload endpoint reads a contribution's bytes from the socket itself (see node-request.ts).
  withNodeRequest(request, () => handler(request, response));
});
server.listen(port, host, () => console.log(`Archivo Abierto sirve en http://${host}:${port}`));
