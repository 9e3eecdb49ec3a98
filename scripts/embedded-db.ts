/**
 * The embedded database's own process, started by `npm start` when no DATABASE_URL is set, once
 * `db-migrate.ts` has migrated (and on the first start seeded) the folder: it opens PGlite, serves
 * it over a Unix socket (src/lib/server/db/pglite-socket.ts) and tells its parent the connection
 * string over IPC: `{ url }`, or `{ error }` if it could not open; it also writes it beside the
 * folder (`db/embedded-address.ts`) for other processes of this user. It loads PGlite and nothing of
 * the archive's, so that its memory is PGlite's.
 *
 * It lives exactly as long as its parent: when the IPC channel closes (the server exited, however
 * it died, or let go of it at the end of its shutdown), it closes PGlite cleanly, which checkpoints
 * the data folder, and releases the folder's lock. SIGTERM/SIGINT close it too; with
 * `--relay-signals` (scripts/start.ts) they are passed on to the server first (`{ stop: signal }`),
 * which shuts down and then closes the channel.
 */
import { embeddedDatabaseDir, readConfigOrExit } from '../src/lib/server/config.ts';
import { openPglite } from '../src/lib/server/db/pglite.ts';
import { servePglite } from '../src/lib/server/db/pglite-socket.ts';
import { removeEmbeddedAddress, writeEmbeddedAddress } from '../src/lib/server/db/embedded-address.ts';

if (!process.send) throw new Error('embedded-db.ts runs as a child of scripts/start.ts (with an IPC channel).');
const tell = (message: { url: string } | { error: string }) => process.send!(message);
/** How long a signalled database waits for its server to shut down (scripts/start.ts allows itself 30 s). */
const PARENT_SHUTDOWN_WAIT_MS = 35_000;
const { dataDir } = readConfigOrExit();

/** Closes the database and ends the process; set once it is open. */
let stop: (() => Promise<void>) | undefined;
/** A stop asked for while the database was still opening: done as soon as it is open. */
let stopAsked = false;
const requestStop = () => {
  if (stop) void stop();
  else stopAsked = true;
};

// Installed before opening, which may take seconds: a parent that lets go meanwhile (its own
// shutdown) or a signal then is not lost, and PGlite is closed cleanly once open.
process.on('disconnect', requestStop);
// Under `npm start` (--relay-signals), a signal is most often meant for the server too (Ctrl-C
// reaches the whole process group; systemd signals the whole unit): the server still needs the
// database to hand back its jobs and deregister, and lets go of it when done. So the first signal
// is passed on to the server, which shuts down and then closes the channel; only if that does not
// come in time, or at a second signal, does this process stop on its own. Other parents (the
// benchmark, tests) stop it with a signal and expect it to close at once.
const relay = process.argv.includes('--relay-signals');
let signalled = false;
const onSignal = (signal: NodeJS.Signals) => {
  if (!relay || signalled || !process.connected) return requestStop();
  signalled = true;
  // The server may be letting go of the channel at this moment (it got the same Ctrl-C): a
  // message it can no longer take means it is done with the database.
  process.send!({ stop: signal }, undefined, {}, (error) => {
    if (error) requestStop();
  });
  setTimeout(requestStop, PARENT_SHUTDOWN_WAIT_MS).unref();
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

try {
  const started = Date.now();
  // The preparation that ran just before may still be letting go of the folder.
  const embedded = await openPglite(embeddedDatabaseDir(dataDir), { lockWaitMs: 20_000 });
  const served = await servePglite(embedded.client);
  console.log(`Base de datos embebida lista (PGlite en ${dataDir}, proceso ${process.pid}) en ${Date.now() - started} ms.`);

  let stopping: Promise<void> | undefined;
  stop = () =>
    (stopping ??= (async () => {
      removeEmbeddedAddress(dataDir);
      await served.close().catch((error: unknown) => console.error(error));
      await embedded.close();
      process.exit(0);
    })());
  if (stopAsked || !process.connected) {
    await stop();
  } else {
    // `npm run harvest` (and any other process of this user) finds the running database here.
    writeEmbeddedAddress(dataDir, served.url);
    tell({ url: served.url });
  }
} catch (error) {
  console.error(error);
  if (process.connected) tell({ error: error instanceof Error ? error.message : String(error) });
  process.disconnect?.();
  process.exitCode = 1;
}
