/**
 * The archive's one schema, for PGlite and PostgreSQL alike (drizzle `pg-core`).
 *
 * Table and column names follow the spec's contract names (SPEC §3): records are `alexandrias`,
 * proof entries `aletheias`, and a department's description is spelled `desciption` as the
 * original API spelled it. The README's glossary maps them to open-data terms.
 *
 * Search columns are generated `tsvector`s in the `archivo_es` text-search configuration (Spanish
 * stemming, created by the first migration) of text `archivo_search_text` folded (migration 0032),
 * so "educacion" finds "Educación" and "exportación" finds "Exportaciones".
 * Trigram indexes on names back typo-tolerant search.
 */
import { sql, type SQL } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  interval,
  timestamp,
  unique,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import {
  ASSET_STATUS_VALUES,
  ASSET_TYPE_VALUES,
  IMPORT_STATUS_VALUES,
  IMPORT_TYPES,
  PIN_STATUSES,
  SOURCE_REVIEW_STATUS_VALUES,
  SOURCE_STATUSES,
} from '../../domain/constants.ts';
import { JOB_STATUSES } from '../jobs/statuses.ts';
import { CATALOG_KINDS, type CatalogKind } from '../harvest/catalogs/types.ts';

export const assetStatus = pgEnum('asset_status', ASSET_STATUS_VALUES);
export const assetType = pgEnum('asset_type', ASSET_TYPE_VALUES);
export const importStatus = pgEnum('import_status', IMPORT_STATUS_VALUES);
export const importType = pgEnum('import_type', IMPORT_TYPES);
export const pinStatus = pgEnum('pin_status', PIN_STATUSES);
export const sourceStatus = pgEnum('source_status', SOURCE_STATUSES);
export const sourceReviewStatus = pgEnum('source_review_status', SOURCE_REVIEW_STATUS_VALUES);
export const jobStatus = pgEnum('job_status', JOB_STATUSES);
export const harvestKind = pgEnum('harvest_kind', Object.keys(CATALOG_KINDS) as [CatalogKind, ...CatalogKind[]]);

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * A weighted document from several text columns: A for names, B for descriptions; Spanish
 * (stemmed, `archivo_es`) unless `simple` (the words as written, for `search_typed`). The text
 * goes through `archivo_search_text` first, as the queries do: accents folded, but a folded
 * «-cion» given its accent back so that the stemmer files «exportación» with «exportaciones»
 * (0032); numbers joined by a hyphen or a slash («2018-2020», «COVID-19») split (0029), or the
 * parser would keep «-2020» as one negative number.
 */
function searchDocument(weighted: Array<[AnyPgColumn, 'A' | 'B' | 'C']>, config: 'archivo_es' | 'simple' = 'archivo_es'): SQL {
  const parts = weighted.map(
    ([column, weight]) =>
      sql`setweight(to_tsvector(${sql.raw(`'${config}'`)}::regconfig, archivo_search_text(coalesce(${column}, ''))), ${sql.raw(`'${weight}'`)})`,
  );
  return sql.join(parts, sql` || `);
}

/** GIN trigram index on the accent-folded, lower-cased text: typo-tolerant lookups by name. */
function trigramIndex(name: string, column: AnyPgColumn) {
  return index(name).using('gin', sql`archivo_unaccent(lower(${column})) gin_trgm_ops`);
}

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true })
    .defaultNow()
    .notNull()
    .$onUpdate(() => new Date()),
};

/** Where a record was found: a portal, or an institution that publishes directly. */
export const sources = pgTable(
  'sources',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    description: text('description'),
    url: text('url').notNull(),
    status: sourceStatus('status').notNull().default('active'),
    /** Whether a moderator accepted the source; contributors' new sources start under review. */
    reviewStatus: sourceReviewStatus('review_status').notNull().default('on_line'),
    /**
     * Made by the archive for a catalogue a moderator registered, which has not brought a record
     * yet: unlisted until it does (`queries/visibility.ts`), so that a wrong address adds no empty
     * public source.
     */
    awaitingHarvest: boolean('awaiting_harvest').notNull().default(false),
    ...timestamps,
    search: tsvector('search').generatedAlwaysAs(
      (): SQL => searchDocument([[sources.name, 'A'], [sources.description, 'B'], [sources.url, 'C']]),
    ),
  },
  (t) => [
    // Sources are de-duplicated by URL (DECISIONS: Contribution).
    uniqueIndex('sources_url_key').on(t.url),
    index('sources_updated_at_idx').on(t.updatedAt),
    index('sources_search_idx').using('gin', t.search),
    trigramIndex('sources_name_trgm_idx', t.name),
  ],
);

