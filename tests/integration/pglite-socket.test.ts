/**
 * The embedded database served over its Unix socket (what `npm start` runs in a process of its
 * own), reached with `pg` as a PostgreSQL server would be.
 */
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase } from '../../src/lib/server/db/index.ts';
import { openPglite, type EmbeddedDatabase } from '../../src/lib/server/db/pglite.ts';
import { servePglite, type PgliteSocketServer } from '../../src/lib/server/db/pglite-socket.ts';
import { MIGRATIONS_DIR } from '../helpers/database.ts';

let embedded: EmbeddedDatabase;
let served: PgliteSocketServer;

beforeAll(async () => {
  embedded = await openPglite(undefined);
  served = await servePglite(embedded.client);
});

afterAll(async () => {
  await served.close();
  await embedded.close();
});

const client = () => new pg.Client({ connectionString: served.url });

describe('PGlite over its socket', () => {
  it('migrates and answers drizzle through pg, extensions included', async () => {
    const remote = await openDatabase({ url: served.url, poolMax: 1 });
    try {
      await migrateDatabase(remote, MIGRATIONS_DIR);
      const { rows } = (await remote.db.execute(sql`select archivo_unaccent(lower(${'Educación Pública'})) as name, ${41}::int + 1 as answer`)) as unknown as { rows: unknown[] };
      expect(rows[0]).toEqual({ name: 'educacion publica', answer: 42 });
      // The tables the migrations made are the embedded database's own.
      const tables = await embedded.client.query<{ n: number }>(`select count(*)::int as n from information_schema.tables where table_name = 'alexandrias'`);
      expect(tables.rows[0]!.n).toBe(1);
    } finally {
      await remote.close();
    }
  });

  it('reports a failed statement and goes on serving the session', async () => {
    const session = client();
    await session.connect();
    await expect(session.query('select * from no_existe')).rejects.toThrow(/no_existe/);
    expect((await session.query('select $1::text as echo', ['sigue'])).rows).toEqual([{ echo: 'sigue' }]);
    await session.end();
  });

  it('serves several sessions, taking turns between transactions: never inside one', async () => {
    const first = client();
    await first.connect();
    await first.query('create table turnos (n int)');
    // A second process (`npm run harvest` beside `npm start`) connects while the first stays connected.
    const second = client();
    await second.connect();
    expect((await second.query('select count(*)::int as n from turnos')).rows).toEqual([{ n: 0 }]);

    // While the first is inside a transaction, the second's statements wait for its end.
    await first.query('begin');
    await first.query('insert into turnos values (1)');
    const seen = second.query('select count(*)::int as n from turnos').then((result) => result.rows[0]);
    const early = await Promise.race([seen, new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
    expect(early).toBe('waiting');
    await first.query('insert into turnos values (2)');
    await first.query('commit');
    // It then sees the whole transaction, never half of it.
    expect(await seen).toEqual({ n: 2 });

    // Extended-protocol queries of both, sent at once, each get their own answers.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).query('select $1::int as n', [index]).then((result) => result.rows[0].n)),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, (_, index) => index));
    // One session's failed statement does not disturb the other's.
    const [failed, fine] = await Promise.allSettled([first.query('select * from no_existe'), second.query('select 7 as n')]);
    expect(failed.status).toBe('rejected');
    expect(fine.status === 'fulfilled' && fine.value.rows).toEqual([{ n: 7 }]);
    await first.end();
    expect((await second.query('select count(*)::int as n from turnos')).rows).toEqual([{ n: 2 }]);
    await second.end();
  });

  it('rolls back the transaction of a client that vanished in the middle of it', async () => {
    const setup = client();
    await setup.connect();
    await setup.query('create table cortes (n int)');
    await setup.end();

    const vanishing = client();
    await vanishing.connect();
    await vanishing.query('begin');
    await vanishing.query('insert into cortes values (1)');
    // The process dies: its socket closes with no Terminate message and no COMMIT.
    (vanishing as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    vanishing.on('error', () => {});

    const next = client();
    await next.connect();
    expect((await next.query('select count(*)::int as n from cortes')).rows).toEqual([{ n: 0 }]);
    // And the new session is not inside the old transaction: its own writes stay.
    await next.query('insert into cortes values (2)');
    await next.end();
    expect((await embedded.client.query('select n from cortes')).rows).toEqual([{ n: 2 }]);
  });

  it('undoes what a session left open when it says goodbye inside a transaction: the next one never commits it', async () => {
    const setup = client();
    await setup.connect();
    await setup.query('create table despedidas (n int)');
    await setup.end();
    const leaving = client();
    await leaving.connect();
    await leaving.query('begin');
    await leaving.query('insert into despedidas values (1)');
    // A clean goodbye (Terminate) with the transaction still open.
    await leaving.end();
    const next = client();
    await next.connect();
    expect((await next.query('select count(*)::int as n from despedidas')).rows).toEqual([{ n: 0 }]);
    await next.query('insert into despedidas values (2)');
    await next.end();
    expect(embedded.client.isInTransaction()).toBe(false);
    expect((await embedded.client.query('select n from despedidas')).rows).toEqual([{ n: 2 }]);
  });

  it('cuts off a session that holds the backend silently while another waits, and rolls it back', async () => {
    const quick = await servePglite(embedded.client, { ownerIdleMs: 200 });
    try {
      const holder = new pg.Client({ connectionString: quick.url });
      holder.on('error', () => {});
      await holder.connect();
      await holder.query('create table retenidas (n int)');
      await holder.query('begin');
      await holder.query('insert into retenidas values (1)');
      // The holder now sleeps (a suspended process); another session asks.
      const started = Date.now();
      const waiter = new pg.Client({ connectionString: quick.url });
      await waiter.connect();
      expect((await waiter.query('select count(*)::int as n from retenidas')).rows).toEqual([{ n: 0 }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      const commit = await holder.query('commit').then(() => null, (error: unknown) => error);
      expect(commit).toBeInstanceOf(Error);
      await waiter.end();
    } finally {
      await quick.close();
    }
  });

  it('refuses encryption, which a local socket does not need, without failing the server', async () => {
    const secure = new pg.Client({ connectionString: served.url, ssl: true });
    await expect(secure.connect()).rejects.toThrow(/does not support SSL/);
    const plain = client();
    await plain.connect();
    expect((await plain.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await plain.end();
  });

  it("puts back every setting another session changed before the next one runs: an operator's tool never leaves the server lost", async () => {
    const server = client();
    await server.connect();
    await server.query('create table ajustes (n int)');
    const settings = async () => (await server.query<{ name: string; setting: string }>('select name, setting from pg_settings order by name')).rows;
    const before = await settings();
    // What pg_dump and psql do to their session (pg_dump empties search_path, even when it then
    // gives up over a version it does not support): on the one backend, the server's session too.
    const tool = client();
    await tool.connect();
    await tool.query(`select pg_catalog.set_config('search_path', '', false)`);
    await tool.query(`set timezone = 'Asia/Tokyo'`);
    await tool.query('set statement_timeout = 1');
    // psql's SET ROLE (or pg_dump --role): a role that may read nothing of the archive's.
    await tool.query('create role lector nologin');
    await tool.query('set role lector');
    // A temporary table named like one of the server's would hide it (pg_temp comes first).
    await tool.query('reset role');
    await tool.query('create temp table ajustes (n int); insert into ajustes values (1), (2)');
    await tool.query('set role lector');
    await tool.end();
    expect((await server.query('select count(*)::int as n from ajustes')).rows).toEqual([{ n: 0 }]);
    expect(await settings()).toEqual(before);
    expect((await server.query('select current_user as who')).rows).toEqual([{ who: 'postgres' }]);

    // Also while the tool stays connected, turn after turn; and its own settings hold within its turn.
    const other = client();
    await other.connect();
    const own = await other.query(`set search_path = ''; show search_path`);
    expect((own as unknown as Array<{ rows: unknown[] }>)[1]!.rows).toEqual([{ search_path: '""' }]);
    expect((await server.query('select count(*)::int as n from ajustes')).rows).toEqual([{ n: 0 }]);
    await other.end();
    await server.end();
  });

  it('keeps its socket in a folder only this user may enter', () => {
    const folder = new URL(served.url).searchParams.get('host')!;
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
  });
});
