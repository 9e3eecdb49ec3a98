/**
 * Fixed-window rate limits kept in the database, so every server process counts together.
 * Each hit is one atomic upsert; old windows are swept now and then.
 */
import { lt, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { rateLimits } from '../db/schema.ts';
import { TooManyRequestsError } from '../http/errors.ts';

export interface Limit {
  /** Most hits allowed in one window. */
  max: number;
  windowSeconds: number;
}

/** Counts a hit on `key`; throws a 429 when the window's allowance is spent. */
export async function spend(db: Db, key: string, limit: Limit, now = new Date()): Promise<void> {
  const windowMs = limit.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart, hits: 1 })
    .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.windowStart], set: { hits: sql`${rateLimits.hits} + 1` } })
    .returning({ hits: rateLimits.hits });
  // Sweeping on about one hit in fifty keeps the table small without a scheduler.
  if (Math.random() < 0.02) await db.delete(rateLimits).where(lt(rateLimits.windowStart, new Date(now.getTime() - 2 * windowMs)));
  if ((row?.hits ?? 0) > limit.max) {
    throw new TooManyRequestsError(Math.ceil((windowStart.getTime() + windowMs - now.getTime()) / 1000));
  }
}