/** The ministry or institution that issued a document (a DCAT publisher). */
export const departments = pgTable(
  'departments',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    acronym: text('acronym'),
    desciption: text('desciption'),
    website: text('website'),
    legalCategory: text('legal_category'),
    branch: text('branch'),
    sector: text('sector'),
    /** Whether a moderator accepted the institution; contributors' new institutions start under review. */
    reviewStatus: sourceReviewStatus('review_status').notNull().default('on_line'),
    ...timestamps,
    search: tsvector('search').generatedAlwaysAs(
      (): SQL =>
        searchDocument([
          [departments.name, 'A'],
          [departments.acronym, 'A'],
          [departments.desciption, 'B'],
          [departments.sector, 'C'],
        ]),
    ),
  },
  (t) => [
    uniqueIndex('departments_name_key').on(t.name),
    index('departments_website_idx').on(t.website),
    index('departments_updated_at_idx').on(t.updatedAt),
    index('departments_search_idx').using('gin', t.search),
    trigramIndex('departments_name_trgm_idx', t.name),
  ],
);

/** A theme (DCAT theme): the portal's groups. */
export const categories = pgTable(
  'categories',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    title: text('title').notNull(),
    description: text('description'),
    iconName: text('icon_name'),
    iconUrl: text('icon_url'),
    enabled: boolean('enabled').notNull().default(true),
    ...timestamps,
    search: tsvector('search').generatedAlwaysAs(
      (): SQL => searchDocument([[categories.title, 'A'], [categories.description, 'B']]),
    ),
  },
  (t) => [
    uniqueIndex('categories_title_key').on(t.title),
    index('categories_updated_at_idx').on(t.updatedAt),
    index('categories_search_idx').using('gin', t.search),
    trigramIndex('categories_title_trgm_idx', t.title),
  ],
);

/**
 * One failure an import keeps: what it concerns (a dataset, a file's URL, `catálogo` for the whole
 * run) and why; a failed capture also names its record, since two datasets may link one file.
 */
export interface ImportError {
  key: string;
  message: string;
  record?: number;
}

/** One harvest, upload or batch that brought records into the archive. */
export const imports = pgTable(
  'imports',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    type: importType('type').notNull(),
    sourceId: integer('source_id').references(() => sources.id, { onDelete: 'set null' }),
    /** Documents this import brought (the spec's `documents` count). */
    documents: integer('documents').notNull().default(0),
    documentsFailed: integer('documents_failed').notNull().default(0),
    /** What went wrong, one entry per failed document: `{ key, message }`. */
    errors: jsonb('errors').$type<ImportError[]>().notNull().default([]),
    walletAddress: text('wallet_address'),
    status: importStatus('status').notNull().default('in_progress'),
    /** Natural key that makes re-running the same harvest a no-op. */
    originKey: text('origin_key'),
    /** For an upload under way: `host:pid` of the process receiving it, to tell orphans after a crash. */
    owner: text('owner'),
    /** For a harvest run: the catalogue it read (`harvest_sources`). */
    harvestSourceId: integer('harvest_source_id').references((): AnyPgColumn => harvestSources.id, { onDelete: 'set null' }),
    /** For a harvest run: what it did to the records (`lib/server/harvest/run.ts`). */
    harvestCounts: jsonb('harvest_counts').$type<HarvestCounts>(),
    /** For a harvest run: the queue's job that runs it, so a retry of that job knows its dead attempt. */
    jobId: integer('job_id').references((): AnyPgColumn => jobs.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('imports_origin_key_key').on(t.originKey),
    index('imports_updated_at_idx').on(t.updatedAt),
    index('imports_harvest_source_idx').on(t.harvestSourceId, t.id),
    // Pruning done jobs sets their imports' job_id to null (`jobs/prune.ts`).
    index('imports_job_id_idx').on(t.jobId).where(sql`${t.jobId} is not null`),
  ],
);

