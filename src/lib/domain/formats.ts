/**
 * Turning the format labels that portals publish into the archive's formats (SPEC §3).
 * Real catalogues are dirty: datos.gob.do lists `CVS`, `OSD`, `XLXS`, `EXC`, `ODS.XLS` and blanks.
 */
import { ASSET_TYPE_VALUES, type AssetType } from './constants.ts';

/**
 * Each format by its own name (`CSV`, `XLSX`...), then known misspellings and aliases, keyed by the
 * upper-cased label without dots or spaces.
 */
const LABEL_ALIASES: Record<string, AssetType> = {
  ...Object.fromEntries(ASSET_TYPE_VALUES.map((type) => [type.toUpperCase(), type])),
  CVS: 'csv',
  TSV: 'csv',
  XLXS: 'xlsx',
  XSLX: 'xlsx',
  EXC: 'xls',
  EXCEL: 'xls',
  OSD: 'ods',
  // "ODS.XLS" names a LibreOffice spreadsheet offered as Excel too: the ODS is what was published.
  ODSXLS: 'ods',
};

/** The archive format of one published label; anything unknown (XML, JSON, TXT, blank) is `other`. */
export function normalizeFormat(label: string | null | undefined): AssetType {
  const key = (label ?? '').toUpperCase().replace(/[\s.]/g, '');
  return LABEL_ALIASES[key] ?? 'other';
}

/**
 * Which format represents a record that is offered in several: the most reusable one first
 * (plain CSV reads everywhere and is searchable in the page), then spreadsheets, then documents.
 */
const PREFERENCE: readonly AssetType[] = ['csv', 'xlsx', 'xls', 'ods', 'pdf', 'other'];

/** All distinct normalised formats of a list of labels, in order of preference. */
export function normalizeFormats(labels: readonly string[]): AssetType[] {
  const found = new Set(labels.map(normalizeFormat));
  return PREFERENCE.filter((format) => found.has(format));
}

/** The representative format of a list of labels; a record with no label at all is `other`. */
export function primaryFormat(labels: readonly string[]): AssetType {
  return normalizeFormats(labels)[0] ?? 'other';
}

/** The archive format of a file name, from its extension. */
export function formatFromFileName(fileName: string): AssetType {
  const extension = fileName.includes('.') ? fileName.slice(fileName.lastIndexOf('.') + 1) : '';
  return normalizeFormat(extension);
}
