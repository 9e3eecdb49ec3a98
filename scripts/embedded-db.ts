/**
 * The embedded database's own process, started by `npm start` when no DATABASE_URL is set, once
 * `db-migrate.ts` has migrated (and on the first start seeded) the folder: it opens PGlite, serves
 * it over a Unix socket (src/lib/server/db/pglite-socket.ts) and tells its parent the connection
 * string over IPC: `{ url }`, or `{ error }` if it could not open; it also writes it beside the
 * folder (`db/embedded-address.ts`) for other processes of this user. It loads PGlite and nothing of
 * the archive's, so that its memory is PGlite's.
 *
 * It lives exactly as long as its parent: when the IPC channel closes (the server exited, however
 * it died) or on SIGTERM/SIGINT, it closes PGlite cleanly, which checkpoints the data folder, and
 * releases the folder's lock.
 */
import { embeddedDatabaseDir, readConfig } from '../src/lib/server/config.ts';
import { openPglite } from '../src/lib/server/db/pglite.ts';
import { servePglite } from '../src/lib/server/db/pglite-socket.ts';
import { removeEmbeddedAddress, writeEmbeddedAddress } from '../src/lib/server/db/embedded-address.ts';

if (!process.send) throw new Error('embedded-db.ts runs as a child of scripts/start.ts (with an IPC channel).');
const tell = (message: { url: string } | { error: string }) => process.send!(message);
const { dataDir } = readConfig();

try {
  const started = Date.now();
  // The preparation that ran just before may still be letting go of the folder.
  const embedded = await openPglite(embeddedDatabaseDir(dataDir), { lockWaitMs: 20_000 });
  const served = await servePglite(embedded.client);
  console.log(`Base de datos embebida lista (PGlite en ${dataDir}, proceso ${process.pid}) en ${Date.now() - started} ms.`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      removeEmbeddedAddress(dataDir);
      await served.close().catch((error: unknown) => console.error(error));
      await embedded.close();
      process.exit(0);
    })());
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // `npm run harvest` (and any other process of this user) finds the running database here.
  writeEmbeddedAddress(dataDir, served.url);
  tell({ url: served.url });
} catch (error) {
  console.error(error);
  tell({ error: error instanceof Error ? error.message : String(error) });
  process.disconnect?.();
  process.exitCode = 1;
}
