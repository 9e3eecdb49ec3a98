/**
 * Controlled vocabularies of the archive (SPEC §3, §4, §9), one place each, shared by the server
 * and the browser. Labels are i18n keys, resolved by `lib/i18n`; colours name Tailwind palettes.
 */

/** Asset (alexandria) status, SPEC §4. `under_review` is what the dashboard counts as unprocessed. */
export const ASSET_STATUSES = {
  under_review: { labelKey: 'status.under_review', colour: 'amber' },
  on_line: { labelKey: 'status.on_line', colour: 'emerald' },
  blocked: { labelKey: 'status.blocked', colour: 'rose' },
  broken: { labelKey: 'status.broken', colour: 'slate' },
} as const;
export type AssetStatus = keyof typeof ASSET_STATUSES;
export const ASSET_STATUS_VALUES = Object.keys(ASSET_STATUSES) as [AssetStatus, ...AssetStatus[]];

/**
 * How public a record of a file is, most public first: where several records hold one file, what
 * the file's CID alone stands for (its page, its name at the gateway) is the published record's,
 * then one under review, one marked broken, a blocked one last.
 */
export const STATUS_STANDING: Readonly<Record<AssetStatus, number>> = { on_line: 0, under_review: 1, broken: 2, blocked: 3 };

/** Import status, SPEC §4: in_progress shows in the warning colour. */
export const IMPORT_STATUSES = {
  in_progress: { labelKey: 'import.in_progress', colour: 'amber' },
  done: { labelKey: 'import.done', colour: 'emerald' },
  /** A harvest that could not finish (the catalogue unreachable, unreadable): its reason is in `errors`. */
  failed: { labelKey: 'import.failed', colour: 'rose' },
} as const;
export type ImportStatus = keyof typeof IMPORT_STATUSES;
export const IMPORT_STATUS_VALUES = Object.keys(IMPORT_STATUSES) as [ImportStatus, ...ImportStatus[]];

/** How records entered the archive: a harvest of a portal's catalogue, one upload, or a batch. */
export const IMPORT_TYPES = ['harvest', 'single', 'bulk'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

/**
 * Record formats, SPEC §3, with what everything that names a format reads here: the label and
 * badge colour the pages show, the IANA media type a file of the format is served and described
 * with (gateway, seed, DCAT, JSON-LD), the extensions its files go by (the usual one first; a
 * download keeps one of them) and its code in the EU file-type table (DCAT-AP). `other` has none
 * of these: its files are served as what their bytes are. `xlsx` counts as `xls` where the spec
 * counts formats (see `COUNTED_FORMAT`); the dashboard still shows ODS in its own row.
 */
export const ASSET_TYPES = {
  pdf: { label: 'PDF', colour: 'rose', mediaType: 'application/pdf', extensions: ['pdf'], euFileType: 'PDF' },
  // Violet, not green: beside the spreadsheets' green and the emerald of «online» it was not told apart.
  csv: { label: 'CSV', colour: 'violet', mediaType: 'text/csv', extensions: ['csv', 'tsv', 'txt'], euFileType: 'CSV' },
  xls: { label: 'XLS', colour: 'green', mediaType: 'application/vnd.ms-excel', extensions: ['xls'], euFileType: 'XLS' },
  xlsx: {
    label: 'XLSX',
    colour: 'green',
    mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extensions: ['xlsx'],
    euFileType: 'XLSX',
  },
  ods: { label: 'ODS', colour: 'sky', mediaType: 'application/vnd.oasis.opendocument.spreadsheet', extensions: ['ods'], euFileType: 'ODS' },
  other: { label: 'Otro', colour: 'slate', mediaType: null, extensions: [], euFileType: null },
} as const;
export type AssetType = keyof typeof ASSET_TYPES;
export const ASSET_TYPE_VALUES = Object.keys(ASSET_TYPES) as [AssetType, ...AssetType[]];

/** The dashboard's rows (SPEC §2 'Archivos Depositados'): xls and xlsx share the XLSX row. */
export const DASHBOARD_FORMATS = ['pdf', 'csv', 'xlsx', 'ods', 'other'] as const;
export type DashboardFormat = (typeof DASHBOARD_FORMATS)[number];
export const COUNTED_FORMAT: Record<AssetType, DashboardFormat> = {
  pdf: 'pdf',
  csv: 'csv',
  xls: 'xlsx',
  xlsx: 'xlsx',
  ods: 'ods',
  other: 'other',
};

/** Pin statuses of the IPFS Pinning Service API, which any configured pinning provider speaks. */
export const PIN_STATUSES = ['queued', 'pinning', 'pinned', 'failed'] as const;
export type PinStatus = (typeof PIN_STATUSES)[number];

/** Source status: an inactive source keeps its records but is no longer harvested. */
export const SOURCE_STATUSES = ['active', 'inactive'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

/**
 * A source's review (issue #8): sources the archive harvests are `on_line`; a contributor's new
 * source waits `under_review` until a moderator accepts or refuses it.
 */
export const SOURCE_REVIEW_STATUSES = {
  on_line: { labelKey: 'status.on_line', colour: 'emerald' },
  under_review: { labelKey: 'status.under_review', colour: 'amber' },
  refused: { labelKey: 'sourceStatus.refused', colour: 'rose' },
} as const;
export type SourceReviewStatus = keyof typeof SOURCE_REVIEW_STATUSES;
export const SOURCE_REVIEW_STATUS_VALUES = Object.keys(SOURCE_REVIEW_STATUSES) as [SourceReviewStatus, ...SourceReviewStatus[]];

/** Statuses that need a public reason when a moderator sets them. */
export const STATUSES_NEEDING_REASON: ReadonlySet<string> = new Set(['blocked', 'broken', 'refused']);

/** SPEC §9 page sizes and list lengths. */
export const LIMITS = {
  pageSize: 10,
  groupList: 10,
  latestImports: 5,
  searchResults: 5,
  overviewTabs: 5,
  lastFiles: 3,
} as const;

/**
 * The longest text the archive searches, and the API's text filters accept. A search box takes
 * more (`SEARCH_BOX_MAX`) and cuts it at a space to this (`boundedSearchText`): a box that cut a
 * pasted text where the limit fell searched half a word, and found nothing.
 */
export const SEARCH_TEXT_MAX = 200;

/** What a search box takes: enough for any paste worth searching, short of a URL too long to send. */
export const SEARCH_BOX_MAX = 1_000;
