/**
 * Durations as SQL intervals. Every time the queue stores or compares is the database's clock
 * plus one of these: several server processes share the queue, and their own clocks may disagree.
 */
import { sql, type SQL } from 'drizzle-orm';

/** `ms` milliseconds as an SQL interval; refuses what is not a finite, non-negative number. */
export function milliseconds(ms: number): SQL {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`Duración no válida: ${ms} ms`);
  return sql`(${ms}::double precision * interval '1 millisecond')`;
}
