/**
 * A server stopped the usual way shuts down gracefully (scripts/start.ts): SIGTERM (systemd,
 * Kubernetes, `docker stop`) or Ctrl-C (SIGINT to the server and the embedded database's process
 * at once). It ends by itself with code 0, before the harness's SIGKILL 5 s later, and leaves
 * nothing for anyone to wait out: no row in `server_instances` (an upgrade would wait for its
 * lease) and no job held (the queue would wait a minute for its lease before running it again).
 *
 * 1. PostgreSQL, SIGTERM while a harvest's captures stream from a slow local portal: the jobs it
 *    held are back in the queue, due at once and with their attempts given back; restarted, the
 *    archive finishes the harvest.
 * 2. The embedded database, Ctrl-C (both processes signalled) and a SIGTERM to the database's
 *    process alone: both processes end, PGlite closed cleanly, its folder free for the next start
 *    and the instance deregistered.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../scripts/node-flags.ts';
import { embeddedDatabaseDir } from '../../src/lib/server/config.ts';
import { openDatabase } from '../../src/lib/server/db/index.ts';
import { queueHarvestRun, registerHarvestSource } from '../../src/lib/server/harvest/index.ts';
import { serverInstances } from '../../src/lib/server/instances/index.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';
import { childrenOf, isRunning } from '../helpers/processes.ts';
import { createDatabase, queryRows } from './support/postgres.ts';
import { startServer, ServerLog, type RunningServer } from './support/server.ts';
import { PORTS, WORK_DIR } from './support/settings.ts';
import { until } from './support/wait.ts';

/** Datasets of the portal's catalogue: one CKAN page, 4.4 files each on average. */
const DATASETS = 40;
/** Each file drips in over this time: captures are under way when the signal comes. */
const FILE_MS = 60_000;

let portal: LocalPortal;
let database: { url: string; drop(): Promise<void> };
const servers: RunningServer[] = [];
const dataDirs = [path.join(WORK_DIR, 'shutdown-postgres-data'), path.join(WORK_DIR, 'shutdown-embedded-data')];
const log = new ServerLog(path.join(WORK_DIR, 'shutdown.log'));
const env = {
  ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true',
  ARCHIVE_CAPTURE_HOST_DELAY_MS: '0',
  ARCHIVE_CAPTURE_HOST_CONCURRENCY: '4',
};

beforeAll(async () => {
  await Promise.all(dataDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
  portal = await startLocalPortal({ datasets: DATASETS, slow: { fileMs: FILE_MS } });
  database = await createDatabase(inject('postgresUrl'), 'shutdown');
});

afterAll(async () => {
  for (const server of servers) if (server.alive()) await server.kill();
  await portal?.close();
  await database?.drop();
  await Promise.all(dataDirs.map((dir) => fs.rm(dir, { recursive: true, force: true, maxRetries: 5 })));
});

const query = <T>(sql: string, values: unknown[] = []) => queryRows<T>(database.url, sql, values);


async function start(dataDir: string, databaseUrl: string): Promise<RunningServer> {
  const server = await startServer({ name: 'shutdown', port: PORTS.shutdown, databaseUrl, dataDir, env }, log);
  servers.push(server);
  return server;
}

interface JobRow {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  lockedBy: string | null;
  dueNow: boolean;
}

const jobRows = () =>
  query<JobRow>(
    `select id, kind, status::text, attempts, locked_by as "lockedBy", run_after <= now() as "dueNow" from jobs order by id`,
  );

test('SIGTERM in the middle of a harvest on PostgreSQL: the server ends by itself, deregistered, its jobs back in the queue', async () => {
  const dataDir = dataDirs[0]!;
  let server = await start(dataDir, database.url);
  const handle = await openDatabase({ url: database.url, poolMax: 1 });
  const { harvestSource, job: harvestJob } = await (async () => {
    try {
      const { harvestSource } = await registerHarvestSource(handle.db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal local de la prueba de parada' });
      return { harvestSource, job: (await queueHarvestRun(handle.db, harvestSource.id, 'prueba de parada')).job };
    } finally {
      await handle.close();
    }
  })();

  // Captures under way (their files drip for a minute) and the server registered.
  let held: JobRow[] = [];
  await until(
    'captures under way',
    async () => {
      // Captures only: a drip of a minute keeps them running until the signal, where the run or a
      // sheet's previews may end by themselves in between.
      held = (await jobRows()).filter((row) => row.status === 'running' && row.kind === 'capture');
      return held.length >= 2;
    },
    60_000,
  );
  expect(await query(`select hostname from server_instances`)).toHaveLength(1);

  const mark = log.mark;
  // As long as the server allows itself (30 s): a handler that ignores the abort, such as a sheet's
  // previews, is waited for up to the worker's 5 s grace, which the harness's default would cut.
  expect(await server.stop({ killAfterMs: 35_000 })).toEqual({ code: 0, signal: null });
  expect(log.since(mark).join('\n')).toMatch(/SIGTERM recibida[\s\S]*Servidor detenido\./);

  // Nothing left to wait out: no instance, no job held; the held jobs are due at once, their
  // attempts given back (a stop is not a failure).
  expect(await query(`select hostname from server_instances`)).toEqual([]);
  const after = await jobRows();
  expect(after.filter((row) => row.status === 'running')).toEqual([]);
  for (const { id } of held) {
    expect(after.find((row) => row.id === id)).toMatchObject({ status: 'queued', attempts: 0, lockedBy: null, dueNow: true });
  }

  // Restarted with a portal answering at once, the archive finishes the harvest.
  portal.slow.fileMs = 0;
  server = await start(dataDir, database.url);
  await until(
    'the harvest and its captures to end',
    async () => {
      const rows = await jobRows();
      return rows.find((row) => row.id === harvestJob.id)?.status === 'done' && rows.every((row) => row.status !== 'queued' && row.status !== 'running');
    },
    120_000,
    500,
  );
  const jobs = await jobRows();
  expect(jobs.filter((row) => row.status === 'failed')).toEqual([]);
  const runs = await query<{ status: string }>(`select status::text from imports where harvest_source_id = $1 order by id`, [harvestSource.id]);
  expect(runs.at(-1)).toEqual({ status: 'done' });
  expect(runs.filter((run) => run.status === 'in_progress')).toEqual([]);
  expect(await server.stop({ killAfterMs: 35_000 })).toEqual({ code: 0, signal: null });
});

/** Waits for `server` to end, for at most `ms`; how it ended, or that it did not. */
const endOf = (server: RunningServer, ms: number) =>
  Promise.race([server.exited(), new Promise((resolve) => setTimeout(() => resolve(`still running after ${ms / 1000} s`), ms))]);

/** Whether the embedded database's folder is free (no process holds its lock) and holds no registered server. */
async function leftClean(dataDir: string): Promise<void> {
  const reopened = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir), lockWaitMs: 0 });
  try {
    expect(await reopened.db.select().from(serverInstances)).toEqual([]);
  } finally {
    await reopened.close();
  }
}

