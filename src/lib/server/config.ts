/**
 * The archive's settings, read once from the environment. Every option the README documents is
 * here, with its default: an archive that runs with no configuration at all on embedded parts.
 */
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
  /** The archive's public address for canonical links and the sitemap; the request's own origin when unset. */
  publicUrl: string | undefined;
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

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return ['1', 'true', 'yes', 'si', 'sí'].includes(value.trim().toLowerCase());
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
    publicUrl: env.ARCHIVE_PUBLIC_URL?.replace(/\/+$/, '') || undefined,
    chainIds: (env.ARCHIVE_CHAIN_IDS || '1,11155111')
      .split(',')
      .map((id) => Number(id.trim()))
      .filter((id) => Number.isSafeInteger(id) && id > 0),
    maxDocumentBytes: positive(env.ARCHIVE_MAX_DOCUMENT_BYTES, 200_000_000),
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