/** A record: one archived public document (a DCAT dataset with its distribution). */
export const alexandrias = pgTable(
  'alexandrias',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** CIDv1 of the archived file; null while only the metadata is known. */
    cid: text('cid'),
    title: text('title').notNull(),
    description: text('description'),
    type: assetType('type').notNull(),
    /** Every format the origin offers, normalised (a harvested dataset often has CSV, XLSX and ODS). */
    formats: assetType('formats').array().notNull().default(sql`'{}'::asset_type[]`),
    status: assetStatus('status').notNull().default('under_review'),
    /** The page where the document is published. */
    sourceUrl: text('source_url'),
    /** The direct link to the file itself. */
    originalUrl: text('original_url'),
    apiEndpoint: text('api_endpoint'),
    apiEnabled: boolean('api_enabled').notNull().default(false),
    fileName: text('file_name'),
    fileExtension: text('file_extension'),
    fileSize: bigint('file_size', { mode: 'number' }),
    mimeType: text('mime_type'),
    /** SHA-256 of the file (hex): the checksum catalogues (DCAT) publish beside the CID. */
    fileSha256: text('file_sha256'),
    categoryId: integer('category_id').references(() => categories.id, { onDelete: 'set null' }),
    departmentId: integer('department_id').references(() => departments.id, { onDelete: 'set null' }),
    sourceId: integer('source_id').references(() => sources.id, { onDelete: 'set null' }),
    importId: integer('import_id').references(() => imports.id, { onDelete: 'set null' }),
    /** Contributor's wallet, lower-cased (SPEC §6); null for harvested records. */
    walletAddress: text('wallet_address'),
    /** How the archive obtained this copy, in plain Spanish, when there is no signed proof. */
    provenanceNote: text('provenance_note'),
    /** The confirmation message the contributor's wallet signed, as the server rebuilt and verified it. */
    signedMessage: text('signed_message'),
    /** The contributor's signature of `signedMessage` (EIP-191 personal_sign, hex). */
    signature: text('signature'),
    /** Natural key from the origin (e.g. the portal's dataset slug) that keeps harvests idempotent. */
    originKey: text('origin_key'),
    /** The original's own dates, as its catalogue declares them (not when the archive got it). */
    issued: timestamp('issued', { withTimezone: true }),
    modified: timestamp('modified', { withTimezone: true }),
    /** The licence the catalogue declares: its name and, when given, its URL. */
    licenseTitle: text('license_title'),
    licenseUrl: text('license_url'),
    /** The catalogue's keywords (tags), as published. */
    keywords: text('keywords').array().notNull().default(sql`'{}'::text[]`),
    /** How often the catalogue says the original is updated, as declared ("Mensual", a DCAT frequency IRI, `R/P1M`). */
    updateFrequency: text('update_frequency'),
    /** The publisher's contact point for the original: a name and an e-mail (kept only when it is an address). */
    contactName: text('contact_name'),
    contactEmail: text('contact_email'),
    /** The period the data covers: calendar dates (`YYYY-MM-DD`, no zone), and/or the catalogue's words when not dates. */
    temporalStart: date('temporal_start', { mode: 'string' }),
    temporalEnd: date('temporal_end', { mode: 'string' }),
    temporalText: text('temporal_text'),
    /** The languages of the data, as its catalogue declares them: the EU language table's IRIs. */
    languages: text('languages').array().notNull().default(sql`'{}'::text[]`),
    /** The areas the data covers, as its catalogue declares them: IRIs or places' names. */
    spatial: text('spatial').array().notNull().default(sql`'{}'::text[]`),
    ...timestamps,
    search: tsvector('search').generatedAlwaysAs(
      (): SQL =>
        searchDocument([
          [alexandrias.title, 'A'],
          [alexandrias.description, 'B'],
          [alexandrias.fileName, 'C'],
        ]),
    ),
    /**
     * The title (A) and description (B) word for word, unstemmed: what search asks of each hit to
     * put those that say what was typed first (`holdsWordsAsTyped`, migration 0046).
     */
    searchTyped: tsvector('search_typed').generatedAlwaysAs(
      (): SQL => searchDocument([[alexandrias.title, 'A'], [alexandrias.description, 'B']], 'simple'),
    ),
  },
  (t) => [
    uniqueIndex('alexandrias_origin_key_key').on(t.originKey),
    index('alexandrias_cid_idx').on(t.cid),
    index('alexandrias_updated_at_idx').on(t.updatedAt),
    index('alexandrias_status_idx').on(t.status),
    index('alexandrias_type_idx').on(t.type),
    // A wallet's uploads are listed newest first (search modal, profile, REST, contributions page).
    index('alexandrias_wallet_idx').on(t.walletAddress, t.createdAt, t.id),
    // A collection lists its records newest first, ties by id: the whole order in the index.
    index('alexandrias_category_idx').on(t.categoryId, t.updatedAt, t.id),
    index('alexandrias_department_idx').on(t.departmentId, t.updatedAt, t.id),
    index('alexandrias_source_idx').on(t.sourceId, t.updatedAt, t.id),
    index('alexandrias_import_idx').on(t.importId),
    // The dashboard links each latest import to its newest archived record: one index probe each.
    index('alexandrias_import_sample_idx')
      .on(t.importId, t.updatedAt, t.id)
      .where(sql`${t.cid} is not null`),
    index('alexandrias_search_idx').using('gin', t.search),
    trigramIndex('alexandrias_title_trgm_idx', t.title),
  ],
);

