/** Per-host politeness beyond the claim's own delay: what a host itself asks for. */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobHosts } from '../db/schema.ts';
import { milliseconds } from './time.ts';

/**
 * Starts no job for `host` for `delayMs` from now (or later, if it was already held back longer):
 * for a 429 or 503 with Retry-After, or a robots.txt Crawl-delay longer than the queue's delay.
 */
export async function deferHost(db: Db, host: string, delayMs: number): Promise<void> {
  const until = sql`now() + ${milliseconds(delayMs)}`;
  await db
    .insert(jobHosts)
    .values({ host: host.toLowerCase(), nextAllowedAt: until })
    .onConflictDoUpdate({ target: jobHosts.host, set: { nextAllowedAt: sql`greatest(${jobHosts.nextAllowedAt}, excluded.next_allowed_at)` } });
}
