/**
 * The archive's settings, read once from the environment. Every option the README documents is
 * here, with its default: an archive that runs with no configuration at all on embedded parts.
 */
import { isIP } from 'node:net';
import path from 'node:path';

export interface ArchiveConfig {
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
   * The background work this process does: the job queue's worker (harvest runs, captures) and the
   * harvest schedule. `ARCHIVE_WORKER=false` turns both off in this process (another server on the
   * same database then does the work); on by default.
   */
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
function blockstoreSettings(env: NodeJS.ProcessEnv): BlockstoreSettings {
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
    forcePathStyle: flag(env.ARCHIVE_S3_FORCE_PATH_STYLE, endpoint !== undefined),
  };
}

/** Where the embedded PGlite keeps its database, inside the data folder. */
export function embeddedDatabaseDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/** A positive whole number (of bytes, of uploads) from the environment, or `fallback` when unset or not one. */
function positive(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

function nonNegative(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : fallback;
}

/** A number of days and the like: fractions allowed (tests use minutes as fractions of a day). */
function positiveNumber(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

function nonNegativeNumber(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return ['1', 'true', 'yes', 'si', 'sí'].includes(value.trim().toLowerCase());
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
    throw new Error(`${name} no es una URL válida: ${value}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new Error(`${name} debe ser una URL http(s) sin credenciales: ${value}`);
  }
  return url.origin;
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/** The public origin and the Host values a request may carry (see `ArchiveConfig.allowedHosts`). */
function publicAddress(env: NodeJS.ProcessEnv): { publicUrl: string; allowedHosts: string[] } {
  const configured = originOf(env.ARCHIVE_PUBLIC_URL, 'ARCHIVE_PUBLIC_URL');
  const extra = list(env.ARCHIVE_ALLOWED_HOSTS);
  if (configured) return { publicUrl: configured, allowedHosts: [...new Set([new URL(configured).host, ...extra])] };
  const port = positive(env.PORT, 4321);
  const bound = (env.HOST ?? 'localhost').trim().toLowerCase();
  const name = WILDCARD_HOSTS.has(bound) ? 'localhost' : bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound;
  const publicUrl = new URL(`http://${name}:${port}`).origin;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].map((host) => `${host}:${port}`);
  return { publicUrl, allowedHosts: [...new Set([new URL(publicUrl).host, ...loopback, ...extra])] };
}

/** The public and content addresses, which may not share a host: user content never shares the archive's origin. */
function hostsOf(env: NodeJS.ProcessEnv): { publicUrl: string; allowedHosts: string[]; contentOrigin: string | undefined } {
  const contentOrigin = originOf(env.ARCHIVE_CONTENT_ORIGIN, 'ARCHIVE_CONTENT_ORIGIN');
  const address = publicAddress(env);
  if (contentOrigin && address.allowedHosts.includes(new URL(contentOrigin).host)) {
    throw new Error('ARCHIVE_CONTENT_ORIGIN debe tener un nombre propio, fuera de ARCHIVE_PUBLIC_URL y ARCHIVE_ALLOWED_HOSTS.');
  }
  return { ...address, contentOrigin };
}

/** Reads the configuration from `env` (the process environment by default). */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ArchiveConfig {
  const root = process.cwd();
  return {
    dataDir: path.resolve(root, env.ARCHIVE_DATA_DIR || 'data'),
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolMax: positive(env.DATABASE_POOL_MAX, 10),
    fixturesDir: path.resolve(root, env.ARCHIVE_FIXTURES_DIR || '../shared/fixtures'),
    seedOnEmpty: flag(env.ARCHIVE_SEED_ON_EMPTY, true),
    requireLogin: flag(env.ARCHIVE_REQUIRE_LOGIN, false),
    moderators: (env.ARCHIVE_MODERATORS ?? '')
      .split(',')
      .map((address) => address.trim().toLowerCase())
      .filter(Boolean),
    migrationsDir: path.resolve(root, env.ARCHIVE_MIGRATIONS_DIR || 'drizzle'),
    ...hostsOf(env),
    trustedProxies: list(env.ARCHIVE_TRUSTED_PROXIES).map((address) => {
      const normalized = normalizeAddress(address);
      if (!isIP(normalized)) throw new Error(`ARCHIVE_TRUSTED_PROXIES admite direcciones IP, no «${address}».`);
      // One spelling per address (`::0:1` and `::1` are the same proxy), as sockets report them.
      return isIP(normalized) === 6 ? new URL(`http://[${normalized}]`).hostname.slice(1, -1) : normalized;
    }),
    chainIds: (env.ARCHIVE_CHAIN_IDS || '1,11155111')
      .split(',')
      .map((id) => Number(id.trim()))
      .filter((id) => Number.isSafeInteger(id) && id > 0),
    maxDocumentBytes: positive(env.ARCHIVE_MAX_DOCUMENT_BYTES, 200_000_000),
    captureAllowPrivate: flag(env.ARCHIVE_CAPTURE_ALLOW_PRIVATE, false),
    captureMaxBytes: positive(env.ARCHIVE_CAPTURE_MAX_BYTES, positive(env.ARCHIVE_MAX_DOCUMENT_BYTES, 200_000_000)),
    watch: {
      minIntervalDays: positiveNumber(env.ARCHIVE_RECHECK_MIN_DAYS, 1),
      maxIntervalDays: Math.max(positiveNumber(env.ARCHIVE_RECHECK_MAX_DAYS, 30), positiveNumber(env.ARCHIVE_RECHECK_MIN_DAYS, 1)),
      goneAfterDays: nonNegativeNumber(env.ARCHIVE_GONE_AFTER_DAYS, 3),
    },
    fixity: { periodDays: positiveNumber(env.ARCHIVE_FIXITY_PERIOD_DAYS, 30) },
    blockstore: blockstoreSettings(env),
    trustlessGateways: trustlessGateways(env.ARCHIVE_TRUSTLESS_GATEWAYS),
    instanceLeaseMs: positive(env.ARCHIVE_INSTANCE_LEASE_MS, 60_000),
    worker: {
      enabled: flag(env.ARCHIVE_WORKER, true),
      concurrency: positive(env.ARCHIVE_WORKER_CONCURRENCY, 8),
      perHostConcurrency: positive(env.ARCHIVE_CAPTURE_HOST_CONCURRENCY, 2),
      perHostDelayMs: nonNegative(env.ARCHIVE_CAPTURE_HOST_DELAY_MS, 1000),
      leaseMs: positive(env.ARCHIVE_JOB_LEASE_MS, 60_000),
      jobRetentionDays: positiveNumber(env.ARCHIVE_JOB_RETENTION_DAYS, 7),
    },
    maxProofBytes: positive(env.ARCHIVE_MAX_PROOF_BYTES, 10_000_000),
    uploadsPerHour: {
      wallet: positive(env.ARCHIVE_UPLOADS_PER_HOUR_WALLET, 30),
      ip: positive(env.ARCHIVE_UPLOADS_PER_HOUR_IP, 60),
    },
    pinningService: env.ARCHIVE_PINNING_SERVICE_URL
      ? {
          endpoint: env.ARCHIVE_PINNING_SERVICE_URL.replace(/\/+$/, ''),
          token: env.ARCHIVE_PINNING_SERVICE_TOKEN ?? '',
          name: env.ARCHIVE_PINNING_SERVICE_NAME || new URL(env.ARCHIVE_PINNING_SERVICE_URL).host,
        }
      : undefined,
    formMailer: env.ARCHIVE_FORM_MAILER_KEY
      ? { endpoint: env.ARCHIVE_FORM_MAILER_URL || 'https://api.web3forms.com/submit', accessKey: env.ARCHIVE_FORM_MAILER_KEY }
      : undefined,
  };
}
