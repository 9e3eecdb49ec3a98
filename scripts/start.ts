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
 * standalone server, because the adapter's static-file step builds a fetch Request outside any
 * try/catch, from the method, the `Host` header and the path: `new Request()` throws on TRACE and
 * on a Host such as `x@y` (credentials in the URL), which took the whole process down, and a Host
 * such as `evil.example/moderacion?` re-routed the request (issue #16). So, before the adapter:
 * methods the archive never answers (TRACE, CONNECT…) get a 405; a Host that is not a plain
 * `host[:port]` the configuration lists, or a request target that is not a path, gets a 400; and
 * whatever the adapter still throws is answered with a 500 instead of stopping the server. What it
 * answers is compressed when the client accepts it (src/lib/server/http/compression.ts), and
 * produced only as fast as the client reads it (src/lib/server/http/backpressure.ts).
 *
 * SIGTERM or SIGINT shuts it down gracefully (`shutDown`, installed before anything else): requests under way are
 * answered, the job worker hands back its jobs, the server leaves `server_instances`, and the
 * embedded database closes cleanly; a restart or an upgrade then waits for no lease.
 *
 * Node runs it with SERVER_NODE_FLAGS (scripts/node-flags.ts); `npm start` and every test or
 * benchmark that starts the server pass them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { reachableHost, readConfigOrExit, urlHost } from '../src/lib/server/config.ts';
import { trackWrites } from '../src/lib/server/http/backpressure.ts';
import { compressWhenAccepted } from '../src/lib/server/http/compression.ts';
import { checkHost, HEALTH_PATH } from '../src/lib/server/http/host.ts';
import { utf8Escapes } from '../src/lib/server/http/legacy-escapes.ts';
import { REFUSAL_PAGE_HEADERS, refusalPage, wantsPage } from '../src/lib/server/http/refusal-page.ts';
import { SECURITY_HEADERS } from '../src/lib/server/http/security-headers.ts';
import { withNodeRequest } from '../src/lib/server/http/node-request.ts';
import { lingerBeforeClosing, type StopLingering } from '../src/lib/server/http/unread-body.ts';
import { beginShutdown, runShutdownHooks } from '../src/lib/server/shutdown.ts';

const script = (name: string) => fileURLToPath(new URL(name, import.meta.url));

/** The embedded database's process, when this one started it. */
let embeddedDatabase: ChildProcess | undefined;
/** The web server, once it is created; a signal may come before (see shutDown). */
// eslint-disable-next-line prefer-const -- a const made further down would be unreadable (TDZ) by a shutDown that a signal runs before it.
let server: http.Server | undefined;
/** Cuts the connections still lingering after their answer (`unread-body.ts`), at shutdown. */
let stopLingering: StopLingering = () => {};

/** How long requests under way may take to finish once a signal came; their connections are then closed. */
const REQUESTS_GRACE_MS = 10_000;
/** How long the whole shutdown may take before the process ends anyway, with code 1. */
const SHUTDOWN_LIMIT_MS = 30_000;
/**
 * A repeat of the signal within this time is the same one delivered twice: Ctrl-C under `npm start`
 * reaches this process from the terminal and again from npm, which forwards it; and the embedded
 * database relays the Ctrl-C it got too.
 */
const SAME_SIGNAL_MS = 1000;
/** When the shutdown began (performance.now()), whatever asked for it; undefined while serving. */
let shutdownBeganAt: number | undefined;
const stopping = () => shutdownBeganAt !== undefined;

// Installed before anything else, so that a signal during the start (migrations, the seed, loading
// the bundle) shuts down in order too: nothing more is started, and what was is let go.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, (received) => {
    if (shutdownBeganAt === undefined) return void shutDown(received);
    if (performance.now() - shutdownBeganAt < SAME_SIGNAL_MS) return;
    console.error(`${received} otra vez: el servidor termina sin esperar.`);
    process.exit(1);
  });
}