/** A proof entry: a screenshot (or other evidence) of where a record came from. */
export const aletheias = pgTable(
  'aletheias',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    alexandriaId: integer('alexandria_id')
      .notNull()
      .references(() => alexandrias.id, { onDelete: 'cascade' }),
    cid: text('cid').notNull(),
    fileName: text('file_name'),
    mimeType: text('mime_type'),
    fileSize: bigint('file_size', { mode: 'number' }),
    walletAddress: text('wallet_address'),
    ...timestamps,
  },
  // The gateway looks files up by CID: a proof's type and name, and whether it was withdrawn.
  (t) => [index('aletheias_alexandria_idx').on(t.alexandriaId), index('aletheias_cid_idx').on(t.cid)],
);

/** A pin of a CID with a pinning provider (`local` is the archive's own blockstore). */
export const pins = pgTable(
  'pins',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    cid: text('cid').notNull(),
    provider: text('provider').notNull().default('local'),
    status: pinStatus('status').notNull().default('queued'),
    /** The provider's own id for the pin request, where it has one. */
    requestId: text('request_id'),
    ...timestamps,
  },
  (t) => [uniqueIndex('pins_cid_provider_key').on(t.cid, t.provider)],
);

/** A storage deal for a CID on a decentralised storage network (SPEC §3 Deal). */
export const deals = pgTable(
  'deals',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    cid: text('cid').notNull(),
    dealId: text('deal_id').notNull(),
    storageProvider: text('storage_provider').notNull(),
    status: text('status'),
    ...timestamps,
  },
  (t) => [index('deals_cid_idx').on(t.cid), uniqueIndex('deals_deal_id_key').on(t.dealId, t.storageProvider)],
);

/** Every status change of a record, with its public reason: the moderation trail. */
export const statusHistory = pgTable(
  'status_history',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    alexandriaId: integer('alexandria_id')
      .notNull()
      .references(() => alexandrias.id, { onDelete: 'cascade' }),
    fromStatus: assetStatus('from_status'),
    toStatus: assetStatus('to_status').notNull(),
    reason: text('reason'),
    /** Wallet of the moderator, or null when the archive itself set the status (seed, upload). */
    actor: text('actor'),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [index('status_history_alexandria_idx').on(t.alexandriaId, t.createdAt)],
);

/** Every review decision on a source: who moved it from what to what, when and why. */
export const sourceReviews = pgTable(
  'source_reviews',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id, { onDelete: 'cascade' }),
    fromStatus: sourceReviewStatus('from_status'),
    toStatus: sourceReviewStatus('to_status').notNull(),
    reason: text('reason'),
    actor: text('actor'),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [index('source_reviews_source_idx').on(t.sourceId, t.createdAt)],
);

/** Every review decision on an institution (department), kept like a source's. */
export const departmentReviews = pgTable(
  'department_reviews',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    departmentId: integer('department_id')
      .notNull()
      .references(() => departments.id, { onDelete: 'cascade' }),
    fromStatus: sourceReviewStatus('from_status'),
    toStatus: sourceReviewStatus('to_status').notNull(),
    reason: text('reason'),
    actor: text('actor'),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [index('department_reviews_department_idx').on(t.departmentId, t.createdAt)],
);

/**
 * Running counts of records per source, department, category, format, status and whether the
 * file is archived, kept exact by a trigger on `alexandrias` (migration 0003). The dashboard and
 * collection pages read their counts here: a few thousand rows at most, however large the
 * archive grows, instead of a scan of every record on every request.
 */
export const recordCounts = pgTable(
  'record_counts',
  {
    sourceId: integer('source_id'),
    departmentId: integer('department_id'),
    categoryId: integer('category_id'),
    type: assetType('type').notNull(),
    status: assetStatus('status').notNull(),
    archived: boolean('archived').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [
    // NULLS NOT DISTINCT: records without a category (and so on) add up in one row, not many.
    unique('record_counts_key').on(t.sourceId, t.departmentId, t.categoryId, t.type, t.status, t.archived).nullsNotDistinct(),
    index('record_counts_department_idx').on(t.departmentId),
    index('record_counts_category_idx').on(t.categoryId),
  ],
);

/**
 * Running count of records per import and format, kept exact by a trigger on `alexandrias`
 * (migration 0017) for the dashboard's import timeline: a harvest of tens of thousands of records
 * is counted once, as it is written, not on every visit. No foreign key: deleting an import sets
 * its records' import to null, which the trigger counts down to nothing.
 */
export const importFormatCounts = pgTable(
  'import_format_counts',
  {
    importId: integer('import_id').notNull(),
    type: assetType('type').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.type] })],
);

