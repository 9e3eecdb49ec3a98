/**
 * What a request may say about where it is going. The `Host` header is the visitor's to write:
 * it must never decide a URL the archive prints, the domain a wallet signs for, or, as a string
 * the HTTP adapter pastes into `http://${host}${path}`, which route is served (issue #16: `Host:
 * x@y` made `new Request()` throw outside any try/catch and stopped the process; `Host:
 * evil.example/moderacion?` turned GET /dashboard into /moderacion).
 */
import { isIP } from 'node:net';
import { normalizeAddress } from '../config.ts';

/** A DNS name (labels of letters, digits and inner hyphens), an IPv4 address, or a bracketed IPv6 one; then an optional port. */
const PLAIN_HOST = /^(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?))*|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

/** The `Host` value lower-cased when it is a plain `host[:port]`, otherwise null. */
export function plainHost(value: string | null | undefined): string | null {
  if (!value || value.length > 260) return null;
  const host = value.trim().toLowerCase();
  return PLAIN_HOST.test(host) ? host : null;
}

export type HostVerdict = { ok: true; host: string } | { ok: false; message: string };

/** What the configuration says about hosts (`ArchiveConfig`). */
export interface HostRules {
  allowedHosts: readonly string[];
  /** `ARCHIVE_CONTENT_ORIGIN`: a host that serves user content only, never the archive's pages. */
  contentOrigin?: string | undefined;
}

/** Where user content is served on the content origin: the gateway, and nothing else. */
const CONTENT_PATHS = /^\/ipfs\//;

/**
 * The health check (`/v2/health`) answers whatever host a request names, as long as it is a plain
 * one: a load balancer or an orchestrator's probe asks by the server's own address (`10.0.3.7:4321`),
 * not by the archive's public name, and the answer prints no URL and serves no page.
 */
export const HEALTH_PATH = '/v2/health';

/**
 * Whether a request naming `value` as its host, for `path`, is for this archive: a plain
 * `host[:port]` that the configuration lists; or the content origin's host, for the gateway's
 * paths only (the archive's pages, and its session, never live there); or any plain host for the
 * health check.
 */
export function checkHost(value: string | null | undefined, rules: HostRules, path = '/'): HostVerdict {
  const host = plainHost(value);
  if (!host) return { ok: false, message: 'Cabecera Host no válida: debe ser un nombre de host y, si acaso, un puerto.' };
  if (path.split('?')[0] === HEALTH_PATH) return { ok: true, host };
  if (rules.contentOrigin && host === new URL(rules.contentOrigin).host) {
    // Only a path that stays itself once dot-segments are resolved: `/ipfs/../docs` (or with
    // %2e) would be served by the static files as /docs.
    const pathname = path.split('?')[0] ?? '';
    if (CONTENT_PATHS.test(pathname) && new URL(pathname, 'http://contenido.invalid').pathname === pathname) return { ok: true, host };
    return { ok: false, message: `${host} solo sirve archivos (/ipfs/…); el archivo está en otra dirección.` };
  }
  if (!rules.allowedHosts.includes(host)) return { ok: false, message: `Este archivo no se sirve en ${host}.` };
  return { ok: true, host };
}

/**
 * The client behind a request, as rate limits count clients. The socket's peer, unless that peer
 * is a trusted proxy (`ARCHIVE_TRUSTED_PROXIES`): then `X-Forwarded-For` is read from the right,
 * skipping the trusted proxies, and the first address nobody we trust added is the client's.
 * Anything left of it was written by the client and could be anything. An IPv6 client counts as
 * its /64: one subscriber usually holds a whole /64 and could otherwise take a fresh address, and
 * a fresh allowance, for every request.
 */
export function clientAddressOf(peer: string, forwardedFor: string | null, trustedProxies: readonly string[]): string {
  let address = normalizeAddress(peer);
  if (trustedProxies.includes(address) && forwardedFor) {
    const hops = forwardedFor.split(',').map((hop) => normalizeAddress(hop)).filter(Boolean);
    for (let index = hops.length - 1; index >= 0; index -= 1) {
      address = hops[index]!;
      if (!trustedProxies.includes(address)) break;
    }
  }
  return isIP(address) === 6 ? ipv6Prefix64(address) : address;
}

/** The /64 network of an IPv6 address, written `a:b:c:d::/64`. */
function ipv6Prefix64(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}
