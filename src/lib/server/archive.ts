/**
 * The running archive: its configuration, its migrated database and its content store, opened
 * once per process. Pages, endpoints and scripts all reach the data through `getArchive()`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { embeddedDatabaseDir, readConfig, type ArchiveConfig } from './config.ts';
import { migrateDatabase, openDatabase, pendingMigrations, type DatabaseHandle } from './db/index.ts';
import { lostDatabase } from './db/unreachable.ts';
import { needsSeed, seedArchive } from './seed/index.ts';
import { pinningProviders, type PinningProvider } from './pinning/index.ts';
import { createContentStore, createStagingArea, databaseFileGuard, openBlockstore, type ContentStore, type StagingArea } from './storage/index.ts';
import { instancesOnOtherStores, registerInstance, waitForOlderInstances, type InstanceElsewhere, type ServerInstance } from './instances/index.ts';
import { storeIdentity } from './storage/store-identity.ts';
import { sweepInterruptedUploads, sweepPeriodically } from './uploads/imports.ts';
import { startBackgroundWork } from './background.ts';
import { withTrustlessGateways } from './gateway/catalogue-files.ts';
import { onShutdown, shutdownBegun } from './shutdown.ts';
import { formatCount } from '../text.ts';

export interface Archive extends DatabaseHandle {
  config: ArchiveConfig;
  store: ContentStore;
  /** Where uploads wait, outside the store, until they are accepted. */
  staging: StagingArea;
  /** Who keeps the archive's files: the local store, and a remote pinning service if configured. */
  pinning: PinningProvider[];
  /**
   * What keeps this server from doing its work now, in Spanish, or null when nothing does: its
   * database out of reach, its instance's lease run out (no commit is started then), or a block
   * store that is not there to be used (a folder it may not write, a missing bucket). For `/v2/health`.
   */
  unready(): Promise<string | null>;
  /**
   * What works but will surprise, in Spanish, for `/v2/health` beside its «ok»: other live servers
   * that store their files in another block store than this one, with no gateways to fetch from
   * them (each serves only what it stored itself). Never names the other servers: the check is public.
   */
  warnings(): Promise<string[]>;
  /** Tells the other processes on the database that this one runs the job queue's worker (`startBackgroundWork`). */
  markWorker(): Promise<void>;
}

export interface OpenArchiveOptions {
  config?: ArchiveConfig;
  /** Seed the real catalogue if the database is empty (the first start). */
  seedIfEmpty?: boolean;
  /** How long to wait for an embedded database folder that another process is still closing. */
  lockWaitMs?: number;
  /** See `OpenOptions.onIdleError`. */
  onIdleDatabaseError?: (error: Error) => void;
  /**
   * This process serves the archive (a web server, `getArchive`): it tells the others which block
   * store it keeps files in, and they compare theirs with it (`warnings`). A command (a harvest
   * queued, a migration) is short-lived and serves no file: not counted.
   */
  serves?: boolean;
}

/** What servers on different block stores with no gateways between them mean, and what to do: for the log and `/v2/health`. */
const STORES_APART =
  'y este no tiene pasarelas (ARCHIVE_TRUSTLESS_GATEWAYS): cada servidor sirve solo los archivos que guardó él. ' +
  'Compartan un bucket (ARCHIVE_BLOCKSTORE=s3) o nombre cada uno las pasarelas /ipfs/ de los demás.';

