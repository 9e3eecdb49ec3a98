/**
 * How the operator's commands (`npm run harvest`, `npm run recheck`) open the archive: through the
 * database, whatever else runs. With `DATABASE_URL`, that PostgreSQL; on the embedded database
 * while `npm start` serves it, through its socket (`db/embedded-address.ts`); with nothing
 * running, the folder itself. A folder another process holds without serving it is named as the
 * reason, and the command exits.
 */
import { openArchive, type Archive } from './archive.ts';
import type { ArchiveConfig } from './config.ts';
import { readEmbeddedAddress } from './db/embedded-address.ts';

/** Opens the archive for a command (`what` names its work in the messages: "la cosecha"). */
export async function openArchiveForCommand(config: ArchiveConfig, what: string): Promise<Archive> {
  const served = config.databaseUrl ? undefined : readEmbeddedAddress(config.dataDir);
  if (served) {
    config.databaseUrl = served;
    config.databasePoolMax = 1;
    console.log(`El servidor en marcha sirve la base de datos embebida: ${what} pasa por él.`);
  }
  try {
    return await openArchive({ config });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes('está en uso')) {
      console.error(
        `${message}\nOtro proceso tiene abierta la base de datos embebida (PGlite) sin servirla, como \`npm run dev\` o una migración: ` +
          `espere a que termine, o detenga \`npm run dev\` y use \`npm start\`, junto al que ${what} sí funciona.`,
      );
    } else {
      console.error(`No se pudo abrir el archivo: ${message}`);
    }
    process.exit(1);
  }
}

/**
 * The configuration with a command's `--host-delay` (ms) as the pause between two requests to one
 * host (`ARCHIVE_CAPTURE_HOST_DELAY_MS`, 1 s by default: be polite to public portals); a value that
 * is not a whole number of milliseconds is a usage error, told through `usage`.
 */
export function withHostDelay(config: ArchiveConfig, value: string | undefined, usage: (message: string) => never): ArchiveConfig {
  if (value === undefined) return config;
  const hostDelayMs = Number(value);
  if (!Number.isSafeInteger(hostDelayMs) || hostDelayMs < 0) usage('--host-delay debe ser un número entero de milisegundos.');
  config.worker.perHostDelayMs = hostDelayMs;
  return config;
}