test('on the embedded database, a signal to either process stops both in order: PGlite closed, its folder free, the instance gone', async () => {
  const dataDir = dataDirs[1]!;

  // A terminal's Ctrl-C reaches the whole process group: the server and its database each get
  // one, in either order, and the database relays its own to the server; neither is taken for a
  // second Ctrl-C (that one ends the server without waiting).
  let server = await start(dataDir, '');
  let [embedded] = childrenOf(server.pid);
  expect(embedded, 'the embedded database runs in a child process').toBeDefined();
  let mark = log.mark;
  process.kill(embedded!, 'SIGINT');
  process.kill(server.pid, 'SIGINT');
  expect(await endOf(server, 30_000)).toEqual({ code: 0, signal: null });
  expect(log.since(mark).join('\n')).toMatch(/SIGINT recibida[\s\S]*Servidor detenido\./);
  expect(log.since(mark).join('\n')).not.toMatch(/otra vez/);
  // The server waited for its database to close PGlite.
  expect(isRunning(embedded!)).toBe(false);
  await leftClean(dataDir);

  // A SIGTERM to the database's process alone (`kill <pid>`): the server shuts down as if it got it.
  server = await start(dataDir, '');
  [embedded] = childrenOf(server.pid);
  mark = log.mark;
  process.kill(embedded!, 'SIGTERM');
  expect(await endOf(server, 30_000)).toEqual({ code: 0, signal: null });
  expect(log.since(mark).join('\n')).toMatch(/SIGTERM recibida[\s\S]*Servidor detenido\./);
  expect(isRunning(embedded!)).toBe(false);
  await leftClean(dataDir);
});

test('a port already taken ends the start with a Spanish line and code 1, the embedded database let go, no stack trace', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(PORTS.taken, '127.0.0.1', () => resolve()));
  const dataDir = path.join(WORK_DIR, 'taken-port-data');
  await fs.rm(dataDir, { recursive: true, force: true });
  try {
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'scripts/start.ts'], {
      env: { ...process.env, PORT: String(PORTS.taken), HOST: '127.0.0.1', ARCHIVE_DATA_DIR: dataDir, DATABASE_URL: '', ARCHIVE_SEED_ON_EMPTY: 'false', ARCHIVE_PUBLIC_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code, output).toBe(1);
    expect(output).toContain(`No se pudo abrir el servidor en 127.0.0.1:${PORTS.taken}: el puerto ya está en uso`);
    expect(output).not.toMatch(/Unhandled 'error' event|EADDRINUSE/);
    // The embedded database's process ended with it, its folder free for the next start.
    const reopened = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir), lockWaitMs: 5_000 });
    await reopened.close();
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}, 180_000);