/** Running count of records per contributing wallet, kept by the same trigger (migration 0007). */
export const walletCounts = pgTable('wallet_counts', {
  walletAddress: text('wallet_address').primaryKey(),
  n: integer('n').notNull(),
});

/** A wallet identity that has signed in: account (lower-cased address) and provider. */
export const users = pgTable(
  'users',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    account: text('account').notNull(),
    provider: text('provider').notNull(),
    firstname: text('firstname'),
    lastname: text('lastname'),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_account_provider_key').on(t.account, t.provider)],
);

/**
 * A signed-in session. Only the SHA-256 of its random token is kept, so a copy of the database
 * cannot be used to sign in. Sessions live here, not in memory: they survive restarts and are
 * shared by every server process.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    tokenHash: text('token_hash').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('sessions_token_hash_key').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

/** Single-use Sign-In with Ethereum nonces (EIP-4361), each with its expiry. */
export const authNonces = pgTable(
  'auth_nonces',
  {
    nonce: text('nonce').primaryKey(),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /** What the nonce may be spent on: a sign-in, or one upload's confirmation signature. */
    purpose: text('purpose').$type<'login' | 'upload'>().notNull().default('login'),
    /** For an upload nonce, the signed-in account it was issued to (lower-cased). */
    account: text('account'),
  },
  (t) => [index('auth_nonces_expires_idx').on(t.expiresAt)],
);

/**
 * Every word of the catalogue's titles and names, accent-folded and lower-cased, kept by triggers
 * (migration 0012): a small vocabulary where a misspelt search word finds its closest real word
 * by trigram similarity, fast whatever the number of records.
 */
export const searchWords = pgTable(
  'search_words',
  {
    word: text('word').primaryKey(),
  },
  (t) => [index('search_words_trgm_idx').using('gin', sql`${t.word} gin_trgm_ops`)],
);

/** Messages sent with the contact form 'Escríbenos' (issue #9): the moderators' inbox. */
export const contactMessages = pgTable(
  'contact_messages',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    subject: text('subject').notNull(),
    message: text('message').notNull(),
    /** The sender's wallet when signed in; messages are anonymous otherwise. */
    walletAddress: text('wallet_address'),
    /** Whether the configured form-mailer accepted it (null: none configured). */
    forwarded: boolean('forwarded'),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [index('contact_messages_created_idx').on(t.createdAt)],
);

/** Fixed-window request counters (per IP, per address), shared by every server process. */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    hits: integer('hits').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

export type Alexandria = typeof alexandrias.$inferSelect;
export type NewAlexandria = typeof alexandrias.$inferInsert;
export type Source = typeof sources.$inferSelect;
export type Department = typeof departments.$inferSelect;
export type Category = typeof categories.$inferSelect;
export type Import = typeof imports.$inferSelect;

/**
 * Each sheet of an archived XLSX or ODS file, extracted as a UTF-8 CSV (issue #7 'Spreadsheets
 * too') and kept in the content store under `cid`, so the record page offers the same search
 * panel as for a CSV. `sheetIndex` is the sheet's position in the workbook (empty sheets get no
 * row); `truncated` says the preview stopped at a limit of rows, columns or size.
 */
export const sheetPreviews = pgTable(
  'sheet_previews',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    alexandriaId: integer('alexandria_id')
      .notNull()
      .references(() => alexandrias.id, { onDelete: 'cascade' }),
    sheetIndex: integer('sheet_index').notNull(),
    name: text('name').notNull(),
    cid: text('cid').notNull(),
    rowCount: integer('row_count').notNull(),
    columnCount: integer('column_count').notNull(),
    truncated: boolean('truncated').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [uniqueIndex('sheet_previews_record_sheet_key').on(t.alexandriaId, t.sheetIndex), index('sheet_previews_cid_idx').on(t.cid)],
);

export type SheetPreview = typeof sheetPreviews.$inferSelect;

/**
 * Each host the job queue has sent work to, and when it may next be asked (per-host politeness,
 * `lib/server/jobs/claim.ts`). A host's row is made when its first job is queued, so a claim can
 * walk the hosts rather than every queued job.
 */
export const jobHosts = pgTable('job_hosts', {
  host: text('host').primaryKey(),
  nextAllowedAt: timestamp('next_allowed_at', { withTimezone: true }).defaultNow().notNull(),
});

