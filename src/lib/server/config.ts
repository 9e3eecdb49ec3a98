/**
 * The archive's settings, read once from the environment. Every option the README documents is
 * here, with its default: an archive that runs with no configuration at all on embedded parts.
 *
 * A setting that is set but wrong stops the start, with every wrong one named at once
 * (`ConfigError`): never a silent default in its place. A typo such as
 * `ARCHIVE_CAPTURE_HOST_DELAY_MS=5s` or `ARCHIVE_WORKER=ture` would otherwise leave a portal
 * without the pause its operator asked for, or a server without its worker, and say nothing.
 * Empty counts as unset.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { formatCount } from '../text.ts';

export interface ArchiveConfig {
  /** Where the server listens: `HOST` (localhost; empty, as `0.0.0.0`, every interface) and `PORT` (4321). */
  host: string;
  port: number;
  /** Folder for everything the archive keeps: the PGlite database and the blockstore. */
  dataDir: string;
  /** A PostgreSQL connection string; when unset, the embedded PGlite under `dataDir` is used. */
  databaseUrl: string | undefined;
  /** Most connections to `databaseUrl` at once (10; `npm start` sets 1 for its embedded database process). */
  databasePoolMax: number;
  /** The real public material the seed loads (catalogue, publishers, files). */
  fixturesDir: string;
  /** Seed the real catalogue when the archive starts on an empty database. */
  seedOnEmpty: boolean;
  /** Every path but /auth/* needs a session (the spec's stated routing rule). */
  requireLogin: boolean;
  /** Wallet addresses (lower-cased) allowed to change a record's status. */
  moderators: string[];
  /** Where the migrations live; the built server runs from the project root. */
  migrationsDir: string;
  /**
   * The archive's public origin, for every absolute URL it prints (canonical links, sitemap, DCAT,
   * exports) and for the domain a wallet signs in for: `ARCHIVE_PUBLIC_URL`, or else the address
   * the server was started on (`http://HOST:PORT`). Never taken from a request (issue #16).
   */
  publicUrl: string;
  /**
   * Hosts (`host[:port]`, lower-cased) a request may name in its `Host` header; any other gets a
   * 400. The public URL's host, `ARCHIVE_ALLOWED_HOSTS`, and, when no public URL is configured,
   * the loopback names of the server's port (localhost, 127.0.0.1, [::1]).
   */
  allowedHosts: string[];
  /**
   * A separate origin for user content (`ARCHIVE_CONTENT_ORIGIN`, e.g. `https://contenido.example.org`),
   * as code hosts and IPFS subdomain gateways do: files a visitor uploaded that a browser would
   * render inline (PDF) are served from there, never from the archive's own origin.
   */
  contentOrigin: string | undefined;
  /**
   * Addresses of reverse proxies whose `X-Forwarded-For` is believed (`ARCHIVE_TRUSTED_PROXIES`,
   * comma-separated IPs). Rate limits key on the client address; without this, every visitor
   * behind a proxy shares the proxy's.
   */
  trustedProxies: string[];
  /** Chains a Sign-In with Ethereum message may be signed on (mainnet and the Sepolia test network by default). */
  chainIds: number[];
  /** Largest document a contributor may upload, in bytes (200 MB by default). */
  maxDocumentBytes: number;
  /** Largest proof screenshot, in bytes (10 MB by default). */
  maxProofBytes: number;
  /** Uploads allowed per hour to one wallet (30) and to one IP address (60). */
  uploadsPerHour: { wallet: number; ip: number };
  /**
   * A remote service that speaks the IPFS Pinning Service API, asked to pin every upload besides
   * the local store (e.g. `https://api.pinata.cloud/psa`); none when unset.
   */
  pinningService: { endpoint: string; token: string; name: string } | undefined;
  /**
   * A form-mailer service that forwards contact messages by e-mail (Web3Forms-style: POST of
   * `access_key`, `subject`, `message`); its key is a secret and stays on the server.
   */
  formMailer: { endpoint: string; accessKey: string } | undefined;
  /**
   * Let harvests and captures fetch private, loopback and reserved addresses
   * (`ARCHIVE_CAPTURE_ALLOW_PRIVATE`, false): only for a catalogue on the archive's own network,
   * such as the tests' local portal on 127.0.0.1.
   */
  captureAllowPrivate: boolean;
  /** Largest file a capture keeps, in bytes (`ARCHIVE_CAPTURE_MAX_BYTES`; the document upload limit by default). */
  captureMaxBytes: number;
  /**
   * How captured URLs are watched (issue #19): the check interval grows from
   * `ARCHIVE_RECHECK_MIN_DAYS` (1) while a file stays the same, up to `ARCHIVE_RECHECK_MAX_DAYS`
   * (30); a URL failing for `ARCHIVE_GONE_AFTER_DAYS` (3; 0: the first failed check) is
   * "desaparecido en origen".
   */
  watch: { minIntervalDays: number; maxIntervalDays: number; goneAfterDays: number };
  /**
   * The fixity audit (issue #19, `fixity/`): every stored block read again and checked against its
   * hash, one pass spread over `ARCHIVE_FIXITY_PERIOD_DAYS` (30).
   */
  fixity: { periodDays: number };
  /**
   * Where the content store keeps its blocks (issue #21): `ARCHIVE_BLOCKSTORE=fs` (the default), the
   * data folder's `blocks/`; or `s3`, an S3-compatible bucket every server reaches (see `BlockstoreSettings`).
   */
  blockstore: BlockstoreSettings;
  /**
   * IPFS trustless gateways a block this server lacks is read through from, in order
   * (`ARCHIVE_TRUSTLESS_GATEWAYS`, comma-separated base URLs: other archive servers, a kubo node's
   * gateway, a public one); verified against its CID and kept (`storage/read-through.ts`). None by default.
   */
  trustlessGateways: string[];
  /**
   * How long this server instance's staging stays its own without a heartbeat
   * (`ARCHIVE_INSTANCE_LEASE_MS`, 60 s): once it has passed, another server may clear what it staged.
   */
  instanceLeaseMs: number;
  /**
   * The background work this process does: the job queue's worker (harvest runs, captures) and the
   * harvest schedule. `ARCHIVE_WORKER=false` turns both off in this process (another server on the
   * same database then does the work); on by default.
   */
  worker: {
    enabled: boolean;
    /** Jobs this process runs at once (`ARCHIVE_WORKER_CONCURRENCY`, 8). */
    concurrency: number;
    /** Requests at once to one remote host (`ARCHIVE_CAPTURE_HOST_CONCURRENCY`, 2). */
    perHostConcurrency: number;
    /** Pause between two requests to one remote host, in ms (`ARCHIVE_CAPTURE_HOST_DELAY_MS`, 1000). */
    perHostDelayMs: number;
    /**
     * How long a running job stays this process's without a heartbeat (`ARCHIVE_JOB_LEASE_MS`,
     * 60 s): after a crash, its jobs go to another worker once it has passed.
     */
    leaseMs: number;
    /** Days a done job is kept before the schedule deletes it (`ARCHIVE_JOB_RETENTION_DAYS`, 7; `jobs/prune.ts`). */
    jobRetentionDays: number;
  };
}

