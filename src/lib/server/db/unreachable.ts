/**
 * A database that cannot be reached or refuses the connection is the operator's to fix (a host
 * name, a port, a password), so the commands that open the archive (`db:migrate`, and through it
 * `npm start`; `npm run harvest`, `npm run recheck`) tell it in one line rather than a stack.
 */

/**
 * Codes of a database that cannot be reached or refuses the connection, each in the operator's
 * Spanish: the name or the address (ENOTFOUND, EAI_AGAIN, ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH,
 * ENETUNREACH), the password or role (28P01, 28000), the database's name (3D000), a server still
 * starting (57P03).
 */
const UNREACHABLE_DATABASE: Readonly<Record<string, string>> = {
  ENOTFOUND: 'no se encuentra el nombre del servidor',
  EAI_AGAIN: 'no se pudo resolver el nombre del servidor por ahora',
  ECONNREFUSED: 'rechazó la conexión',
  ETIMEDOUT: 'no respondió a tiempo',
  EHOSTUNREACH: 'no se puede llegar al servidor',
  ENETUNREACH: 'no se puede llegar a su red',
  '28P01': 'el usuario o la contraseña no son válidos',
  '28000': 'el usuario no tiene permiso para conectarse',
  '3D000': 'la base de datos no existe',
  '57P03': 'el servidor todavía está arrancando',
};

/**
 * `error`'s one line when it says the database cannot be reached or refuses us: what happened in
 * Spanish, then the code and the driver's own words, which name the address or the user
 * («rechazó la conexión (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432)»); null for anything else.
 */
export function unreachableDatabase(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || !Object.hasOwn(UNREACHABLE_DATABASE, code)) return null;
  return `${UNREACHABLE_DATABASE[code]} (${code}: ${messageOf(error)})`;
}

/**
 * An error's own words. `localhost` tried on ::1 and then 127.0.0.1 fails as an AggregateError
 * with no message of its own: its first error speaks for it.
 */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : undefined;
  if (first instanceof Error && first.message) return first.message;
  return (error as { code?: unknown }).code ? String((error as { code?: unknown }).code) : error.name;
}

/**
 * Codes of a connection lost during a command (the server that served the embedded database
 * stopped, PostgreSQL restarted): the socket closed or reset under a query, then refused or gone
 * when the pool connects again.
 */
const LOST_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);
/** Codes of a connection that cannot be made again, when `connect` is what failed (a file's ENOENT is no database's). */
const NO_CONNECTION = new Set(['ECONNREFUSED', 'ENOENT']);

/**
 * `error`'s one line when it says the database went away under a command: the driver's words
 * (node-postgres's «Connection terminated unexpectedly», a socket's code), found under the query
 * error that carries them; null for anything else (a password refused is `unreachableDatabase`'s,
 * and a stack is the one to read for the rest).
 */
export function lostDatabase(error: unknown): string | null {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth += 1) {
    const { code, syscall } = cause as { code?: unknown; syscall?: unknown };
    const lost = typeof code === 'string' && (LOST_CONNECTION.has(code) || (NO_CONNECTION.has(code) && syscall === 'connect'));
    if (lost) return `${code}: ${messageOf(cause)}`;
    if (/^Connection terminated/i.test(cause.message)) return cause.message;
  }
  return null;
}

/** File system codes of a data folder the archive cannot create or write, in the operator's Spanish. */
const UNUSABLE_FOLDER: Readonly<Record<string, string>> = {
  EEXIST: 'con ese nombre hay un archivo, no una carpeta',
  ENOTDIR: 'una parte de su ruta es un archivo, no una carpeta',
  EACCES: 'no hay permiso para crearla o escribir en ella',
  EPERM: 'el sistema no permite crearla ni escribir en ella',
  EROFS: 'está en un disco de solo lectura',
  ENOSPC: 'el disco está lleno',
};

/**
 * `error`'s one line when it says the data folder (`ARCHIVE_DATA_DIR`) cannot be created or written
 * (a file where it should be, no permission, a read-only disk): the operator's to fix, as a
 * database that cannot be reached is; null for anything else, a path outside the folder included.
 */
export function unusableDataFolder(error: unknown, dataDir: string): string | null {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (!(error instanceof Error) || typeof code !== 'string' || !Object.hasOwn(UNUSABLE_FOLDER, code)) return null;
  if (typeof path !== 'string' || !(path === dataDir || path.startsWith(`${dataDir}/`))) return null;
  // Node's own words begin with the code: said once.
  return `la carpeta de datos ${dataDir} (ARCHIVE_DATA_DIR) no se puede usar: ${UNUSABLE_FOLDER[code]} (${code}: ${messageOf(error).replace(`${code}: `, '')})`;
}
