/**
 * How the operator's commands (`npm run harvest`, `npm run recheck`) open the archive: through the
 * database, whatever else runs. With `DATABASE_URL`, that PostgreSQL; on the embedded database
 * while `npm start` serves it, through its socket (`db/embedded-address.ts`); with nothing
 * running, the folder itself. A folder another process holds without serving it is named as the
 * reason, and the command exits.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { openArchive, type Archive } from './archive.ts';
import { MAX_HOST_DELAY_MS, type ArchiveConfig } from './config.ts';
import { readEmbeddedAddress } from './db/embedded-address.ts';
import { EmbeddedDatabaseInUseError } from './db/pglite.ts';
import { lostDatabase, messageOf, unreachableDatabase } from './db/unreachable.ts';
import { formatCount } from '../text.ts';

/** Opens the archive for a command (`what` names its work in the messages: "la cosecha"). */
export async function openArchiveForCommand(config: ArchiveConfig, what: string): Promise<Archive> {
  const served = config.databaseUrl ? undefined : readEmbeddedAddress(config.dataDir);
  if (served) {
    config.databaseUrl = served;
    config.databasePoolMax = 1;
    console.log(`El servidor en marcha sirve la base de datos embebida: ${what} la usa a través de él.`);
  }
  try {
    // An idle connection lost says nothing here: the command's next query fails, and it tells the
    // loss in one line (`reportLostDatabase`).
    return await openArchive({ config, onIdleDatabaseError: () => undefined });
  } catch (error) {
    const message = messageOf(error);
    const unreachable = unreachableDatabase(error);
    if (unreachable) {
      const where = served ? 'la embebida que sirve `npm start`' : 'PostgreSQL de DATABASE_URL';
      console.error(`No se pudo abrir el archivo: la base de datos (${where}) no está disponible: ${unreachable}.`);
    } else if (error instanceof EmbeddedDatabaseInUseError) {
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
 * What a command says when `error` is its database going away under it (the server that served
 * the embedded database stopped): one line in Spanish, true, and the work it queued stays queued
 * (`what`'s own words say so). False for any other error, which the command lets through.
 */
export function reportLostDatabase(error: unknown, what: string): boolean {
  const lost = lostDatabase(error);
  if (!lost) return false;
  console.error(
    `Se perdió la conexión con la base de datos (${lost}): ¿se detuvo el servidor? ${what} siguen en la cola de la base de datos; ` +
      'un servidor las terminará cuando vuelva a arrancar.',
  );
  return true;
}

/**
 * A command's arguments (node:util's `parseArgs`, positionals allowed). An option the command does
 * not know, or one given without its value, is a usage error told in Spanish through `usage`, not
 * an English stack trace; `--help` (or `-h`) prints `help` and ends the command successfully.
 */
export function parseCommandArgs<const O extends ParseArgsOptionsConfig>(options: O, usage: (message: string) => never, help: string) {
  if (process.argv.slice(2).some((argument) => argument === '--help' || argument === '-h')) {
    console.log(help);
    process.exit(0);
  }
  try {
    return parseArgs({ allowPositionals: true, options });
  } catch (error) {
    usage(argumentProblem(error));
  }
}

/** What `parseArgs` found wrong, in Spanish; its English message names the option in quotes. */
function argumentProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1];
  const code = (error as { code?: unknown }).code;
  if (option && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Opción desconocida: «${option}».`;
  if (option && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // Missing, or "ambiguous" (followed by another option, or by a value that starts with -).
    return message.includes('does not take an argument') ? `«${option}» no lleva valor.` : `Falta el valor de «${option}».`;
  }
  return 'Argumentos no válidos.';
}

/**
 * The configuration with a command's `--host-delay` (ms) as the pause between two requests to one
 * host (`ARCHIVE_CAPTURE_HOST_DELAY_MS`, 1 s by default: be polite to public portals); a value that
 * is not a whole number of milliseconds is a usage error, told through `usage`.
 */
export function withHostDelay(config: ArchiveConfig, value: string | undefined, usage: (message: string) => never): ArchiveConfig {
  if (value === undefined) return config;
  const hostDelayMs = Number(value);
  // The configuration's bound: past 2³¹ − 1 ms a Node timer fires after 1 ms, and the pause would be none.
  if (!Number.isSafeInteger(hostDelayMs) || hostDelayMs < 0 || hostDelayMs > MAX_HOST_DELAY_MS) {
    usage(`--host-delay debe ser un número entero de milisegundos entre 0 y ${formatCount(MAX_HOST_DELAY_MS)}.`);
  }
  config.worker.perHostDelayMs = hostDelayMs;
  return config;
}
