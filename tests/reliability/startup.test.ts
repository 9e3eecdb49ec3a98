/**
 * A server started as production starts it begins its work on its own, with no visit: listening on
 * every interface (`HOST=0.0.0.0`) and answering only to its public name (`ARCHIVE_PUBLIC_URL`), its
 * first health check (`scripts/start.ts`, which opens the database and starts the job worker and
 * the harvest schedule) reaches it anyway. Before, that check went to `http://0.0.0.0:PORT` and was
 * refused for its Host: the worker waited for the first visitor, and the log said only «vea el error
 * anterior». A load balancer's probe, which asks by the server's own address, is answered too; a
 * page asked by that address still is not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../scripts/node-flags.ts';
import { createDatabase, queryRows } from './support/postgres.ts';
import { ServerLog } from './support/server.ts';
import { FIXTURES_DIR, PORTS, ROOT, WORK_DIR } from './support/settings.ts';
import { until } from './support/wait.ts';

const PUBLIC_HOST = 'archivo.example.org';
const dataDir = path.join(WORK_DIR, 'startup-data');
const log = new ServerLog(path.join(WORK_DIR, 'startup.log'));
let database: { url: string; drop(): Promise<void> };
let server: ChildProcess | undefined;

beforeAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.mkdir(WORK_DIR, { recursive: true });
  database = await createDatabase(inject('postgresUrl'), 'startup');
});

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const ended = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGKILL');
    await ended;
  }
  await database?.drop();
  await fs.rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

/** GET `pathname` from the server on this machine, naming `host` in the Host header (fetch would not let us). */
function get(pathname: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: PORTS.startup, path: pathname, headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`GET ${pathname} sin respuesta en 10 s`)));
    request.on('error', reject);
  });
}

test('starts its worker with no visit when it listens on every interface under a public name, and answers a probe by its address', async () => {
  server = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'scripts/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '0.0.0.0',
      PORT: String(PORTS.startup),
      ARCHIVE_PUBLIC_URL: `https://${PUBLIC_HOST}`,
      ARCHIVE_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      ARCHIVE_FIXTURES_DIR: FIXTURES_DIR,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk: Buffer) => log.append(chunk));
  server.stderr!.on('data', (chunk: Buffer) => log.append(chunk));

  // Nothing is asked of the server here: it registers itself, with its worker, alone. (The seed's
  // process registers too while it runs, under its own pid.)
  await until(
    'el servidor, sin ninguna visita, se registra en server_instances con su trabajador',
    async () => {
      if (server!.exitCode !== null) throw new Error(`El servidor terminó (código ${server!.exitCode}); vea ${log.file}`);
      const rows = await queryRows<{ n: number }>(database.url, `select count(*)::int as n from server_instances where pid = $1 and worker`, [server!.pid]).catch(() => [{ n: 0 }]);
      return rows[0]!.n === 1;
    },
    120_000,
    250,
  );
  expect(log.lines.filter((line) => /comprobaci[oó]n de salud/i.test(line))).toEqual([]);
  // The operator can tell a seeded archive from an empty one in the log.
  expect(log.lines).toContainEqual(expect.stringMatching(/^Carga inicial del catálogo real hecha: [1-9][\d,]* registros, 11 archivos guardados, [\d,]+ instituciones, \d+ fuentes y \d+ categorías\.$/));

  // A balancer's probe by the machine's address is answered; the archive's pages only under its name.
  expect(await get('/v2/health', `10.0.3.7:${PORTS.startup}`)).toBe(200);
  expect(await get('/dashboard', `10.0.3.7:${PORTS.startup}`)).toBe(400);
  expect(await get('/dashboard', PUBLIC_HOST)).toBe(200);
}, 180_000);
