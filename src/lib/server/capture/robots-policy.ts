/**
 * Whether the archive may capture a URL, by its host's robots.txt (RFC 9309), fetched through the
 * same safe fetch as any capture and kept per origin for a while:
 *
 * - 2xx: its rules apply (the first 500 KiB, the least RFC 9309 asks a crawler to read);
 * - 4xx, or more redirects than the fetch follows: "unavailable", everything is allowed;
 * - 5xx, or unreachable (timeout, refused address, cut connection): "unreachable", everything is
 *   disallowed for now, and asked again sooner (`failureTtlMs`) than a good answer (`ttlMs`).
 *
 * One fetch per origin at a time: captures from one host that ask together share it. The verdict
 * also carries the site's `Crawl-delay` for the archive, which the capture job turns into a pause
 * of the host's queue (`deferHost`).
 */
import { CaptureError, type CaptureFailureReason } from './errors.ts';
import { crawlDelayFor, isAllowedByRobots, parseRobotsTxt, type RobotsRules } from './robots-txt.ts';
import { CAPTURE_USER_AGENT_TOKEN, captureFetch, type CaptureFetchOptions } from './safe-fetch.ts';

/** How much of a robots.txt is read; the rest is ignored, as RFC 9309 allows past 500 KiB. */
const ROBOTS_READ_LIMIT = 500 * 1024;

export interface RobotsPolicyOptions {
  /** How robots.txt is fetched: the same `allowPrivate`, user agent and resolver as the captures. */
  fetch?: CaptureFetchOptions;
  /** The product token matched against `User-agent` lines. */
  token?: string;
  /** How long an answer is trusted (24 h, the most RFC 9309 advises). */
  ttlMs?: number;
  /** How long "unreachable" is kept before asking again (10 min). */
  failureTtlMs?: number;
  /** Origins kept at most; the oldest is forgotten first (1,000). */
  maxOrigins?: number;
  /** The clock, for tests of expiry. */
  now?: () => number;
}

/** The answer for one URL: `reason` says why, in Spanish, for a capture skipped or a log line. */
export interface RobotsVerdict {
  allowed: boolean;
  reason: string;
  /** The pause the site asks between two requests (`Crawl-delay`), in milliseconds; null when none. */
  crawlDelayMs: number | null;
  /**
   * Disallowed only because robots.txt could not be read (a 5xx, a timeout, no connection): not
   * the site saying no, and asked again after `failureTtlMs`.
   */
  unreachable: boolean;
  /**
   * When robots.txt could not be read because the site itself cannot be (`SITE_FAILURES`: an
   * address the archive refuses, a name that does not resolve, no connection): that failure, which
   * is the reason to tell, rather than robots.txt.
   */
  siteFailure: CaptureError | null;
}

/** Failures of robots.txt's fetch that would fail any request to its site, whatever the path. */
const SITE_FAILURES: ReadonlySet<CaptureFailureReason> = new Set(['private_address', 'dns_failed', 'connect_failed', 'connect_timeout', 'tls_failed']);

type OriginPolicy =
  | { kind: 'rules'; rules: RobotsRules }
  | { kind: 'allow_all'; reason: string }
  | { kind: 'disallow_all'; reason: string; siteFailure: CaptureError | null };

interface CacheEntry {
  policy: Promise<OriginPolicy>;
  expiresAt: number;
}

export class RobotsPolicy {
  readonly #options: Required<Omit<RobotsPolicyOptions, 'fetch'>> & { fetch: CaptureFetchOptions };
  readonly #cache = new Map<string, CacheEntry>();

