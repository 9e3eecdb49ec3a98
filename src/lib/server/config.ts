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
  };
}