/**
 * SIGTERM (systemd, Kubernetes, `docker stop`) or SIGINT (Ctrl-C): stop taking requests and let
 * those under way finish; then the archive's shutdown hooks stop the job worker, which hands back
 * the jobs it held, and close the archive, which takes this server out of `server_instances`, so
 * that neither waits out a lease (src/lib/server/shutdown.ts); then the embedded database, if any,
 * is let go and closes PGlite cleanly. A second signal, a second or more later, ends the process at once.
 */
async function shutDown(signal: NodeJS.Signals): Promise<void> {
  if (stopping()) return;
  shutdownBeganAt = performance.now();
  // The archive starts no worker and ends an upgrade's wait from now on, while requests drain.
  beginShutdown();
  console.log(`${signal} recibida: el servidor deja de aceptar peticiones y termina lo que tiene en curso.`);
  setTimeout(() => {
    console.error(`El servidor no terminó en ${SHUTDOWN_LIMIT_MS / 1000} s; sale sin esperar más.`);
    process.exit(1);
  }, SHUTDOWN_LIMIT_MS).unref();

  if (server) await stopServing(server);
  await runShutdownHooks();
  await letGoOfEmbeddedDatabase();
  console.log('Servidor detenido.');
  process.exit(0);
}

/** Stops taking connections and resolves once the requests under way have been answered, or cut off after the grace. */
async function stopServing(web: http.Server): Promise<void> {
  const drained = new Promise<void>((resolve) => web.close(() => resolve()));
  // Clients still sending a refused body already have their answer.
  stopLingering();
  // Kept-alive connections with no request under way would hold close() open for their keep-alive
  // timeout: those idle now, and those whose request ends meanwhile, are closed as they become so.
  web.closeIdleConnections();
  const idle = setInterval(() => web.closeIdleConnections(), 100);
  const grace = setTimeout(() => web.closeAllConnections(), REQUESTS_GRACE_MS);
  await drained;
  clearInterval(idle);
  clearTimeout(grace);
}

/** Closes the channel the embedded database lives by, and waits for it to close PGlite and end. */
async function letGoOfEmbeddedDatabase(): Promise<void> {
  const child = embeddedDatabase;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Unreferenced once up (it must not keep the server alive): waiting for it must keep this process alive.
  child.ref();
  if (child.connected) child.disconnect();
  else child.kill('SIGTERM');
  await exited;
}

/** Waits for ever: the rest of the start is skipped while shutDown ends the process. */
const never = () => new Promise<never>(() => {});

// Wrong settings are told now, all of them, before anything starts.
const config = readConfigOrExit();

