/**
 * A lock held for a while rather than for a connection: a row in `leased_locks` naming its holder
 * until `held_until` (the database's clock). Taking it is one statement, so it works on a pool of
 * one connection (the embedded database over its socket) where a session advisory lock held across
 * other queries would wait on itself; and a holder that dies lets go when the time runs out.
 */
import { and, eq, sql } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/index.ts';
import { milliseconds } from '../jobs/time.ts';

/** Migration 0024. */
export const leasedLocks = pgTable('leased_locks', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  heldUntil: timestamp('held_until', { withTimezone: true }).notNull(),
});

export interface LeasedLockOptions {
  /** Longest the work may hold the lock before another may take it (5 min). */
  holdMs?: number;
  /** How long to wait for a lock another holds before giving up (30 s). */
  waitMs?: number;
  /** How often to try again meanwhile (250 ms). */
  pollMs?: number;
}

/**
 * Runs `work` holding the lock `name` as `holder`. Resolves to `{ ran: false }` if another holder
 * kept it for all of `waitMs`: the caller's turn comes next time.
 */
export async function withLeasedLock<T>(
  db: Db,
  name: string,
  holder: string,
  work: () => Promise<T>,
  { holdMs = 5 * 60_000, waitMs = 30_000, pollMs = 250 }: LeasedLockOptions = {},
): Promise<{ ran: true; value: T } | { ran: false }> {
  const giveUpAt = performance.now() + waitMs;
  for (;;) {
    const taken = await db
      .insert(leasedLocks)
      .values({ name, holder, heldUntil: sql`now() + ${milliseconds(holdMs)}` })
      .onConflictDoUpdate({
        target: leasedLocks.name,
        set: { holder, heldUntil: sql`now() + ${milliseconds(holdMs)}` },
        setWhere: sql`${leasedLocks.heldUntil} <= now() or ${leasedLocks.holder} = ${holder}`,
      })
      .returning({ holder: leasedLocks.holder });
    if (taken.length > 0) break;
    if (performance.now() + pollMs > giveUpAt) return { ran: false };
    await sleep(pollMs);
  }
  try {
    return { ran: true, value: await work() };
  } finally {
    // Should letting go fail (the database unreachable), the lock still runs out after `holdMs`.
    await db
      .delete(leasedLocks)
      .where(and(eq(leasedLocks.name, name), eq(leasedLocks.holder, holder)))
      .catch(() => undefined);
  }
}