/** Opens the database and store that `config` names, applies migrations, and seeds if asked. */
export async function openArchive({ config = readConfig(), seedIfEmpty = false, lockWaitMs, onIdleDatabaseError, serves = false }: OpenArchiveOptions = {}): Promise<Archive> {
  const handle = await openDatabase({
    url: config.databaseUrl,
    poolMax: config.databasePoolMax,
    dataDir: config.databaseUrl ? undefined : embeddedDatabaseDir(config.dataDir),
    lockWaitMs,
    onIdleError: onIdleDatabaseError,
  });
  // The blockstore every server shares (or this one's folder); staging commits into it unwrapped.
  const blockstore = openBlockstore(config.blockstore, config.dataDir);
  const store = createContentStore({ blockstore: withTrustlessGateways(blockstore, config.trustlessGateways, handle.db) });
  // Which store this process writes into, for the other servers to compare with theirs. A command
  // serves no file: it neither names the folder nor compares.
  const storeId = serves ? await storeIdentity(config.blockstore, config.dataDir) : null;
  let instance: ServerInstance | undefined;
  let staging: StagingArea | undefined;
  await oneAtATime(config, async () => {
    // An upgrade: no process of an older version may go on working on the schema it changes. The
    // embedded database has one owner, this process, so none can be running on it.
    if (config.databaseUrl && (await pendingMigrations(handle.db, config.migrationsDir)) > 0) await waitForOlderInstances(handle.db);
    await migrateDatabase(handle, config.migrationsDir);
    // Registered once the migrations made its table, and before the sweep, which must know it alive.
    // The embedded database has one owner, this process, so no other instance can still be running.
    instance = await registerInstance(handle.db, {
      leaseMs: config.instanceLeaseMs,
      soleOwner: !config.databaseUrl,
      storeId,
    });
    staging = createStagingArea({ store: blockstore, dir: path.join(config.dataDir, 'staging'), owner: instance, guard: databaseFileGuard(handle.db) });
    // Uploads cut short by a crash left a staging folder and an unfinished import: clear both.
    await staging.sweep();
    await sweepInterruptedUploads(handle.db, { all: !config.databaseUrl });
    if (seedIfEmpty && (await needsSeed(handle.db))) {
      if (fs.existsSync(path.join(config.fixturesDir, 'catalog'))) {
        const seeded = await seedArchive({ db: handle.db, store, staging, fixturesDir: config.fixturesDir });
        // The operator's first start: said, so that an empty archive and a seeded one are told apart in the log.
        console.log(
          `Carga inicial del catálogo real hecha: ${formatCount(seeded.records)} registros, ${formatCount(seeded.archivedFiles)} archivos guardados, ` +
            `${formatCount(seeded.departments)} instituciones, ${formatCount(seeded.sources)} fuentes y ${formatCount(seeded.categories)} categorías.`,
        );
      } else {
        // An archive without the seed material still serves (empty) and takes contributions.
        console.warn(`Sin datos reales para la carga inicial en ${config.fixturesDir} (ARCHIVE_FIXTURES_DIR): el archivo arranca vacío.`);
      }
    }
  }).catch(async (error: unknown) => {
    await instance?.stop().catch(() => undefined);
    await store.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
    throw error;
  });
  const registered = instance!;
  const stagingArea = staging!;
  /** Servers on another store, with no gateways to fetch from them: none when either is the case. */
  const elsewhere = async (): Promise<InstanceElsewhere[]> =>
    storeId === null || config.trustlessGateways.length > 0 ? [] : instancesOnOtherStores(handle.db, registered.id, storeId);
  /** The servers already named in the log, by host and process: each is named once. */
  const named = new Set<string>();
  // Staging that instances dying later leave is cleared once their lease has run out: sweeping
  // once a lease keeps it to about two. The timer alone keeps no process alive.
  const sweeps = setInterval(() => {
    stagingArea.sweep().catch((error: unknown) => console.error('No se pudo limpiar la espera de subidas:', error));
    // Said in the log too, where an operator looks, with the names the public check leaves out.
    elsewhere()
      .then((others) => {
        for (const other of others) {
          const key = `${other.hostname}:${other.pid}`;
          if (named.has(key)) continue;
          named.add(key);
          console.warn(`El servidor ${other.hostname} (proceso ${other.pid}) guarda sus archivos en otro almacén de bloques (${other.storeId}) que este (${storeId}), ${STORES_APART}`);
        }
      })
      .catch((error: unknown) => console.error('No se pudo comparar el almacén de bloques con el de los otros servidores:', error));
  }, registered.leaseMs);
  sweeps.unref();
  return {
    ...handle,
    config,
    store,
    staging: stagingArea,
    pinning: pinningProviders(config, store),
    async unready() {
      try {
        await handle.db.execute(sql`select 1`);
      } catch (error) {
        console.error('Comprobación de salud, base de datos:', error);
        return 'El archivo no alcanza su base de datos.';
      }
      if (registered.leaseLeftMs(registered.id) === 0) {
        return 'La concesión de este servidor en la base de datos venció: no confirma subidas ni capturas hasta renovarla.';
      }
      try {
        await blockstore.probe();
      } catch (error) {
        console.error('Comprobación de salud, almacén de bloques:', error);
        return 'El archivo no puede usar su almacén de bloques: vea el registro del servidor.';
      }
      return null;
    },
    async warnings() {
      // Advice, never a failure of the check: a question that fails leaves it out.
      const others = await elsewhere().catch((error: unknown) => {
        console.error('No se pudo comparar el almacén de bloques con el de los otros servidores:', error);
        return [];
      });
      if (others.length === 0) return [];
      return [
        `${others.length === 1 ? 'Otro servidor en marcha guarda' : `${formatCount(others.length)} servidores más en marcha guardan`} sus archivos en otro almacén de bloques que este, ${STORES_APART}`,
      ];
    },
    markWorker: () => registered.markWorker(),
    async close() {
      clearInterval(sweeps);
      // The row goes first: what this instance leaves in staging is anyone's to clear from then on.
      await registered.stop().catch((error: unknown) => {
        // With the database gone already (a command whose server stopped, which says so itself),
        // there is no row to remove: its lease runs out on its own.
        if (!lostDatabase(error)) console.error('No se pudo dar de baja la instancia del servidor:', error);
      });
      await store.close();
      await handle.close();
    },
  };
}