/** The blockstore the archive opens (`storage/blockstores.ts`). */
export type BlockstoreSettings =
  | { kind: 'fs' }
  | {
      kind: 's3';
      /** `ARCHIVE_S3_BUCKET`, required. */
      bucket: string;
      /** Key prefix of every block (`ARCHIVE_S3_PREFIX`, `blocks/`). */
      prefix: string;
      /** `ARCHIVE_S3_ENDPOINT`, for R2, MinIO, Ceph and the like; AWS itself when unset. */
      endpoint: string | undefined;
      /** `ARCHIVE_S3_REGION` (`us-east-1`). */
      region: string;
      /** `ARCHIVE_S3_ACCESS_KEY_ID` and `ARCHIVE_S3_SECRET_ACCESS_KEY`; the SDK's default chain when unset. */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      /** `ARCHIVE_S3_FORCE_PATH_STYLE`: `endpoint/bucket/key` URLs; true by default when an endpoint is set. */
      forcePathStyle: boolean;
    };

/** The gateways of `ARCHIVE_TRUSTLESS_GATEWAYS`, each an http(s) base URL without credentials, query or trailing slash. */
function trustlessGateways(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      let url: URL;
      try {
        url = new URL(item);
      } catch {
        throw new Error(`ARCHIVE_TRUSTLESS_GATEWAYS: «${item}» no es una URL válida.`);
      }
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
        throw new Error(`ARCHIVE_TRUSTLESS_GATEWAYS admite URL http(s) sin credenciales ni consulta, no «${item}».`);
      }
      return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
    });
}

