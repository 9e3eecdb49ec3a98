/**
 * How long a failed job waits before its next attempt: exponential in the attempts made, capped,
 * with "equal jitter" (half the delay fixed, half random) so that jobs failing together do not
 * come back together, while each retry still waits at least as long as the one before could.
 */
import { sql, type SQL } from 'drizzle-orm';
import { jobs } from '../db/schema.ts';

export interface BackoffOptions {
  /** The delay after the first failed attempt, before jitter (30 s). */
  baseMs?: number;
  /** The longest delay, before jitter (1 h). */
  maxMs?: number;
}

export const DEFAULT_BACKOFF = { baseMs: 30_000, maxMs: 3_600_000 } as const;

/**
 * The delay before the next attempt of the job in the row being updated, as an SQL interval:
 * computed in the database so that one definition serves a failure (`fail`) and an expired lease
 * (`reclaimExpired`), which updates many rows with different attempt counts at once.
 */
export function backoffDelay(options: BackoffOptions = {}): SQL {
  const baseMs = options.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const maxMs = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
  if (!(baseMs >= 0 && maxMs >= baseMs)) throw new RangeError(`Espera entre intentos no válida: ${baseMs}–${maxMs} ms`);
  return sql`(least(${maxMs}::double precision, ${baseMs}::double precision * power(2, greatest(${jobs.attempts}, 1) - 1))
    * (0.5 + random() * 0.5) * interval '1 millisecond')`;
}