/**
 * The durable background queue (`lib/server/jobs`): every background task is a row here, so it
 * survives a restart and is shared by every server process. Times are the database's own
 * (`now()`): `updated_at` has no process-side default, on purpose, as servers' clocks may differ.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** Which handler runs it (`runWorker`'s `handlers`). */
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull().default({}),
    status: jobStatus('status').notNull().default('queued'),
    /**
     * Runs started so far, counted when a worker claims the job; given back when the job is taken
     * back from a dead worker before it started (`reclaimExpired`).
     */
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    /**
     * Attempts made before the job was queued again with all its attempts (`retryFailed`): how
     * often it was tried in all is `attempts` plus these.
     */
    previousAttempts: integer('previous_attempts').notNull().default(0),
    /** Not claimed before this time: a delayed job, or a retry's backoff. */
    runAfter: timestamp('run_after', { withTimezone: true }).defaultNow().notNull(),
    /** The worker that holds a running job, and until when its lease lasts without a heartbeat. */
    lockedBy: text('locked_by'),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    /** The remote host the job will ask, for per-host politeness; null for local work. */
    host: text('host').references(() => jobHosts.host),
    /** Makes enqueueing idempotent: a second job with the same key is not created. */
    dedupeKey: text('dedupe_key'),
    /** Why the last attempt failed; for a failed job, why it gave up. */
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).defaultNow().notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /**
     * Whether the current attempt's handler began its work, as its worker reports in batches
     * (`markBegun`); false while the job waits in its worker for its host's turn. A job taken back
     * from a dead worker before it began gets its attempt back (`reclaimExpired`).
     */
    workBegan: boolean('work_began').notNull().default(false),
    /** Times the job was taken back from a dead worker: only grows, and is part of a lease's identity (`jobs/lease.ts`). */
    reclaims: integer('reclaims').notNull().default(0),
  },
  (t) => [
    uniqueIndex('jobs_dedupe_key').on(t.dedupeKey),
    // What a claim reads: per host, the oldest due jobs (host is null for local work).
    index('jobs_queued_idx').on(t.host, t.runAfter, t.id).where(sql`${t.status} = 'queued'`),
    // Few rows (at most the running jobs): live leases for the limits, expired ones to reclaim.
    index('jobs_running_idx').on(t.lockedUntil).where(sql`${t.status} = 'running'`),
    index('jobs_kind_status_idx').on(t.kind, t.status),
    // The prune's oldest done jobs first (`jobs/prune.ts`), without reading the kept ones.
    index('jobs_done_finished_idx').on(t.finishedAt).where(sql`${t.status} = 'done'`),
    check('jobs_running_has_lease', sql`${t.status} <> 'running' or (${t.lockedBy} is not null and ${t.lockedUntil} is not null)`),
    check('jobs_max_attempts_positive', sql`${t.maxAttempts} >= 1`),
  ],
);

export type Job = typeof jobs.$inferSelect;

/** What one harvest run did to its catalogue's records (kept on its import). */
export interface HarvestCounts {
  new: number;
  updated: number;
  unchanged: number;
  withdrawn: number;
  /** Distributions that could not become records, and captures that failed. */
  failed: number;
}

/**
 * A public catalogue the archive harvests (issue #18): its URL and kind, the `source` its records
 * are filed under, and how its themes map to our categories (editable by moderators).
 */
export const harvestSources = pgTable(
  'harvest_sources',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    url: text('url').notNull(),
    kind: harvestKind('kind').notNull(),
    name: text('name').notNull(),
    /** The `source` every record of this catalogue is filed under. */
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id, { onDelete: 'restrict' }),
    /** Where a dataset goes when none of its themes is in `themeMap`. */
    defaultCategoryId: integer('default_category_id').references(() => categories.id, { onDelete: 'set null' }),
    /** The catalogue's theme (its identifier or its label) → our category id. */
    themeMap: jsonb('theme_map').$type<Record<string, number>>().notNull().default({}),
    paused: boolean('paused').notNull().default(false),
    /**
     * The day a copy of the catalogue kept with the archive was taken (the seed's export), null for
     * a live catalogue. A snapshot has no address to ask again: it is never run nor resumed.
     */
    snapshotOn: date('snapshot_on', { mode: 'string' }),
    /** How often the catalogue is harvested again. */
    interval: interval('interval').notNull().default('1 day'),
    /**
     * The language of the data and the country covered of the datasets that declare none, as a
     * moderator says them for the catalogue (the EU tables' IRIs), or null.
     */
    defaultLanguage: text('default_language'),
    defaultCountry: text('default_country'),
    /**
     * The run (an `imports` id; no foreign key, see migration 0044) that found too much of the
     * catalogue gone at once to withdraw it on one reading (`harvest/withdrawals.ts`): a complete
     * run long enough after it withdraws what neither of them listed.
     */
    withdrawalsHeldBy: integer('withdrawals_held_by'),
    ...timestamps,
  },
  (t) => [uniqueIndex('harvest_sources_url_key').on(t.url)],
);