/** The blockstore settings from the environment; a bad combination stops the start with a clear message. */
function blockstoreSettings(env: NodeJS.ProcessEnv, settings: SettingsReader): BlockstoreSettings {
  const kind = (env.ARCHIVE_BLOCKSTORE || 'fs').trim().toLowerCase();
  if (kind === 'fs') return { kind: 'fs' };
  if (kind !== 's3') throw new Error(`ARCHIVE_BLOCKSTORE admite «fs» o «s3», no «${env.ARCHIVE_BLOCKSTORE}».`);
  const bucket = env.ARCHIVE_S3_BUCKET?.trim();
  if (!bucket) throw new Error('ARCHIVE_BLOCKSTORE=s3 necesita el nombre del bucket en ARCHIVE_S3_BUCKET.');
  const accessKeyId = env.ARCHIVE_S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.ARCHIVE_S3_SECRET_ACCESS_KEY?.trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error('ARCHIVE_S3_ACCESS_KEY_ID y ARCHIVE_S3_SECRET_ACCESS_KEY van juntas: indique las dos, o ninguna para usar las credenciales del entorno.');
  }
  const endpoint = env.ARCHIVE_S3_ENDPOINT?.trim() || undefined;
  if (endpoint) originOf(endpoint, 'ARCHIVE_S3_ENDPOINT');
  const prefix = env.ARCHIVE_S3_PREFIX ?? 'blocks/';
  return {
    kind: 's3',
    bucket,
    // A folder-like prefix: `blocks` and `blocks/` name the same place.
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    endpoint,
    region: env.ARCHIVE_S3_REGION?.trim() || 'us-east-1',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: settings.flag('ARCHIVE_S3_FORCE_PATH_STYLE', endpoint !== undefined),
  };
}

/** Where the embedded PGlite keeps its database, inside the data folder. */
export function embeddedDatabaseDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/** Every wrong setting of one reading of the environment, each told in Spanish. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`La configuración no es válida:\n${problems.map((problem) => `  · ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

// «si» without its accent, and «yes», as people type them.
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on', 'si', 'sí']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

const HOUR_MS = 3_600_000;

/**
 * A lease's bounds: renewed a few times within it, a lease shorter than half a second would be
 * lost to any pause of the process (the tests use 800 ms); one longer than a day would leave a
 * crashed server's work untaken for days.
 */
const LEASE_MS = { least: 500, most: 24 * HOUR_MS } as const;

/** The longest pause between two requests to one host (`ARCHIVE_CAPTURE_HOST_DELAY_MS`, `--host-delay`): an hour. */
export const MAX_HOST_DELAY_MS = HOUR_MS;

/**
 * Reads typed settings from the environment, noting each wrong one and going on with its default,
 * so that one start names every problem (`readConfig` then throws them together).
 */
class SettingsReader {
  readonly problems: string[] = [];
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv) {
    this.#env = env;
  }

  /** The variable's value, trimmed; undefined when unset or empty. */
  raw(name: string): string | undefined {
    return this.#env[name]?.trim() || undefined;
  }

  /** A whole number at least `least` (1 by default). */
  whole(name: string, fallback: number, least = 1): number {
    return this.#number(name, fallback, (n) => Number.isSafeInteger(n) && n >= least, least === 0 ? 'un número entero igual o mayor que cero' : 'un número entero mayor que cero');
  }

  /**
   * A duration in milliseconds between `least` and `most`. Timers are why there is a top: Node
   * runs a timer of more than 2³¹ − 1 ms after 1 ms instead, so a lease of a month would renew in
   * a busy loop and a host's pause would be no pause.
   */
  milliseconds(name: string, fallback: number, least: number, most: number): number {
    const words = (n: number) => formatCount(n);
    return this.#number(name, fallback, (n) => Number.isSafeInteger(n) && n >= least && n <= most, `un número entero de milisegundos entre ${words(least)} y ${words(most)}`);
  }

  /** A number of days and the like: fractions allowed (tests use minutes as fractions of a day). */
  decimal(name: string, fallback: number, { orZero = false } = {}): number {
    return this.#number(name, fallback, (n) => Number.isFinite(n) && (orZero ? n >= 0 : n > 0), orZero ? 'un número igual o mayor que cero' : 'un número mayor que cero');
  }

  flag(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (TRUE_WORDS.has(value)) return true;
    if (FALSE_WORDS.has(value)) return false;
    this.problems.push(`${name} admite true o false (también 1 o 0, sí o no, on u off), no «${this.raw(name)}».`);
    return fallback;
  }

  /** What `read` gives, or `fallback` with its error's message noted: for settings whose parser throws. */
  checked<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (error) {
      this.problems.push(error instanceof Error ? error.message : String(error));
      return fallback;
    }
  }

  #number(name: string, fallback: number, valid: (n: number) => boolean, expected: string): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (valid(parsed)) return parsed;
    this.problems.push(`${name} debe ser ${expected}, no «${value}».`);
    return fallback;
  }
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
}

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as the IPv4 address it is. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim().toLowerCase();
  return trimmed.startsWith('::ffff:') && trimmed.includes('.') ? trimmed.slice(7) : trimmed;
}

