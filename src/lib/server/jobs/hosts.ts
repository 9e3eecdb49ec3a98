/**
 * Per-host politeness beyond the claim's own delay: which host a job asks (its key in `job_hosts`),
 * and what a host itself asks for (Retry-After, Crawl-delay).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { jobHosts } from '../db/schema.ts';
import { milliseconds } from './time.ts';

/**
 * The most a host is held back for what it asks: a `Retry-After` of a week or a `Crawl-delay` of
 * a day (typos, or a site that wants no crawler) would otherwise stop its captures for as long.
 */
export const MAX_HOST_DEFERRAL_MS = 60 * 60_000;

/**
 * The politeness key of the host `url` asks, as jobs are enqueued with it: the host name in lower
 * case without a trailing dot, with the port only when it is not the scheme's default. So
 * `https://EXAMPLE.org:443/a`, `https://example.org./b` and `http://example.org/c` are one host
 * (one budget of requests and delays), and `https://example.org:8443/` another.
 */
export function politenessKey(url: string | URL): string {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  // URL lower-cases the name and drops the scheme's default port already; a trailing dot names the same host.
  const hostname = parsed.hostname.toLowerCase().replace(/\.$/, '');
  return parsed.port ? `${hostname}:${parsed.port}` : hostname;
}

/**
 * Starts no job for `host` (a `politenessKey`) for `delayMs` from now, at most
 * `MAX_HOST_DEFERRAL_MS` (or later, if it was already held back longer): for a 429 or 503 with
 * Retry-After, or a robots.txt Crawl-delay. Every worker of every process on the database waits.
 */
export async function deferHost(db: Db, host: string, delayMs: number): Promise<void> {
  // NaN stays NaN, which `milliseconds` refuses.
  const until = sql`now() + ${milliseconds(Math.min(Math.max(0, delayMs), MAX_HOST_DEFERRAL_MS))}`;
  await db
    .insert(jobHosts)
    .values({ host: host.toLowerCase(), nextAllowedAt: until })
    .onConflictDoUpdate({ target: jobHosts.host, set: { nextAllowedAt: sql`greatest(${jobHosts.nextAllowedAt}, excluded.next_allowed_at)` } });
}