export type HarvestSource = typeof harvestSources.$inferSelect;

/**
 * The identity of a harvested record: (harvest source, the catalogue's dataset identifier, the
 * distribution's key), so a second harvest finds the same record again. What the catalogue
 * declared about the file is kept here for the capture to compare with the bytes.
 */
export const harvestedRecords = pgTable(
  'harvested_records',
  {
    alexandriaId: integer('alexandria_id')
      .primaryKey()
      .references(() => alexandrias.id, { onDelete: 'cascade' }),
    harvestSourceId: integer('harvest_source_id')
      .notNull()
      .references(() => harvestSources.id, { onDelete: 'cascade' }),
    datasetIdentifier: text('dataset_identifier').notNull(),
    /** The distribution's own identifier, else its URL, else its position in the dataset. */
    distributionKey: text('distribution_key').notNull(),
    /** The URL to capture; null when the catalogue gave none usable. */
    distributionUrl: text('distribution_url'),
    declaredFormat: text('declared_format'),
    declaredSize: bigint('declared_size', { mode: 'number' }),
    /** `algorithm:value` as declared (`sha256:…`). */
    declaredChecksum: text('declared_checksum'),
    /**
     * The institution and category the harvest last gave the record (its publisher, its themes
     * through the source's mapping): a record still holding them follows a change; one a moderator
     * moved by hand keeps theirs.
     */
    mappedDepartmentId: integer('mapped_department_id').references(() => departments.id, { onDelete: 'set null' }),
    mappedCategoryId: integer('mapped_category_id').references(() => categories.id, { onDelete: 'set null' }),
    /** The run (import) that last saw it in the catalogue. */
    lastSeenImportId: integer('last_seen_import_id').references(() => imports.id, { onDelete: 'set null' }),
    /** When it left the catalogue ("retirado del catálogo"); null while the catalogue lists it. Never deleted. */
    withdrawnAt: timestamp('withdrawn_at', { withTimezone: true }),
    /**
     * The watch over the captured URL (issue #19, `harvest/recheck.ts`): when it is checked next, and
     * the interval that grows while the file stays the same (daily up to 30 days).
     */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }),
    checkInterval: interval('check_interval').notNull().default('1 day'),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    /** Since when every check has failed with 404/410 or no answer at all; null after a success. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    /** "Desaparecido en origen desde": set once the failures have lasted the threshold; null after a success. */
    goneSince: timestamp('gone_since', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('harvested_records_identity_key').on(t.harvestSourceId, t.datasetIdentifier, t.distributionKey),
    index('harvested_records_dataset_idx').on(t.harvestSourceId, t.datasetIdentifier),
    index('harvested_records_next_check_idx').on(t.nextCheckAt).where(sql`${t.nextCheckAt} is not null`),
    index('harvested_records_gone_idx').on(t.goneSince).where(sql`${t.goneSince} is not null`),
    index('harvested_records_withdrawn_idx').on(t.withdrawnAt).where(sql`${t.withdrawnAt} is not null`),
  ],
);

export type HarvestedRecord = typeof harvestedRecords.$inferSelect;

/**
 * Each time the archive fetched a harvested file itself: what the server answered, what the bytes
 * are (CID, SHA-256, size), and how they compare with what the catalogue declared. A failed
 * capture keeps its reason.
 */
export const captures = pgTable(
  'captures',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    alexandriaId: integer('alexandria_id')
      .notNull()
      .references(() => alexandrias.id, { onDelete: 'cascade' }),
    requestedUrl: text('requested_url').notNull(),
    finalUrl: text('final_url'),
    /** The HTTP status of the final response; null when none came (refused, unreachable). */
    status: integer('status'),
    contentType: text('content_type'),
    contentLength: bigint('content_length', { mode: 'number' }),
    etag: text('etag'),
    lastModified: text('last_modified'),
    cid: text('cid'),
    sha256: text('sha256'),
    size: bigint('size', { mode: 'number' }),
    durationMs: integer('duration_ms'),
    capturedAt: timestamp('captured_at', { withTimezone: true }).defaultNow().notNull(),
    declaredSize: bigint('declared_size', { mode: 'number' }),
    declaredChecksum: text('declared_checksum'),
    /** How the bytes differ from what the catalogue declared, in Spanish; null when they agree. */
    mismatch: text('mismatch'),
    /** Why the capture failed, in Spanish; null when it succeeded. */
    errorReason: text('error_reason'),
    /** A first capture, or a later check of the same URL (a 304, the same bytes, a new version, a failure). */
    purpose: text('purpose', { enum: ['capture', 'recheck'] }).notNull().default('capture'),
  },
  (t) => [index('captures_alexandria_idx').on(t.alexandriaId, t.capturedAt), index('captures_cid_idx').on(t.cid)],
);

