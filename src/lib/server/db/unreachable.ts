/**
 * A database that cannot be reached or refuses the connection is the operator's to fix (a host
 * name, a port, a password), so the commands that open the archive (`db:migrate`, and through it
 * `npm start`; `npm run harvest`, `npm run recheck`) tell it in one line rather than a stack.
 */

/**
 * Codes of a database that cannot be reached or refuses the connection: the name or the address
 * (ENOTFOUND, EAI_AGAIN, ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH), the password or
 * role (28P01, 28000), the database's name (3D000), a server still starting (57P03).
 */
const UNREACHABLE_DATABASE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', '28P01', '28000', '3D000', '57P03']);

/** `error`'s one line when it says the database cannot be reached or refuses us («… (ECONNREFUSED)»); null for anything else. */
export function unreachableDatabase(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || !UNREACHABLE_DATABASE.has(code)) return null;
  return `${messageOf(error)} (${code})`;
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