/** The origin of a configured URL (no path, no credentials), or undefined when unset; a bad one stops the start. */
function originOf(value: string | undefined, name: string): string | undefined {
  if (!value?.trim()) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`${name} no es una URL válida: «${value}».`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new Error(`${name} debe ser una URL http(s) sin credenciales, no «${value}».`);
  }
  // The archive is served from the root of its address: a path would be dropped from every link it
  // prints (canonical, sitemap, catalogue), which would then lead to another site's pages.
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`${name} debe ser solo el origen (esquema, nombre y puerto), sin ruta: el archivo se sirve desde la raíz de su dirección, no «${value}».`);
  }
  return url.origin;
}

/**
 * `DATABASE_URL`, when set: a PostgreSQL connection string in one of the forms node-postgres reads
 * (`postgres://` or `postgresql://`, `socket:/path?db=…`, or a socket folder and a database name),
 * checked by its start only: its parser is laxer than `new URL` (a user with a socket folder,
 * `postgresql://archivo@/archivo?host=/var/run/postgresql`, is no WHATWG URL), and is the judge.
 */
function postgresUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^(postgres(ql)?:\/\/|socket:|\/)/i.test(value)) {
    throw new Error('DATABASE_URL debe ser la URL de un servidor PostgreSQL (postgres://usuario:contraseña@servidor:5432/base); sin ella, el archivo usa su base embebida.');
  }
  return value;
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/** `host` (`HOST`) as a URL writes it: an IPv6 address in brackets, every interface (empty) as 0.0.0.0. */
export function urlHost(host: string): string {
  if (host === '') return '0.0.0.0';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Where this machine reaches a server listening on `host` (`HOST`): the host itself, or the
 * loopback address for one that listens on every interface, as a URL's host part (IPv6 bracketed).
 */
export function reachableHost(host: string): string {
  const bound = host.toLowerCase();
  if (WILDCARD_HOSTS.has(bound)) return bound.includes(':') ? '[::1]' : '127.0.0.1';
  return urlHost(bound);
}

/** A Host header's value: a name or an address, with its port if it has one (`[::1]:4321` for IPv6). */
const HOST_VALUE = /^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** `ARCHIVE_ALLOWED_HOSTS`, each as a request's Host carries it; a URL or a path in it would never match one. */
function allowedHostsOf(env: NodeJS.ProcessEnv): string[] {
  const hosts = list(env.ARCHIVE_ALLOWED_HOSTS);
  const wrong = hosts.filter((host) => !HOST_VALUE.test(host));
  if (wrong.length > 0) {
    throw new Error(`ARCHIVE_ALLOWED_HOSTS admite nombres de servidor con su puerto si lo lleva, separados por comas (archivo.gob.do, datos.example.org:8443), no «${wrong.join('», «')}».`);
  }
  return hosts.map((host) => host.toLowerCase());
}

/** The public origin and the Host values a request may carry (see `ArchiveConfig.allowedHosts`). */
function publicAddress(env: NodeJS.ProcessEnv, host: string, port: number): { publicUrl: string; allowedHosts: string[] } {
  const configured = originOf(env.ARCHIVE_PUBLIC_URL, 'ARCHIVE_PUBLIC_URL');
  const extra = allowedHostsOf(env);
  if (configured) return { publicUrl: configured, allowedHosts: [...new Set([new URL(configured).host, ...extra])] };
  const bound = host.toLowerCase();
  const name = WILDCARD_HOSTS.has(bound) ? 'localhost' : urlHost(bound);
  if (!URL.canParse(`http://${name}:${port}`)) throw new Error(`HOST debe ser un nombre o una dirección IP donde escuchar, no «${host}».`);
  const publicUrl = new URL(`http://${name}:${port}`).origin;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].map((host) => `${host}:${port}`);
  return { publicUrl, allowedHosts: [...new Set([new URL(publicUrl).host, ...loopback, ...extra])] };
}

