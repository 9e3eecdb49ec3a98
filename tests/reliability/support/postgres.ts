/**
 * The PostgreSQL server of the reliability suite: the one `RELIABILITY_DATABASE_URL` names, or
 * a throwaway one started with `.ci/postgres.sh` on the suite's own port and folder. Each part
 * of the suite works in a fresh database of its own on that server.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { OWN_POSTGRES, ROOT } from './settings.ts';

const run = promisify(execFile);

export interface PostgresServer {
  /** Connection string of the server's maintenance database. */
  url: string;
  stop(): Promise<void>;
}

function postgresScript(command: 'start_postgres' | 'stop_postgres') {
  return run('bash', ['-c', `source .ci/postgres.sh && ${command}`], {
    cwd: ROOT,
    env: { ...process.env, PG_PORT: String(OWN_POSTGRES.port), PG_DIR: OWN_POSTGRES.dir },
  });
}

/** The server named by `RELIABILITY_DATABASE_URL`, or one of the suite's own, started now. */
export async function ensurePostgres(): Promise<PostgresServer> {
  const given = process.env.RELIABILITY_DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };
  try {
    const { stdout } = await postgresScript('start_postgres');
    process.stdout.write(stdout);
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(
      'No se pudo arrancar PostgreSQL para las pruebas de fiabilidad (¿está instalado el paquete postgresql?). ' +
        `Instálelo o indique un servidor con RELIABILITY_DATABASE_URL.\n${detail}`,
      { cause: error },
    );
  }
  return {
    url: `postgres://postgres@127.0.0.1:${OWN_POSTGRES.port}/postgres`,
    stop: async () => {
      await postgresScript('stop_postgres');
    },
  };
}

/** The connection string of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database for one part of the suite; the archive migrates and seeds it on start. */
export async function createDatabase(serverUrl: string, part: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `reliability_${part}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: databaseUrl(serverUrl, name),
    // FORCE: a server killed on purpose may leave a backend that has not noticed yet.
    drop: () => onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** Runs `work` with a client connected to `url`. */
export async function withDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  return onServer(url, work);
}

/** The rows `sql` answers on the database at `url`. */
export function queryRows<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  return withDatabase(url, async (client) => (await client.query(sql, values)).rows as T[]);
}