export type Capture = typeof captures.$inferSelect;

/** What changed from a record's previous version, computed in the background (`versions/diff.ts`). */
export interface VersionDiff {
  /** `table` for CSV and spreadsheets (compared as their first sheet), `file` for the rest. */
  kind: 'table' | 'file';
  sizeBefore: number | null;
  sizeAfter: number | null;
  typeBefore: string | null;
  typeAfter: string | null;
  columnsAdded?: string[];
  columnsRemoved?: string[];
  rowsAdded?: number;
  rowsRemoved?: number;
  rowsChanged?: number;
  /** A few changed rows, as the table diff shows them: a header, then rows. */
  sample?: string[][];
  /** Why a table comparison was not made (too large, unreadable), in Spanish. */
  note?: string;
}

/**
 * Every file a captured record has had (issue #19): v1 the first capture, then one per change of
 * bytes at the origin. The record's own columns (cid, size…) are always its newest version's.
 */
export const recordVersions = pgTable(
  'record_versions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    alexandriaId: integer('alexandria_id')
      .notNull()
      .references(() => alexandrias.id, { onDelete: 'cascade' }),
    /** 1, 2, 3… in capture order. */
    number: integer('number').notNull(),
    cid: text('cid').notNull(),
    sha256: text('sha256').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    type: assetType('type').notNull(),
    mimeType: text('mime_type'),
    fileName: text('file_name'),
    /** The capture that brought these bytes (its URL, HTTP status and headers). */
    captureId: integer('capture_id').references(() => captures.id, { onDelete: 'set null' }),
    capturedAt: timestamp('captured_at', { withTimezone: true }).defaultNow().notNull(),
    /** What changed from the version before; null for v1 and while `diffStatus` is pending. */
    diff: jsonb('diff').$type<VersionDiff>(),
    diffStatus: text('diff_status', { enum: ['none', 'pending', 'done', 'failed'] }).notNull().default('none'),
  },
  (t) => [uniqueIndex('record_versions_number_key').on(t.alexandriaId, t.number), index('record_versions_cid_idx').on(t.cid), index('record_versions_captured_idx').on(t.capturedAt)],
);

export type RecordVersion = typeof recordVersions.$inferSelect;

/**
 * The fixity audit (issue #19, `fixity/`): one row per pass over every stored file, each block
 * re-read and checked against its hash. A pass is cut into slices spread over
 * `ARCHIVE_FIXITY_PERIOD_DAYS`; the row is where the next slice resumes (files in CID order).
 */
export const fixityRuns = pgTable(
  'fixity_runs',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** 1, 2, 3…: unique, so two servers starting the next pass at once make one. */
    number: integer('number').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).defaultNow().notNull(),
    /** Null while the pass is under way. */
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** The last CID audited; null before the first slice. */
    cursor: text('cursor'),
    /** What the pass had to read when it began: paces its slices over the period. */
    filesTotal: integer('files_total').notNull().default(0),
    bytesTotal: bigint('bytes_total', { mode: 'number' }).notNull().default(0),
    filesChecked: integer('files_checked').notNull().default(0),
    /** Bytes of blocks read and hashed (file bytes and the DAG's own nodes). */
    bytesChecked: bigint('bytes_checked', { mode: 'number' }).notNull().default(0),
    failures: integer('failures').notNull().default(0),
    /** Slices done so far: the next slice's job is named by it, so it is queued once. */
    slices: integer('slices').notNull().default(0),
    nextSliceAt: timestamp('next_slice_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [uniqueIndex('fixity_runs_number_key').on(t.number)],
);

export type FixityRun = typeof fixityRuns.$inferSelect;

/** A stored file that failed the audit: which block, and why, in Spanish (shown on /preservacion). */
export const fixityFailures = pgTable(
  'fixity_failures',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    runId: integer('run_id')
      .notNull()
      .references(() => fixityRuns.id, { onDelete: 'cascade' }),
    cid: text('cid').notNull(),
    /** The block that failed (the file's root or one of its chunks). */
    blockCid: text('block_cid'),
    kind: text('kind', { enum: ['corrupt', 'missing', 'unreadable'] }).notNull(),
    reason: text('reason').notNull(),
    foundAt: timestamp('found_at', { withTimezone: true }).defaultNow().notNull(),
  },
  (t) => [index('fixity_failures_run_idx').on(t.runId), index('fixity_failures_found_idx').on(t.foundAt)],
);

export type FixityFailure = typeof fixityFailures.$inferSelect;