/** The public and content addresses, which may not share a host: user content never shares the archive's origin. */
function hostsOf(env: NodeJS.ProcessEnv, host: string, port: number): { publicUrl: string; allowedHosts: string[]; contentOrigin: string | undefined } {
  const contentOrigin = originOf(env.ARCHIVE_CONTENT_ORIGIN, 'ARCHIVE_CONTENT_ORIGIN');
  const address = publicAddress(env, host, port);
  if (contentOrigin && address.allowedHosts.includes(new URL(contentOrigin).host)) {
    throw new Error('ARCHIVE_CONTENT_ORIGIN debe tener un nombre propio, fuera de ARCHIVE_PUBLIC_URL y ARCHIVE_ALLOWED_HOSTS.');
  }
  return { ...address, contentOrigin };
}

/** A wallet address as `ARCHIVE_MODERATORS` lists it: 0x and 40 hexadecimal digits. */
const WALLET_ADDRESS = /^0x[0-9a-f]{40}$/;

/**
 * Reads the configuration from `env` (the process environment by default).
 *
 * @throws {ConfigError} naming every setting that is set but wrong
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ArchiveConfig {
  const root = process.cwd();
  const settings = new SettingsReader(env);
  // An empty HOST has always meant every interface (as 0.0.0.0 does), unlike other empty settings.
  let host = env.HOST === undefined ? 'localhost' : env.HOST.trim();
  if (/[\s/@]/.test(host)) {
    settings.problems.push(`HOST debe ser un nombre o una dirección IP donde escuchar, no «${env.HOST}».`);
    host = 'localhost';
  }
  const port = settings.checked(() => {
    const value = settings.raw('PORT');
    if (value === undefined) return 4321;
    // Digits only: Number() would also read «0x1131» (4401) or «80.0».
    const parsed = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!(parsed >= 1 && parsed <= 65_535)) throw new Error(`PORT debe ser un puerto entre 1 y 65535, no «${value}».`);
    return parsed;
  }, 4321);
  const maxDocumentBytes = settings.whole('ARCHIVE_MAX_DOCUMENT_BYTES', 200_000_000);
  const recheckMinDays = settings.decimal('ARCHIVE_RECHECK_MIN_DAYS', 1);
  const pinningUrl = settings.raw('ARCHIVE_PINNING_SERVICE_URL');
  const formMailerKey = settings.raw('ARCHIVE_FORM_MAILER_KEY');
  const config: ArchiveConfig = {
    host,
    port,
    dataDir: path.resolve(root, env.ARCHIVE_DATA_DIR || 'data'),
    databaseUrl: settings.checked(() => postgresUrlOf(settings.raw('DATABASE_URL')), undefined),
    databasePoolMax: settings.whole('DATABASE_POOL_MAX', 10),
    fixturesDir: path.resolve(root, env.ARCHIVE_FIXTURES_DIR || '../shared/fixtures'),
    seedOnEmpty: settings.flag('ARCHIVE_SEED_ON_EMPTY', true),
    requireLogin: settings.flag('ARCHIVE_REQUIRE_LOGIN', false),
    moderators: list(env.ARCHIVE_MODERATORS).filter((address) => {
      if (WALLET_ADDRESS.test(address)) return true;
      settings.problems.push(`ARCHIVE_MODERATORS admite direcciones de cartera separadas por comas (0x y 40 cifras hexadecimales), no «${address}».`);
      return false;
    }),
    migrationsDir: path.resolve(root, env.ARCHIVE_MIGRATIONS_DIR || 'drizzle'),
    ...settings.checked(() => hostsOf(env, host, port), { publicUrl: `http://localhost:${port}`, allowedHosts: [], contentOrigin: undefined }),
    trustedProxies: settings.checked(
      () =>
        list(env.ARCHIVE_TRUSTED_PROXIES).map((address) => {
          const normalized = normalizeAddress(address);
          if (!isIP(normalized)) throw new Error(`ARCHIVE_TRUSTED_PROXIES admite direcciones IP, no «${address}».`);
          // One spelling per address (`::0:1` and `::1` are the same proxy), as sockets report them.
          return isIP(normalized) === 6 ? new URL(`http://[${normalized}]`).hostname.slice(1, -1) : normalized;
        }),
      [],
    ),
    chainIds: settings.checked(() => {
      const ids = list(settings.raw('ARCHIVE_CHAIN_IDS') ?? '1,11155111').map((id) => {
        const parsed = Number(id);
        if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new Error(`ARCHIVE_CHAIN_IDS admite números enteros de red (chain id) separados por comas, no «${id}».`);
        return parsed;
      });
      // No chain at all: nobody could sign in.
      if (ids.length === 0) throw new Error('ARCHIVE_CHAIN_IDS necesita al menos una red (chain id).');
      return ids;
    }, []),
    maxDocumentBytes,
    captureAllowPrivate: settings.flag('ARCHIVE_CAPTURE_ALLOW_PRIVATE', false),
    captureMaxBytes: settings.whole('ARCHIVE_CAPTURE_MAX_BYTES', maxDocumentBytes),
    watch: {
      minIntervalDays: recheckMinDays,
      maxIntervalDays: Math.max(settings.decimal('ARCHIVE_RECHECK_MAX_DAYS', 30), recheckMinDays),
      goneAfterDays: settings.decimal('ARCHIVE_GONE_AFTER_DAYS', 3, { orZero: true }),
    },
    fixity: { periodDays: settings.decimal('ARCHIVE_FIXITY_PERIOD_DAYS', 30) },
    blockstore: settings.checked(() => blockstoreSettings(env, settings), { kind: 'fs' }),
    trustlessGateways: settings.checked(() => trustlessGateways(env.ARCHIVE_TRUSTLESS_GATEWAYS), []),
    instanceLeaseMs: settings.milliseconds('ARCHIVE_INSTANCE_LEASE_MS', 60_000, LEASE_MS.least, LEASE_MS.most),
    worker: {
      enabled: settings.flag('ARCHIVE_WORKER', true),
      concurrency: settings.whole('ARCHIVE_WORKER_CONCURRENCY', 8),
      perHostConcurrency: settings.whole('ARCHIVE_CAPTURE_HOST_CONCURRENCY', 2),
      perHostDelayMs: settings.milliseconds('ARCHIVE_CAPTURE_HOST_DELAY_MS', 1000, 0, MAX_HOST_DELAY_MS),
      leaseMs: settings.milliseconds('ARCHIVE_JOB_LEASE_MS', 60_000, LEASE_MS.least, LEASE_MS.most),
      jobRetentionDays: settings.decimal('ARCHIVE_JOB_RETENTION_DAYS', 7),
    },
    maxProofBytes: settings.whole('ARCHIVE_MAX_PROOF_BYTES', 10_000_000),
    uploadsPerHour: {
      wallet: settings.whole('ARCHIVE_UPLOADS_PER_HOUR_WALLET', 30),
      ip: settings.whole('ARCHIVE_UPLOADS_PER_HOUR_IP', 60),
    },
    pinningService: pinningUrl
      ? settings.checked(() => {
          const endpoint = serviceUrl(pinningUrl, 'ARCHIVE_PINNING_SERVICE_URL');
          return { endpoint, token: env.ARCHIVE_PINNING_SERVICE_TOKEN ?? '', name: settings.raw('ARCHIVE_PINNING_SERVICE_NAME') ?? new URL(endpoint).host };
        }, undefined)
      : undefined,
    formMailer: formMailerKey
      ? settings.checked(
          () => ({ endpoint: serviceUrl(settings.raw('ARCHIVE_FORM_MAILER_URL') ?? 'https://api.web3forms.com/submit', 'ARCHIVE_FORM_MAILER_URL'), accessKey: formMailerKey }),
          undefined,
        )
      : undefined,
  };
  if (settings.problems.length > 0) throw new ConfigError(settings.problems);
  return config;
}

/** A remote service's address (its path kept, without a trailing slash); a bad one is a wrong setting. */
function serviceUrl(value: string, name: string): string {
  originOf(value, name);
  return value.replace(/\/+$/, '');
}

/**
 * `readConfig` for a script's entry: wrong settings end the process (code 1) with their list, not
 * a stack trace.
 */
export function readConfigOrExit(env: NodeJS.ProcessEnv = process.env): ArchiveConfig {
  try {
    return readConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
