/**
 * Turns a URL's host into the one address the archive will connect to, after checking every
 * address the name resolves to. The caller then connects to that address and no other (see
 * `pinnedLookup`): resolving again at connect time would let a hostile DNS server answer a public
 * address to the check and a private one to the connection (DNS rebinding).
 */
import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ADDRESS_KINDS, classifyAddress, isPublicAddress, mayFetchKind } from './address-policy.ts';
import { CaptureError } from './errors.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to; `dns.lookup` (the system resolver, hosts file included) by default. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * Whether the archive may connect to `address`, which `hostname` resolved to. The default is
 * `isPublicAddress`; a test (or an operator allowing one internal mirror) may pass its own.
 */
export type AddressCheck = (address: string, hostname: string) => boolean;

export interface AddressRules {
  /** Allow private, loopback and reserved addresses (`ARCHIVE_CAPTURE_ALLOW_PRIVATE=true`: tests, a portal on the same network); a cloud's metadata service and link-local addresses stay refused. */
  allowPrivate: boolean;
  resolver: HostResolver;
  isAllowedAddress: AddressCheck;
}

/** The system resolver, every address in the order it gives them. */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, order: 'verbatim' });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** The default address check: public addresses only, whatever the name. */
export const publicOnly: AddressCheck = (address) => isPublicAddress(address);

/**
 * The address to connect to for `url`'s host. Every resolved address must pass the check, not just
 * the one used: a name that mixes a public address with a private one is refused.
 *
 * @throws CaptureError `private_address` for a refused address, `dns_failed` when the name does not resolve
 */
export async function resolveCheckedAddress(url: URL, rules: AddressRules): Promise<ResolvedAddress> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(hostname);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await rules.resolver(hostname);
    } catch (error) {
      throw new CaptureError('dns_failed', hostname, { cause: error, url: url.href });
    }
  }
  const [first] = addresses;
  if (!first) throw new CaptureError('dns_failed', `${hostname} no tiene direcciones`, { url: url.href });
  for (const { address } of addresses) {
    const kind = classifyAddress(address) ?? 'reserved';
    // The caller's own check may open more addresses (a test, an internal mirror), never a cloud's
    // metadata service nor a link-local address (`mayFetchKind`).
    if (mayFetchKind(kind, rules.allowPrivate) || (mayFetchKind(kind, true) && rules.isAllowedAddress(address, hostname))) continue;
    const shown = literal ? address : `${hostname} → ${address}`;
    throw new CaptureError('private_address', `${shown} (${ADDRESS_KINDS[kind]})`, { url: url.href });
  }
  return first;
}

/**
 * A `lookup` for `net.connect` that answers the already checked address whatever it is asked:
 * the socket goes where the check looked, and nowhere a second resolution might point.
 */
export function pinnedLookup({ address, family }: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