/**
 * Runs `prepare` (migrations, start-up sweeps, the first seed) alone among every process on the
 * same PostgreSQL: under a session advisory lock on a connection of its own, so servers started
 * together wait for the first one to migrate and seed, then find the work done (issue #21). The
 * embedded database has one owner and needs no lock. A process that dies holding the lock ends
 * its session, and PostgreSQL releases the lock.
 */
async function oneAtATime(config: ArchiveConfig, prepare: () => Promise<void>): Promise<void> {
  if (!config.databaseUrl) return prepare();
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: config.databaseUrl });
  client.on('error', (error) => console.error('Base de datos: se perdió la conexión del cerrojo de preparación:', error.message));
  await client.connect();
  try {
    await client.query(`select pg_advisory_lock(hashtext('archivo:preparar'))`);
    await prepare();
  } finally {
    // Let go explicitly: over the embedded database's socket, the session behind it outlives us.
    await client.query(`select pg_advisory_unlock(hashtext('archivo:preparar'))`).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

let running: Promise<Archive> | undefined;

/**
 * The process-wide archive. Opening is shared, not per request: PGlite allows one owner of its
 * folder per process, and a pool of connections is meant to be reused. When the process shuts
 * down (`shutdown.ts`), its background work stops, handing back the jobs it held, and the archive
 * closes, which takes this server out of `server_instances`.
 */
export function getArchive(): Promise<Archive> {
  if (running) return running;
  let stop: (() => Promise<void>) | undefined;
  const opening = openArchive({ serves: true }).then((archive) => {
    // The serving process keeps clearing uploads that died with another process (PostgreSQL).
    const sweeps = sweepPeriodically(archive.db);
    // And runs the job queue and the harvest schedule, unless ARCHIVE_WORKER=false, or unless the
    // process began to shut down while the archive opened: jobs claimed now would only go back.
    const background = archive.config.worker.enabled && !shutdownBegun() ? startBackgroundWork(archive) : undefined;
    stop = async () => {
      sweeps.stop();
      await background?.stop();
      await archive.close();
    };
    return archive;
  });
  // Registered now, not once open: a shutdown while the archive opens (an upgrade waiting for the
  // older servers, a migration) waits for it to open, then closes it, so it does not stay registered.
  const unregister = onShutdown(async () => {
    await opening.catch(() => undefined);
    await stop?.();
  });
  running = opening.catch((error: unknown) => {
    unregister();
    running = undefined;
    throw error;
  });
  return running;
}
