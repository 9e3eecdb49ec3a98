/**
 * Which IP addresses the archive may fetch from: only globally routable unicast. A catalogue is
 * written by strangers, so any URL in it may point inside the archive's own network (the cloud
 * metadata service at 169.254.169.254 hands out credentials; a database listens on 10.x): this is
 * server-side request forgery, and the check runs on the address a name resolved to, never on the
 * name. Ranges follow IANA's special-purpose registries (RFC 6890 and updates) for IPv4 and IPv6.
 *
 * Addresses that carry an IPv4 address inside an IPv6 one (IPv4-mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address inside: `::ffff:127.0.0.1` reaches
 * the loopback interface on a dual-stack host.
 */
import { isIP } from 'node:net';

/** What kind of address an IP is, with the Spanish label error messages use; only `public` may be fetched. */
export const ADDRESS_KINDS = {
  public: 'pública',
  unspecified: 'sin especificar',
  loopback: 'bucle local',
  private: 'red privada',
  shared: 'red compartida del operador (CGNAT)',
  link_local: 'enlace local',
  unique_local: 'local única (IPv6)',
  metadata: 'servicio de metadatos de la nube',
  multicast: 'multidifusión',
  reserved: 'reservada o de documentación',
} as const;

export type AddressKind = keyof typeof ADDRESS_KINDS;

/** `[CIDR, kind]`, most specific first: the first range that contains an address names its kind. */
const IPV4_RANGES: ReadonlyArray<readonly [string, AddressKind]> = [
  ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, OpenStack instance metadata
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud
  ['168.63.129.16/32', 'metadata'], // Azure WireServer: a public-looking address that is not
  ['192.0.0.192/32', 'metadata'], // Oracle Cloud
  ['169.254.170.2/32', 'metadata'], // AWS ECS task credentials
  ['169.254.170.23/32', 'metadata'], // AWS EKS Pod Identity
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes the broadcast address 255.255.255.255
];

/** Only global unicast (2000::/3) can be public; these are its exceptions, and the kinds of the rest. */
const IPV6_RANGES: ReadonlyArray<readonly [string, AddressKind]> = [
  ['fd00:ec2::254/128', 'metadata'], // AWS over IPv6
  ['fd00:ec2::23/128', 'metadata'], // AWS EKS Pod Identity over IPv6
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'], // deprecated site-local
  ['ff00::/8', 'multicast'],
  ['2001::/23', 'reserved'], // IETF protocol assignments, Teredo among them
  ['2001:db8::/32', 'reserved'],
  ['3fff::/20', 'reserved'],
];

/** IPv6 prefixes whose last (or, for 6to4, third to sixth) bytes are an IPv4 address to judge instead. */
const EMBEDDED_IPV4: ReadonlyArray<{ cidr: string; offset: number }> = [
  { cidr: '::ffff:0:0/96', offset: 12 },
  { cidr: '64:ff9b::/96', offset: 12 },
  { cidr: '2002::/16', offset: 2 },
];

interface Prefix {
  bytes: Uint8Array;
  length: number;
}

function parsePrefix(cidr: string): Prefix {
  const [address = '', length = ''] = cidr.split('/');
  const bytes = ipBytes(address);
  if (!bytes) throw new Error(`Not an IP range: ${cidr}`);
  return { bytes, length: Number(length) };
}

const V4 = IPV4_RANGES.map(([cidr, kind]) => ({ prefix: parsePrefix(cidr), kind }));
const V6 = IPV6_RANGES.map(([cidr, kind]) => ({ prefix: parsePrefix(cidr), kind }));
const EMBEDDED = EMBEDDED_IPV4.map(({ cidr, offset }) => ({ prefix: parsePrefix(cidr), offset }));
const GLOBAL_UNICAST = parsePrefix('2000::/3');

function within(bytes: Uint8Array, { bytes: prefix, length }: Prefix): boolean {
  if (bytes.length !== prefix.length) return false;
  for (let bit = 0; bit < length; bit += 8) {
    const mask = length - bit >= 8 ? 0xff : (0xff << (8 - (length - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** The 4 or 16 bytes of an IP address in text form (IPv6 may carry a `%zone` and a dotted tail); null for anything else. */
function ipBytes(text: string): Uint8Array | null {
  const address = text.replace(/%.*$/, '');
  const version = isIP(address);
  if (version === 4) return Uint8Array.from(address.split('.').map(Number));
  if (version !== 6) return null;
  const groups = (half: string): number[] => {
    if (half === '') return [];
    return half.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = address.split('::');
  const first = groups(head);
  const last = tail === undefined ? [] : groups(tail);
  const words = [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
  return Uint8Array.from(words.flatMap((word) => [word >> 8, word & 0xff]));
}

function classifyBytes(bytes: Uint8Array): AddressKind {
  if (bytes.length === 4) return V4.find(({ prefix }) => within(bytes, prefix))?.kind ?? 'public';
  for (const { prefix, offset } of EMBEDDED) {
    if (within(bytes, prefix)) return classifyBytes(bytes.subarray(offset, offset + 4));
  }
  const special = V6.find(({ prefix }) => within(bytes, prefix))?.kind;
  if (special) return special;
  return within(bytes, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/**
 * The kind of an IP address (`public` for globally routable unicast), or null when `address` is
 * not an IP address at all (a host name must be resolved first).
 */
export function classifyAddress(address: string): AddressKind | null {
  const bytes = ipBytes(address.replace(/^\[(.*)\]$/, '$1'));
  return bytes ? classifyBytes(bytes) : null;
}

/** Whether the archive may connect to `address` when private addresses are not allowed. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

/**
 * Whether an address of this kind may be fetched: a public one, and with `allowPrivate` (a portal
 * on the archive's own network) any other but a cloud's metadata service, which is never a
 * catalogue and hands out the server's own credentials, and a link-local one, where the clouds
 * put such services beside those listed (169.254.0.0/16) and no catalogue lives.
 */
export function mayFetchKind(kind: AddressKind, allowPrivate: boolean): boolean {
  return kind === 'public' || (allowPrivate && kind !== 'metadata' && kind !== 'link_local');
}

/**
 * Why the archive will never fetch `url`, told by its host alone, before any lookup: an IP address
 * it may not fetch (`mayFetchKind`), or a name that is this very machine (`localhost`, RFC 6761);
 * as "127.0.0.1 (bucle local)". Null when only resolving the name can tell. Registering a
 * catalogue refuses such an address at once, rather than let every run fail on it.
 */
export function refusedHost(url: URL, allowPrivate: boolean): string | null {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const kind = classifyAddress(hostname) ?? (/^(.+\.)?localhost\.?$/i.test(hostname) ? 'loopback' : null);
  return kind !== null && !mayFetchKind(kind, allowPrivate) ? `${hostname} (${ADDRESS_KINDS[kind]})` : null;
}