const prepared = spawnSync(process.execPath, [script('db-migrate.ts'), '--seed-if-empty', '--wait-for-lock'], { stdio: 'inherit' });
// A signal that came while preparing is handled from here on (spawnSync held the event loop).
await new Promise((resolve) => setImmediate(resolve));
if (stopping()) await never();
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
  // --relay-signals: a signal it gets comes back here, as the server's own (see embedded-db.ts).
  const child = spawn(process.execPath, [script('embedded-db.ts'), '--relay-signals'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  embeddedDatabase = child;
  child.once('exit', (code, signal) => {
    // Asked to end (shutDown), it ends: that is not a failure.
    if (stopping()) return;
    console.error(`La base de datos embebida terminó (${signal ?? code}); el servidor se detiene.`);
    process.exit(1);
  });
  return new Promise((resolve) => {
    child.on('message', (message: { url?: string; error?: string; stop?: NodeJS.Signals }) => {
      if (message.stop) return void shutDown(message.stop);
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

const { host, port } = config;
process.env.ASTRO_NODE_AUTOSTART = 'disabled';
// eslint-disable-next-line @typescript-eslint/ban-ts-comment -- @ts-expect-error would fail once a build exists.
// @ts-ignore -- the server bundle exists only after `npm run build`.
const { handler } = (await import('../dist/server/entry.mjs')) as { handler: http.RequestListener };
if (stopping()) await never();

/**
 * Every method a route of the archive answers (PATCH: a harvest source's settings; DELETE: a harvest
 * source registered by mistake); anything else is a 405 here.
 */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS']);

/** A refusal in JSON, as the API's errors are; as a page of its own to a browser asking for one (`refusal-page.ts`). */
function refuse(request: http.IncomingMessage, response: http.ServerResponse, status: number, message: string, headers: http.OutgoingHttpHeaders = {}): void {
  if (wantsPage(request.method, request.headers.accept)) {
    response.writeHead(status, { ...REFUSAL_PAGE_HEADERS, ...SECURITY_HEADERS, Connection: 'close', ...headers });
    response.end(request.method === 'HEAD' ? undefined : refusalPage(status, message, config.publicUrl));
    return;
  }
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close', ...headers });
  response.end(JSON.stringify({ code: status, message }));
}

/** Whether `url` percent-decodes (`decodeURI`, as the adapter checks it): «100%» or «%E0%A4%A» do not. */
function decodable(url: string): boolean {
  try {
    decodeURI(url);
    return true;
  } catch {
    return false;
  }
}

/** A request's failure that escaped the adapter: answered if it still can be, logged, never fatal. */
function failed(request: http.IncomingMessage, response: http.ServerResponse, error: unknown): void {
  console.error(`Error no controlado al servir ${request.method} ${request.url}:`, error);
  if (!response.headersSent) refuse(request, response, 500, 'Error interno del archivo. Vuelva a intentarlo más tarde.');
  else response.destroy();
}

server = http.createServer((request, response) => {
  if (!METHODS.has(request.method ?? '')) return refuse(request, response, 405, 'Método no permitido.', { Allow: [...METHODS].join(', ') });
  if (!request.url?.startsWith('/')) return refuse(request, response, 400, 'La petición debe pedir una ruta (que empiece por /).');
  // The adapter answers a URL it cannot decode with a bare English «Bad request.»: said here instead.
  if (!decodable(request.url)) {
    // An old link escaped in Windows-1252 («educaci%F3n») is sent to the same address in UTF-8,
    // never to another site: the new address must still be a path of this one («//x» is a host).
    const utf8 = request.method === 'GET' || request.method === 'HEAD' ? utf8Escapes(request.url) : null;
    if (utf8 && /^\/(?![/\\])/.test(utf8) && decodable(utf8)) {
      response.writeHead(301, { Location: utf8, 'Cache-Control': 'public, max-age=86400', ...SECURITY_HEADERS });
      response.end();
      return;
    }
    return refuse(request, response, 400, 'La dirección tiene un «%» que no forma un carácter (escriba «%25» para un «%»).');
  }
  // Node keeps the first of several Host headers; a request with more than one is not HTTP/1.1.
  const hosts = request.headersDistinct.host ?? [];
  const host = checkHost(hosts.length === 1 ? hosts[0] : null, config, request.url);
  if (!host.ok) return refuse(request, response, 400, host.message);
  // Pages, styles, scripts, JSON and exports go out as brotli or gzip when accepted (issue #20).
  compressWhenAccepted(request, response);
  // After compression: its `write` answers for the zlib stream as well as the socket.
  const outlet = trackWrites(response);
  try {
    // The upload endpoint reads a contribution's bytes from the socket itself, and the middleware
    // paces bodies to what the client reads (see node-request.ts, backpressure.ts).
    const served: unknown = withNodeRequest(request, () => handler(request, response), outlet);
    if (served instanceof Promise) served.catch((error: unknown) => failed(request, response, error));
  } catch (error) {
    failed(request, response, error);
  }
});
/**
 * What Node answers on its own, with an empty body, to a request it cannot even parse: the same
 * statuses, with the archive's words. The likeliest is a person's: a link or a search whose address
 * passes Node's 16 KB of headers.
 */
function unparsedRefusal(code: string | undefined): { status: number; reason: string; title?: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        title: 'La petición es demasiado grande',
        // Node's limit (16 KB unless --max-http-header-size says otherwise).
        message:
          `Su dirección y sus cabeceras (las cookies incluidas) pasan de ${Math.round(http.maxHeaderSize / 1024)} KB. ` +
          'Acorte la dirección (una búsqueda más corta, menos filtros) o borre las cookies de este sitio, y vuelva a intentarlo.',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', title: 'La petición es demasiado grande', message: 'Las extensiones de los trozos del cuerpo de la petición pasan del límite.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', title: 'La petición tardó demasiado', message: 'La petición tardó demasiado en llegar entera. Vuelva a intentarlo.' };
    default:
      return { status: 400, reason: 'Bad Request', title: 'La petición no es válida', message: 'La petición no es HTTP válido.' };
  }
}

// Node's own answer, in Spanish: its condition to answer at all is kept (nothing of a response has
// gone out on the socket), and so is its end (the socket destroyed). Its headers could not be read,
// so there is no Accept to go by: the refusal page, which a browser shows and a client can ignore.
// A socket that is lingering to read an unread body (unread-body.ts) has ended its side already and
// is not writable: it is only destroyed, as before.
server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
  const inFlight = (socket as typeof socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (socket.writable && error.code !== 'ECONNRESET' && !inFlight?.headersSent) {
    const { status, reason, title, message } = unparsedRefusal(error.code);
    const body = refusalPage(status, message, config.publicUrl, title ? { title } : {});
    const headers = { ...REFUSAL_PAGE_HEADERS, ...SECURITY_HEADERS, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
    // A HEAD gets the headers alone, when the bytes being read show it is one (its request line
    // in the same read as the failure: a header too large in one write, as clients send them).
    const head = (error as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.write(`HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${head ? '' : body}`);
  }
  socket.destroy(error);
});
// A refusal answered before the body was read (a 413 from its Content-Length) is still read by
// a client that is sending the rest when the connection closes (unread-body.ts).
stopLingering = lingerBeforeClosing(server);
// A port already taken, or a HOST that is not this machine's: said in Spanish, and the process ends
// (letting go of the embedded database), rather than an unhandled 'error' event's stack trace. Once
// listening, an error of the server (a failed accept, out of file descriptors) is logged, not fatal.
server.on('error', (error: NodeJS.ErrnoException) => {
  if (server?.listening) return void console.error('Error del servidor web:', error);
  if (stopping()) return;
  console.error(`No se pudo abrir el servidor en ${host}:${port}: ${listenFailure(error)}`);
  shutdownBeganAt = performance.now();
  void runShutdownHooks()
    .then(letGoOfEmbeddedDatabase)
    .finally(() => process.exit(1));
});

/** Why the server could not listen, in words an operator acts on. */
function listenFailure(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return 'el puerto ya está en uso (¿otro servidor en marcha?). Elija otro con PORT.';
    case 'EACCES':
      return 'no hay permiso para escuchar en ese puerto (los menores de 1024 piden privilegios). Elija otro con PORT.';
    case 'EADDRNOTAVAIL':
      return 'esa dirección no es de esta máquina. Corrija HOST.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'el nombre de HOST no corresponde a ninguna dirección. Corríjalo (por ejemplo 127.0.0.1 o 0.0.0.0).';
    default:
      return error.message;
  }
}

server.listen(port, host, () => {
  // A signal came while the host name resolved: shutDown is under way, and nothing is served.
  if (stopping()) return void server!.close();
  console.log(`Archivo Abierto sirve en http://${urlHost(host)}:${port}`);
  // Opens the database and starts the background work now rather than at the first visit, whatever
  // HOST is (every interface included) and whatever public name the archive answers to.
  const self = `http://${reachableHost(host)}:${port}${HEALTH_PATH}`;
  fetch(self)
    .then(async (response) => {
      if (response.ok) return;
      const { message } = (await response.json().catch(() => ({}))) as { message?: string };
      console.error(`La comprobación de salud al arrancar respondió ${response.status}${message ? `: ${message}` : ''}`);
    })
    .catch((error: unknown) => console.error(`No se pudo hacer la comprobación de salud al arrancar (${self}): ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`));
});
