/**
 * `npm run harvest` (scripts/harvest.ts) as a person runs it, on an embedded database of its own:
 * it registers the local portal, harvests it, captures its files and reports in Spanish; a second
 * run finds everything unchanged; with private addresses refused (the default) its run fails and
 * a new catalogue on 127.0.0.1 is not registered, and the script exits non-zero; a database held
 * by a running server is named as the reason, and so is one that goes away while it follows a run.
 */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDatabaseDir } from '../../src/lib/server/config.ts';
import { migrateDatabase, openDatabase } from '../../src/lib/server/db/index.ts';
import { alexandrias, harvestedRecords, harvestSources } from '../../src/lib/server/db/schema.ts';
import { deleteHarvestSource } from '../../src/lib/server/harvest/manage.ts';
import { liveWorkerCount } from '../../src/lib/server/instances/index.ts';
import { MIGRATIONS_DIR } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';

const SCRIPT = path.resolve('scripts/harvest.ts');
const RECHECK = path.resolve('scripts/recheck.ts');
/** The local portal needs no politeness: no pause between two files. */
const FAST = ['--host-delay', '0'];

/** Runs the script to its end (killed after `timeoutMs`), with `env` over a clean environment. */
function harvest(args: string[], env: Record<string, string>, timeoutMs = 90_000, script = SCRIPT): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [script, ...args], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm run harvest', () => {
  let portal: LocalPortal;
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    portal = await startLocalPortal();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-harvest-cli-'));
    env = { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_SEED_ON_EMPTY: 'false' };
  });
  afterAll(async () => {
    await portal?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const total = () => portal.packages.flatMap((pkg) => pkg.resources).length;

  it('registers the catalogue, harvests it and captures every file, then finds nothing changed', async () => {
    const first = await harvest([portal.urls.ckan, '--kind', 'ckan', '--source-name', 'Portal local', ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
    expect(first.output).toContain('Fuente de cosecha registrada: «Portal local»');
    expect(first.output).toContain(`Cosecha terminada (importación 1): ${total()} nuevo(s), 0 actualizado(s), 0 sin cambios`);
    expect(first.output).toContain(`Capturas: ${total()} hecha(s), 0 fallida(s), 0 en curso, 0 en cola.`);
    expect(first.code).toBe(0);

    const second = await harvest([portal.urls.ckan, '--source-name', 'Otro nombre', ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
    expect(second.output).toContain('Fuente de cosecha ya registrada: «Portal local»');
    // Another name for a registered source is said not to apply, rather than ignored in silence.
    expect(second.output).toMatch(/El nombre «Otro nombre» no se aplica a una fuente ya registrada: cámbielo en \/moderacion\/cosechas o con PATCH \/v2\/ops\/harvest-sources\/\d+\./);
    expect(second.output).toContain(`0 nuevo(s), 0 actualizado(s), ${total()} sin cambios, 0 retirado(s) del catálogo, 0 con error.`);
    expect(second.output).toContain('Capturas: 0 hecha(s), 0 fallida(s), 0 en curso, 0 en cola.');
    expect(second.code).toBe(0);

    // Nor another kind: said, and the registered one harvested.
    const otherKind = await harvest([portal.urls.ckan, '--kind', 'datajson', ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
    expect(otherKind.output).toContain('--kind datajson no se aplica: esa dirección ya está registrada como CKAN (API de acciones, package_search), y se cosecha así.');
    expect(otherKind.code).toBe(0);

    // A new catalogue whose first run fails (nothing listens there): how to remove it if the address was wrong.
    const mistyped = await harvest(['http://127.0.0.1:7/mal-escrito/data.json', '--kind', 'datajson', ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
    expect(mistyped.output).toContain('Cosecha fallida');
    expect(mistyped.output).toMatch(/Si la dirección estaba mal, elimínela en \/moderacion\/cosechas\?fuente=(\d+) o con DELETE \/v2\/ops\/harvest-sources\/\1\./);
    expect(mistyped.code).toBe(1);
    const database = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
    try {
      await deleteHarvestSource(database.db, Number(/fuente=(\d+)/.exec(mistyped.output)![1]));
    } finally {
      await database.close();
    }
  }, 200_000);

  it('npm run recheck checks a captured URL now: the same bytes are unchanged, new bytes a new version', async () => {
    const allowed = { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' };
    const resource = portal.packages[0]!.resources[0]!;
    const unchanged = await harvest([resource.url, ...FAST], allowed, 90_000, RECHECK);
    expect(unchanged.output).toMatch(/Registro \d+: sin cambios \(HTTP 200\)\./);
    expect(unchanged.code).toBe(0);
    // It fetches under its own settings, and says so: the server's are not its.
    expect(unchanged.output).toContain('Esta orden pide los archivos ella misma, con su propia configuración');
    // The publisher replaces the file at the same address.
    const original = portal.files.get(resource.id)!;
    portal.files.set(resource.id, [...portal.files.values()].find((file) => file.sha256 !== original.sha256)!);
    try {
      const changed = await harvest([resource.url, ...FAST], allowed, 90_000, RECHECK);
      expect(changed.output, changed.output).toMatch(/Registro \d+: nueva versión \(v2\) capturada \(HTTP 200\)\./);
      expect(changed.code).toBe(0);
    } finally {
      portal.files.set(resource.id, original);
    }
    const unknown = await harvest(['999999', ...FAST], allowed, 90_000, RECHECK);
    expect(unknown.output).toContain('Registro 999999: no es un archivo capturado');
    expect(unknown.code).toBe(1);
  }, 200_000);

  it('fails, and says why, when private addresses are refused (the default); refuses to register a new catalogue there, or one with a password in its URL', async () => {
    // The portal registered by the tests above: its run fails on the address.
    const failed = await harvest([portal.urls.ckan], env);
    expect(failed.output).toContain('Cosecha fallida');
    expect(failed.output).toMatch(/dirección privada o reservada: 127\.0\.0\.1 \(bucle local\)/);
    expect(failed.code).toBe(1);
    // A catalogue new to the archive at such an address is not registered at all.
    const refused = await harvest(['http://127.0.0.1:9/otro-catalogo/data.json', '--kind', 'datajson'], env);
    expect(refused.output).toContain('La dirección del catálogo apunta a 127.0.0.1 (bucle local): el archivo no lee catálogos de direcciones privadas, locales o reservadas.');
    expect(refused.output).not.toContain('Fuente de cosecha registrada');
    expect(refused.code).toBe(2);
    const credentials = await harvest(['https://usuario:clave@datos.example.org/'], env);
    expect(credentials.output).toContain('La dirección del catálogo no puede llevar usuario ni contraseña');
    expect(credentials.code).toBe(2);
  }, 100_000);

  it('goes through the socket of a running server\'s embedded database, and its run is queued in that database', async () => {
    // What `npm start` runs beside the web server: the database process, serving the folder.
    const database = fork(path.resolve('scripts/embedded-db.ts'), [], { env: { ...process.env, DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        database.once('message', (message: { url?: string; error?: string }) => (message.url ? resolve(message.url) : reject(new Error(message.error))));
        database.once('exit', (code) => reject(new Error(`embedded-db exited with ${code}`)));
      });
      // A server's connection stays open all along, as the web server's pool of one does.
      const server = new pg.Client({ connectionString: url });
      await server.connect();
      try {
        const through = await harvest([portal.urls.ckan, ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
        expect(through.output).toContain('la cosecha la usa a través de él');
        expect(through.output).toMatch(/Cosecha terminada \(importación \d+\)/);
        expect(through.code).toBe(0);
        // The server's session sees the run the script queued and what it did.
        const { rows } = await server.query(`select j.kind, j.status, j.payload->>'requestedBy' as by from jobs j where j.kind = 'harvest' order by j.id desc limit 1`);
        expect(rows[0]).toEqual({ kind: 'harvest', status: 'done', by: 'npm run harvest' });
      } finally {
        await server.end();
      }
    } finally {
      database.kill('SIGTERM');
      await once(database, 'exit');
    }
  }, 120_000);

  it('says clearly that another process holds the embedded database without serving it', async () => {
    // The lock PGlite's owner keeps beside its folder, naming a live process (this one).
    const lockFile = `${path.join(dataDir, 'pgdata')}.lock`;
    await fs.writeFile(lockFile, String(process.pid));
    try {
      const locked = await harvest([portal.urls.ckan, ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
      expect(locked.output).toContain(`está en uso por el proceso ${process.pid}`);
      expect(locked.output).toContain('como `npm run dev` o una migración');
      expect(locked.code).toBe(1);
    } finally {
      await fs.rm(lockFile, { force: true });
    }
  }, 30_000);

  it('tells a PostgreSQL that refuses the connection in one line, as db:migrate does', async () => {
    // A port nothing listens on: a closed server (port 9 is discard, never PostgreSQL).
    const databaseUrl = 'postgres://archivo:clave@127.0.0.1:9/archivo';
    for (const [script, says] of [
      [SCRIPT, 'No se pudo abrir el archivo: la base de datos (PostgreSQL de DATABASE_URL) no está disponible: rechazó la conexión (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9).'],
      [path.resolve('scripts/db-migrate.ts'), 'No se pudo preparar la base de datos (PostgreSQL de DATABASE_URL): rechazó la conexión (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9).'],
    ] as const) {
      const refused = await harvest(script === SCRIPT ? [portal.urls.ckan, ...FAST] : [], { ...env, DATABASE_URL: databaseUrl }, 30_000, script);
      expect(refused.output.trim()).toBe(says);
      expect(refused.code).toBe(1);
    }
  }, 60_000);

  it("refuses to run the seed's snapshot of datos.gob.do, saying why, and asks nothing of its address", async () => {
    // A seeded archive of its own (as `npm start` seeds it): the export's source is registered there
    // as the copy it is. Its address is moved to a closed port on 127.0.0.1 first, so that were the
    // refusal ever lost, the command would fail against nothing rather than ask the real portal.
    const seededDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-harvest-cli-seeded-'));
    try {
      const seeded = { ARCHIVE_DATA_DIR: seededDir, ARCHIVE_SEED_ON_EMPTY: 'true' };
      const seed = await harvest(['--seed-if-empty'], seeded, 120_000, path.resolve('scripts/db-migrate.ts'));
      expect(seed.code, seed.output).toBe(0);
      const offline = 'http://127.0.0.1:9/dataset/';
      const database = await openDatabase({ dataDir: embeddedDatabaseDir(seededDir) });
      try {
        const moved = await database.db
          .update(harvestSources)
          .set({ url: offline })
          .where(eq(harvestSources.url, 'https://datos.gob.do/dataset/'))
          .returning({ snapshotOn: harvestSources.snapshotOn });
        expect(moved).toEqual([{ snapshotOn: '2026-09-24' }]);
      } finally {
        await database.close();
      }
      const refused = await harvest([offline], seeded, 60_000);
      expect(refused.output).toContain('Fuente de cosecha ya registrada: «Portal de Datos Abiertos de la República Dominicana (exportación del 2026-09-24)»');
      expect(refused.output).toContain('es una copia del catálogo tomada el 24/09/2026 y guardada con el archivo, no un catálogo en línea: no se vuelve a cosechar.');
      expect(refused.output).not.toContain('Cosecha en cola');
      expect(refused.code).toBe(2);
    } finally {
      await fs.rm(seededDir, { recursive: true, force: true });
    }
  }, 150_000);

  it('refuses a URL that is not http(s) with a usage error', async () => {
    const wrong = await harvest(['ftp://example.org/catalogo'], env);
    expect(wrong.output).toContain('no es una URL http(s)');
    expect(wrong.code).toBe(2);
  }, 30_000);

  it('tells an option it does not know, or one without its value, as a usage error in Spanish', async () => {
    const cases = [
      { run: () => harvest([portal.urls.ckan, '--kind'], env), says: 'Falta el valor de «--kind».' },
      { run: () => harvest([portal.urls.ckan, '--kind', '--source-name', 'Portal'], env), says: 'Falta el valor de «--kind».' },
      { run: () => harvest([portal.urls.ckan, '--kinds', 'ckan'], env), says: 'Opción desconocida: «--kinds».' },
      { run: () => harvest(['--timeout'], env, 30_000, RECHECK), says: 'Falta el valor de «--timeout».' },
      // Past 2³¹ − 1 ms a Node timer fires at once: such a pause would be none.
      { run: () => harvest([portal.urls.ckan, '--host-delay', '3000000000'], env), says: '--host-delay debe ser un número entero de milisegundos entre 0 y 3,600,000.' },
    ];
    for (const { run, says } of cases) {
      const { code, output } = await run();
      expect(output).toContain(says);
      expect(output).toContain('Uso: npm run');
      expect(output).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
      expect(code).toBe(2);
    }
  }, 60_000);

  it('prints its help with --help or -h and ends successfully, touching nothing', async () => {
    for (const [args, script] of [[['--help'], SCRIPT], [['-h'], RECHECK]] as const) {
      const { code, output } = await harvest([...args], env, 30_000, script);
      expect(output).toMatch(/^Uso: npm run (harvest|recheck)/);
      expect(output).toContain('--host-delay');
      expect(output).not.toContain('Opción desconocida');
      // Every option is in the usage line, --worker too.
      if (script === SCRIPT) expect(output.split('\n')[0]).toContain('[--worker]');
      expect(code).toBe(0);
    }
  }, 60_000);

  it('ends by saying how many captures failed and where their reasons are', async () => {
    const template = portal.packages[0]!;
    portal.packages.push({
      ...template,
      id: 'conjunto-perdido',
      name: 'conjunto-perdido',
      title: 'Conjunto con su archivo perdido',
      resources: [{ ...template.resources[0]!, id: 'r-perdido', name: 'Perdido', url: `${portal.origin}/files/r-perdido/perdido.csv`, hash: '', size: null }],
    });
    try {
      const run = await harvest([portal.urls.ckan, ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
      expect(run.output).toContain('1 nuevo(s)');
      expect(run.output).toMatch(/Capturas: 0 hecha\(s\), 1 fallida\(s\), 0 en curso, 0 en cola\.\n1 captura\(s\) fallaron; sus motivos, y el botón para reintentarlas, están en \/moderacion\/cosechas\?fuente=\d+\./);
      // The run itself ended: a dead link is the capture's failure, not the command's.
      expect(run.code).toBe(0);
    } finally {
      portal.packages.pop();
    }
  }, 90_000);

  it('leaves the work to the servers up on the database, whose block store it may not share, unless told --worker', async () => {
    // Servers up on this database: live instance rows, as every running server keeps one; one of
    // them runs the worker (as a server started with ARCHIVE_WORKER=false would not).
    const database = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
    try {
      await database.db.execute(sql`insert into server_instances (id, hostname, pid, lease_until, worker) values (gen_random_uuid(), 'otro-servidor', 1, now() + interval '10 minutes', true)`);
      await database.db.execute(sql`insert into server_instances (id, hostname, pid, lease_until) values (gen_random_uuid(), 'otro-servidor', 2, now() + interval '10 minutes')`);
    } finally {
      await database.close();
    }
    const template = portal.packages[0]!;
    portal.packages.push({ ...template, id: 'conjunto-del-servidor', name: 'conjunto-del-servidor', title: 'Conjunto que capturan los servidores' });
    try {
      // That server does not really run here: nothing does the run, and the command says why before giving up.
      const waiting = await harvest([portal.urls.ckan, ...FAST, '--timeout', '0.1'], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
      expect(waiting.output).toContain('Hay 1 servidor(es) con el trabajador en marcha sobre esta base: ellos cosechan y capturan, con su almacén de bloques.');
      // Its --host-delay (FAST) is its own worker's, which does not run: said, not ignored in silence.
      expect(waiting.output).toContain('--host-delay solo vale para el trabajador de esta orden: los servidores capturan con su propia pausa (ARCHIVE_CAPTURE_HOST_DELAY_MS).');
      // Untaken for half its time (3 s of these 6, 30 s at most), it says so before giving up: perhaps no server runs the worker.
      expect(waiting.output).toContain('Ningún servidor ha tomado la cosecha todavía: si ninguno tiene el trabajador (ARCHIVE_WORKER=false), interrumpa y repita con --worker.');
      expect(waiting.output.indexOf('Ningún servidor ha tomado')).toBeLessThan(waiting.output.indexOf('Se agotó el tiempo'));
      expect(waiting.code).toBe(1);
      const working = await harvest([portal.urls.ckan, ...FAST, '--worker'], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
      expect(working.output).not.toContain('servidor(es) con el trabajador en marcha');
      // The run the first command queued, done by this one: the new dataset among what it found.
      expect(working.output).toMatch(/Cosecha terminada \(importación \d+\): [1-9]\d* nuevo\(s\)/);
      expect(working.output).toMatch(/Capturas: [1-9]\d* hecha\(s\), 0 fallida\(s\), 0 en curso, 0 en cola\./);
      expect(working.code).toBe(0);
      // Of the command that did the work, nothing is left for the next one to count.
      const after = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
      try {
        expect(await liveWorkerCount(after.db)).toBe(1);
        // Only the server without the worker up: the next command does the work itself, and says so.
        await after.db.execute(sql`delete from server_instances where hostname = 'otro-servidor' and worker`);
      } finally {
        await after.close();
      }
      portal.packages.at(-1)!.title = 'Conjunto que captura la propia orden';
      const alone = await harvest([portal.urls.ckan, ...FAST], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' });
      expect(alone.output).toContain('Ningún servidor en marcha sobre esta base tiene el trabajador: esta orden cosecha y captura');
      expect(alone.output).toMatch(/Cosecha terminada \(importación \d+\): 0 nuevo\(s\), [1-9]\d* actualizado\(s\)/);
      expect(alone.code).toBe(0);
    } finally {
      portal.packages.pop();
      const database = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
      await database.db.execute(sql`delete from server_instances where hostname = 'otro-servidor'`).finally(() => database.close());
    }
  }, 180_000);

  it('says in one line that the database went away when the server serving it stops, and that the run stays queued', async () => {
    // Migrated, as `npm start` leaves it (when this test runs alone, no command has yet).
    const prepared = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
    await migrateDatabase(prepared, MIGRATIONS_DIR).finally(() => prepared.close());
    const database = fork(path.resolve('scripts/embedded-db.ts'), [], { env: { ...process.env, DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const url = await new Promise<string>((resolve, reject) => {
      database.once('message', (message: { url?: string; error?: string }) => (message.url ? resolve(message.url) : reject(new Error(message.error))));
      database.once('exit', (code) => reject(new Error(`embedded-db exited with ${code}`)));
    });
    // A server with the worker up, as far as the command can tell: it only follows the run.
    const server = new pg.Client({ connectionString: url });
    await server.connect();
    await server.query(`insert into server_instances (id, hostname, pid, lease_until, worker) values (gen_random_uuid(), 'servidor-que-se-detiene', 1, now() + interval '10 minutes', true)`);
    await server.end();
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    // No --host-delay: the server does the captures, with its own.
    const child = spawn(process.execPath, [SCRIPT, portal.urls.ckan], { env: { ...inherited, ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const followed = new Promise<void>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        // Following the run: between two of its looks (every 500 ms), its connection idle.
        if (/servidor\(es\) con el trabajador en marcha[^]*Cosecha en cola…/.test(output)) setTimeout(resolve, 200);
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
    });
    const ended = once(child, 'close') as Promise<[number | null]>;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      await followed;
      // `npm start` stopped (Ctrl-C): its database process goes, and the socket with it.
      database.kill('SIGTERM');
      await once(database, 'exit');
      const [code] = await ended;
      expect(output).toMatch(/Se perdió la conexión con la base de datos \(.+\): ¿se detuvo el servidor\? La cosecha y sus capturas siguen en la cola de la base de datos/);
      expect(output).not.toContain('DrizzleQueryError');
      expect(output).not.toMatch(/^\s+at /m);
      // That one line alone after its progress: not the pool's idle connection, nor the instance it could not deregister.
      const after = output.slice(output.indexOf('servidor(es) con el trabajador en marcha')).trim().split('\n').slice(1);
      expect(after.filter((line) => !/^(Cosecha (en cola|empezando)…|Importación \d+: )/.test(line))).toEqual([expect.stringMatching(/^Se perdió la conexión/)]);
      expect(code).toBe(1);
    } finally {
      clearTimeout(timer);
      if (database.exitCode === null) database.kill('SIGKILL');
      const after = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
      await after.db.execute(sql`delete from server_instances where hostname = 'servidor-que-se-detiene'`).finally(() => after.close());
    }
  }, 120_000);

  it("gives the catalogue's datasets that declare none the language and country of --language and --country, and refuses ones it does not know", async () => {
    const allowed = { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' };
    const unknown = await harvest([portal.urls.ckan, '--language', 'klingon'], allowed, 30_000);
    expect(unknown.output).toContain('Idioma desconocido: «klingon». Use un código como «es».');
    expect(unknown.code).toBe(2);
    expect((await harvest([portal.urls.ckan, '--country', 'XYZ'], allowed, 30_000)).output).toContain('País desconocido: «XYZ». Use un código ISO de tres letras como «DOM».');

    const said = await harvest([portal.urls.ckan, ...FAST, '--language', 'es', '--country', 'dom'], allowed);
    expect(said.output).toContain('Ajustes de la fuente cambiados. Los conjuntos que no declaran los suyos tendrán: idioma español, país República Dominicana.');
    expect(said.output).toMatch(/Cosecha terminada \(importación \d+\)/);
    expect(said.code).toBe(0);
    const database = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
    try {
      // The records the catalogue lists now (one an earlier test added left it).
      const rows = await database.db
        .select({ languages: alexandrias.languages, spatial: alexandrias.spatial })
        .from(alexandrias)
        .innerJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
        .where(isNull(harvestedRecords.withdrawnAt));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row).toEqual({ languages: ['http://publications.europa.eu/resource/authority/language/SPA'], spatial: ['http://publications.europa.eu/resource/authority/country/DOM'] });
      }
    } finally {
      await database.close();
    }
    // The same values again change nothing, and are not said to.
    const again = await harvest([portal.urls.ckan, ...FAST, '--language', 'es', '--country', 'DOM'], allowed);
    expect(again.output).toContain('Los conjuntos que no declaran los suyos tendrán: idioma español, país República Dominicana.');
    expect(again.output).not.toContain('Ajustes de la fuente cambiados');
  }, 180_000);
  /** A portal of its own whose files drip in slowly, and the jobs its captures leave behind removed after. */
  async function withSlowPortal(work: (slow: LocalPortal) => Promise<void>, fileMs = 30_000): Promise<void> {
    const slow = await startLocalPortal({ datasets: 2, slow: { fileMs } });
    try {
      await work(slow);
    } finally {
      await slow.close();
      const database = await openDatabase({ dataDir: embeddedDatabaseDir(dataDir) });
      await database.db.execute(sql`delete from jobs where status in ('queued', 'running')`).finally(() => database.close());
    }
  }

  it('ends with 1 when interrupted (Ctrl-C) while captures are left, and says who will finish them', async () => {
    await withSlowPortal(async (slow) => {
      const { DATABASE_URL: _ignored, ...inherited } = process.env;
      const child = spawn(process.execPath, [SCRIPT, slow.urls.ckan, ...FAST], { env: { ...inherited, ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const capturing = new Promise<void>((resolve) => {
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          if (/Capturas: .*[1-9]\d* en curso/.test(output)) resolve();
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
      });
      const ended = once(child, 'close') as Promise<[number | null]>;
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      try {
        await capturing;
        child.kill('SIGINT');
        const [code] = await ended;
        // No server is up on this database: this command was doing the work.
        expect(output).toContain('Interrumpido: la cosecha y sus capturas siguen en la cola; las terminará un servidor (npm start) o esta misma orden repetida.');
        expect(code).toBe(1);
      } finally {
        clearTimeout(timer);
      }
    });
  }, 90_000);

  it('ends with 1 when --timeout passes while captures are left', async () => {
    // 30 s for the catalogue's two datasets, however loaded the machine; its files take two minutes each.
    await withSlowPortal(async (slow) => {
      const run = await harvest([slow.urls.ckan, ...FAST, '--timeout', '0.5'], { ...env, ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true' }, 90_000);
      expect(run.output).toMatch(/Cosecha terminada \(importación \d+\)/);
      expect(run.output).toContain('Se agotó el tiempo (0.5 min): las capturas que faltan siguen en la cola.');
      expect(run.code).toBe(1);
    }, 120_000);
  }, 120_000);
});