  constructor(options: RobotsPolicyOptions = {}) {
    this.#options = {
      fetch: options.fetch ?? {},
      token: options.token ?? CAPTURE_USER_AGENT_TOKEN,
      ttlMs: options.ttlMs ?? 24 * 60 * 60_000,
      failureTtlMs: options.failureTtlMs ?? 10 * 60_000,
      maxOrigins: options.maxOrigins ?? 1_000,
      now: options.now ?? Date.now,
    };
  }

  /** How long an unreachable robots.txt keeps its site disallowed before it is asked again. */
  get failureTtlMs(): number {
    return this.#options.failureTtlMs;
  }

  /** Whether `url` may be captured. */
  async allowed(url: string): Promise<boolean> {
    return (await this.check(url)).allowed;
  }

  /**
   * Whether `url` may be captured, and why.
   *
   * @throws CaptureError `invalid_url` or `unsupported_scheme` for a URL the archive would never fetch
   */
  async check(url: string): Promise<RobotsVerdict> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CaptureError('invalid_url', url);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CaptureError('unsupported_scheme', parsed.protocol);
    const policy = await this.#policyFor(parsed.origin);
    if (policy.kind === 'allow_all') return { allowed: true, reason: policy.reason, crawlDelayMs: null, unreachable: false, siteFailure: null };
    if (policy.kind === 'disallow_all') return { allowed: false, reason: policy.reason, crawlDelayMs: null, unreachable: true, siteFailure: policy.siteFailure };
    const allowed = isAllowedByRobots(policy.rules, this.#options.token, `${parsed.pathname}${parsed.search}`);
    const crawlDelayMs = crawlDelayFor(policy.rules, this.#options.token);
    return { allowed, reason: allowed ? 'robots.txt lo permite' : 'robots.txt lo prohíbe', crawlDelayMs, unreachable: false, siteFailure: null };
  }

  #policyFor(origin: string): Promise<OriginPolicy> {
    const now = this.#options.now();
    const cached = this.#cache.get(origin);
    if (cached && cached.expiresAt > now) return cached.policy;
    this.#cache.delete(origin);
    const entry: CacheEntry = { policy: this.#fetchPolicy(origin), expiresAt: Number.POSITIVE_INFINITY };
    this.#cache.set(origin, entry);
    while (this.#cache.size > this.#options.maxOrigins) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
    entry.policy.then(
      (policy) => {
        const ttl = policy.kind === 'disallow_all' ? this.#options.failureTtlMs : this.#options.ttlMs;
        entry.expiresAt = this.#options.now() + ttl;
      },
      () => this.#cache.delete(origin),
    );
    return entry.policy;
  }

  async #fetchPolicy(origin: string): Promise<OriginPolicy> {
    let response;
    try {
      response = await captureFetch(`${origin}/robots.txt`, { ...this.#options.fetch, accept: 'text/plain' });
    } catch (error) {
      if (!(error instanceof CaptureError)) throw error;
      if (error.reason === 'too_many_redirects' || error.reason === 'redirect_loop') {
        return { kind: 'allow_all', reason: `robots.txt no disponible (${error.message})` };
      }
      // The site's own failure only: one at another host robots.txt redirected to (a CDN) says nothing of the site.
      const atSite = error.url !== undefined && URL.canParse(error.url) && new URL(error.url).origin === origin;
      return { kind: 'disallow_all', reason: `robots.txt inalcanzable (${error.message})`, siteFailure: atSite && SITE_FAILURES.has(error.reason) ? error : null };
    }
    const { status, body } = response;
    if (status >= 500) {
      body.destroy();
      return { kind: 'disallow_all', reason: `robots.txt inalcanzable (HTTP ${status})`, siteFailure: null };
    }
    if (status < 200 || status >= 300) {
      body.destroy();
      return { kind: 'allow_all', reason: `robots.txt no disponible (HTTP ${status})` };
    }
    try {
      return { kind: 'rules', rules: parseRobotsTxt(await readPrefix(body, ROBOTS_READ_LIMIT)) };
    } catch (error) {
      if (!(error instanceof CaptureError)) throw error;
      return { kind: 'disallow_all', reason: `robots.txt inalcanzable (${error.message})`, siteFailure: null };
    }
  }
}

/** The first `limit` bytes of `body` as UTF-8 text, without its byte order mark; the rest is not read. */
async function readPrefix(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= limit) break;
  }
  body.destroy();
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks).subarray(0, limit));
}
