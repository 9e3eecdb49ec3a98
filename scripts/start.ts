/**
 * `npm start`: migrate, seed the real catalogue if the database is empty, then serve the built
 * archive.
 *
 * The database is prepared, and with the embedded default also kept, in other processes, so that
 * this one holds only the web server:
 * - `scripts/db-migrate.ts --seed-if-empty` runs to completion first. What preparing loads and
 *   leaves behind (the seed; drizzle read from source, whose large package.json Node parses once
 *   per imported file) would otherwise stay in the server's heap, and its RSS, for good.
 * - Without DATABASE_URL, `scripts/embedded-db.ts` then opens PGlite and stays up beside the
 *   server, serving it over a private Unix socket; the server reaches it as it would a PostgreSQL
 *   server, through one connection. PGlite's few hundred MB are then not the web server's, and its
 *   queries (which run on the thread that calls them) no longer stall the server's event loop.
 *   That process ends with this one.
 *
 * The server is ours (node:http) around the adapter's handler rather than the adapter's own
 * standalone server, so that methods the archive never answers (TRACE, CONNECT…) get a 405 before
 * the adapter sees them: its static-file step builds a fetch Request outside any try/catch, and
 * `new Request()` throws on TRACE, which would take the whole process down.
 *
 * Node runs it with SERVER_NODE_FLAGS (scripts/node-flags.ts); `npm start` and every test or
 * benchmark that starts the server pass them.
 */
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { withNodeRequest } from '../src/lib/server/http/node-request.ts';

const script = (name: string) => fileURLToPath(new URL(name, import.meta.url));

const prepared = spawnSync(process.execPath, [script('db-migrate.ts'), '--seed-if-empty', '--wait-for-lock'], { stdio: 'inherit' });
if (prepared.status !== 0) process.exit(prepared.status ?? 1);
if (!process.env.DATABASE_URL) {
  process.env.DATABASE_URL = await startEmbeddedDatabase();
  // PGlite is one session: a second connection would wait for the first to close.
  process.env.DATABASE_POOL_MAX = '1';
}

/**
 * Starts scripts/embedded-db.ts and waits for its connection string. Without its database the
 * server can only fail: if that process ends, at start or later, this one ends too (code 1), so
 * that a supervisor restarts both.
 */
function startEmbeddedDatabase(): Promise<string> {
  const child = spawn(process.execPath, [script('embedded-db.ts')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.once('exit', (code, signal) => {
    console.error(`La base de datos embebida terminó (${signal ?? code}); el servidor se detiene.`);
    process.exit(1);
  });
  return new Promise((resolve) => {
    child.once('message', (message: { url?: string; error?: string }) => {
      if (message.url) {
        // The channel stays open (the child ends when it closes) but must not keep this process alive.
        child.unref();
        child.channel?.unref();
        return resolve(message.url);
      }
      console.error(`No se pudo abrir la base de datos embebida: ${message.error ?? 'respuesta inesperada'}`);
      process.exit(1);
    });
  });
}

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
