/**
 * The configuration (src/lib/server/config.ts): what an operator sets is taken as set, and a
 * setting that is set but wrong stops the start with every wrong one named, in Spanish, rather
 * than falling back to a default unseen. `npm start` says so before it prepares anything.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/lib/server/config.ts';

const MODERATOR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** The problems `readConfig` reports for `env`; none when it reads it. */
function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    readConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('readConfig', () => {
  it('runs on its defaults with nothing set, and takes empty values as unset', () => {
    for (const env of [{}, { PORT: '', ARCHIVE_WORKER: '', ARCHIVE_CAPTURE_HOST_DELAY_MS: ' ', ARCHIVE_CHAIN_IDS: '', DATABASE_URL: ' ' }]) {
      const config = readConfig(env);
      expect(config).toMatchObject({ host: 'localhost', port: 4321, moderators: [], chainIds: [1, 11155111], maxDocumentBytes: 200_000_000 });
      expect(config.worker).toMatchObject({ enabled: true, concurrency: 8, perHostConcurrency: 2, perHostDelayMs: 1000 });
      expect(config.databaseUrl).toBeUndefined();
    }
    // An empty HOST has always meant every interface, as 0.0.0.0 does.
    expect(readConfig({ HOST: '' })).toMatchObject({ host: '', publicUrl: 'http://localhost:4321' });
  });

  it('takes the Host values ARCHIVE_ALLOWED_HOSTS lists, names and addresses with their ports, in any case', () => {
    const { allowedHosts } = readConfig({ ARCHIVE_PUBLIC_URL: 'https://archivo.gob.do', ARCHIVE_ALLOWED_HOSTS: 'Datos.Example.org:8443, 10.0.0.5, [::1]:4321' });
    expect(allowedHosts).toEqual(['archivo.gob.do', 'datos.example.org:8443', '10.0.0.5', '[::1]:4321']);
  });

  it('takes what is set: numbers, words for yes and no, wallets in any case', () => {
    const config = readConfig({
      PORT: '8080',
      ARCHIVE_CAPTURE_HOST_DELAY_MS: '0',
      ARCHIVE_CAPTURE_HOST_CONCURRENCY: '4',
      ARCHIVE_GONE_AFTER_DAYS: '0',
      ARCHIVE_RECHECK_MIN_DAYS: '0.5',
      ARCHIVE_WORKER: 'no',
      ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'Sí',
      ARCHIVE_REQUIRE_LOGIN: 'on',
      ARCHIVE_SEED_ON_EMPTY: '0',
      ARCHIVE_MODERATORS: ` ${MODERATOR} ,`,
      ARCHIVE_CHAIN_IDS: '1, 137',
    });
    expect(config.port).toBe(8080);
    expect(config.worker).toMatchObject({ enabled: false, perHostDelayMs: 0, perHostConcurrency: 4 });
    expect(config.watch).toMatchObject({ goneAfterDays: 0, minIntervalDays: 0.5 });
    expect(config).toMatchObject({ captureAllowPrivate: true, requireLogin: true, seedOnEmpty: false, chainIds: [1, 137] });
    expect(config.moderators).toEqual([MODERATOR.toLowerCase()]);
  });

  it('names a wrong number, flag, port, wallet or chain instead of using the default in its place', () => {
    const cases: Array<[NodeJS.ProcessEnv, string]> = [
      [{ ARCHIVE_CAPTURE_HOST_DELAY_MS: '5s' }, 'ARCHIVE_CAPTURE_HOST_DELAY_MS debe ser un número entero de milisegundos entre 0 y 3,600,000, no «5s».'],
      // Past 2³¹ − 1 ms a Node timer fires after 1 ms: no pause at all, and a lease renewed in a busy loop.
      [{ ARCHIVE_CAPTURE_HOST_DELAY_MS: '3000000000' }, 'ARCHIVE_CAPTURE_HOST_DELAY_MS debe ser un número entero de milisegundos entre 0 y 3,600,000, no «3000000000».'],
      [{ ARCHIVE_JOB_LEASE_MS: '10000000000' }, 'ARCHIVE_JOB_LEASE_MS debe ser un número entero de milisegundos entre 500 y 86,400,000, no «10000000000».'],
      [{ ARCHIVE_INSTANCE_LEASE_MS: '10' }, 'ARCHIVE_INSTANCE_LEASE_MS debe ser un número entero de milisegundos entre 500 y 86,400,000, no «10».'],
      [{ ARCHIVE_CAPTURE_HOST_CONCURRENCY: '-1' }, 'ARCHIVE_CAPTURE_HOST_CONCURRENCY debe ser un número entero mayor que cero, no «-1».'],
      [{ ARCHIVE_MAX_DOCUMENT_BYTES: '200MB' }, 'ARCHIVE_MAX_DOCUMENT_BYTES debe ser un número entero mayor que cero, no «200MB».'],
      [{ ARCHIVE_WORKER_CONCURRENCY: '2.5' }, 'ARCHIVE_WORKER_CONCURRENCY debe ser un número entero mayor que cero, no «2.5».'],
      [{ ARCHIVE_FIXITY_PERIOD_DAYS: '0' }, 'ARCHIVE_FIXITY_PERIOD_DAYS debe ser un número mayor que cero, no «0».'],
      [{ ARCHIVE_GONE_AFTER_DAYS: 'tres' }, 'ARCHIVE_GONE_AFTER_DAYS debe ser un número igual o mayor que cero, no «tres».'],
      [{ ARCHIVE_WORKER: 'ture' }, 'ARCHIVE_WORKER admite true o false (también 1 o 0, sí o no, on u off), no «ture».'],
      [{ PORT: 'abc' }, 'PORT debe ser un puerto entre 1 y 65535, no «abc».'],
      [{ PORT: '0' }, 'PORT debe ser un puerto entre 1 y 65535, no «0».'],
      [{ PORT: '65536' }, 'PORT debe ser un puerto entre 1 y 65535, no «65536».'],
      // Number() reads these as 4401 and 80: a port the operator never wrote.
      [{ PORT: '0x1131' }, 'PORT debe ser un puerto entre 1 y 65535, no «0x1131».'],
      [{ PORT: '80.0' }, 'PORT debe ser un puerto entre 1 y 65535, no «80.0».'],
      [{ HOST: '999.1.1.1' }, 'HOST debe ser un nombre o una dirección IP donde escuchar, no «999.1.1.1».'],
      // Every link the archive prints would drop the path and lead to the ministry's own site.
      [{ ARCHIVE_PUBLIC_URL: 'https://www.gob.do/archivo/' }, 'ARCHIVE_PUBLIC_URL debe ser solo el origen (esquema, nombre y puerto), sin ruta: el archivo se sirve desde la raíz de su dirección, no «https://www.gob.do/archivo/».'],
      [{ DATABASE_URL: 'mysql://root@db/archivo' }, 'DATABASE_URL debe ser la URL de un servidor PostgreSQL (postgres://usuario:contraseña@servidor:5432/base); sin ella, el archivo usa su base embebida.'],
      [{ DATABASE_URL: 'notaurl' }, 'DATABASE_URL debe ser la URL de un servidor PostgreSQL (postgres://usuario:contraseña@servidor:5432/base); sin ella, el archivo usa su base embebida.'],
      [{ ARCHIVE_MODERATORS: `${MODERATOR},0x7099` }, 'ARCHIVE_MODERATORS admite direcciones de cartera separadas por comas (0x y 40 cifras hexadecimales), no «0x7099».'],
      [{ ARCHIVE_CHAIN_IDS: '1,mainnet' }, 'ARCHIVE_CHAIN_IDS admite números enteros de red (chain id) separados por comas, no «mainnet».'],
      [{ ARCHIVE_CHAIN_IDS: ',' }, 'ARCHIVE_CHAIN_IDS necesita al menos una red (chain id).'],
      [{ HOST: 'local host' }, 'HOST debe ser un nombre o una dirección IP donde escuchar, no «local host».'],
      // A URL where a Host value goes matched no request, and every one got a 400.
      [{ ARCHIVE_ALLOWED_HOSTS: 'archivo.gob.do,http://x.org/' }, 'ARCHIVE_ALLOWED_HOSTS admite nombres de servidor con su puerto si lo lleva, separados por comas (archivo.gob.do, datos.example.org:8443), no «http://x.org/».'],
      [{ ARCHIVE_PINNING_SERVICE_URL: 'pinata' }, 'ARCHIVE_PINNING_SERVICE_URL no es una URL válida: «pinata».'],
      [{ ARCHIVE_FORM_MAILER_KEY: 'k', ARCHIVE_FORM_MAILER_URL: 'ftp://correo.example.org' }, 'ARCHIVE_FORM_MAILER_URL debe ser una URL http(s) sin credenciales, no «ftp://correo.example.org».'],
    ];
    for (const [env, problem] of cases) expect(problemsOf(env), JSON.stringify(env)).toEqual([problem]);
  });

  it('takes every form of DATABASE_URL node-postgres reads, Unix sockets included', () => {
    for (const url of [
      'postgres://archivo:clave@db.example.org:5432/archivo',
      'postgresql://archivo@/archivo?host=/var/run/postgresql',
      'postgresql:///archivo?host=/var/run/postgresql',
      'socket:/var/run/postgresql?db=archivo',
      '/var/run/postgresql archivo',
    ]) {
      expect(problemsOf({ DATABASE_URL: url }), url).toEqual([]);
      expect(readConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });

  it('names every wrong setting at once, the ones whose own checks throw included', () => {
    const problems = problemsOf({
      PORT: 'abc',
      ARCHIVE_WORKER: 'ture',
      ARCHIVE_PUBLIC_URL: 'notaurl',
      ARCHIVE_BLOCKSTORE: 'ftp',
      ARCHIVE_TRUSTED_PROXIES: '10.0.0.0/8',
      ARCHIVE_CAPTURE_HOST_DELAY_MS: '1s',
    });
    expect(problems).toHaveLength(6);
    for (const name of ['PORT', 'ARCHIVE_WORKER', 'ARCHIVE_PUBLIC_URL', 'ARCHIVE_BLOCKSTORE', 'ARCHIVE_TRUSTED_PROXIES', 'ARCHIVE_CAPTURE_HOST_DELAY_MS']) {
      expect(problems.some((problem) => problem.startsWith(name)), name).toBe(true);
    }
    expect(() => readConfig({ PORT: 'abc' })).toThrow(/^La configuración no es válida:\n {2}· PORT/);
  });
});

describe('npm start with wrong settings', () => {
  it('says in one line that the data folder cannot be used, or the migrations are not where it was told, with no stack trace', async () => {
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-carpeta-'));
    try {
      const file = path.join(scratch, 'no-es-carpeta');
      await fs.writeFile(file, 'un archivo donde debería ir la carpeta de datos');
      const { DATABASE_URL: _unused, ...inherited } = process.env;
      const run = async (env: NodeJS.ProcessEnv) => {
        const child = spawn(process.execPath, [path.resolve('scripts/start.ts')], { env: { ...inherited, PORT: '4894', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        return { code, output };
      };
      const folder = await run({ ARCHIVE_DATA_DIR: file });
      expect(folder.code).toBe(1);
      expect(folder.output.trim()).toBe(
        `No se pudo preparar la base de datos (PGlite en ${file}): la carpeta de datos ${file} (ARCHIVE_DATA_DIR) no se puede usar: con ese nombre hay un archivo, no una carpeta (EEXIST: file already exists, mkdir '${file}').`,
      );
      const migrations = await run({ ARCHIVE_DATA_DIR: path.join(scratch, 'datos'), ARCHIVE_MIGRATIONS_DIR: path.join(scratch, 'sin-migraciones') });
      expect(migrations.code).toBe(1);
      expect(migrations.output).toContain(`no están las migraciones en ${path.join(scratch, 'sin-migraciones')} (ARCHIVE_MIGRATIONS_DIR; falta meta/_journal.json).`);
      expect(migrations.output).not.toMatch(/\n\s+at /);
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops before preparing anything, naming each of them, with no stack trace', async () => {
    const { DATABASE_URL: _unused, ...inherited } = process.env;
    const child = spawn(process.execPath, [path.resolve('scripts/start.ts')], {
      env: { ...inherited, PORT: 'abc', ARCHIVE_WORKER: 'ture', ARCHIVE_DATA_DIR: path.resolve('data/never-created') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(output).toContain('La configuración no es válida:');
    expect(output).toContain('PORT debe ser un puerto entre 1 y 65535, no «abc».');
    expect(output).toContain('ARCHIVE_WORKER admite true o false');
    // Nothing was prepared: no migration ran, no database was opened.
    expect(output).not.toContain('Base de datos lista');
    expect(output).not.toMatch(/\n\s+at /);
  }, 30_000);
});
