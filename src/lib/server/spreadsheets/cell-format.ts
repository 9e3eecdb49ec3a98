/**
 * Cell values as text a reader recognises, the same for XLSX and ODS so that a workbook saved in
 * either format gives the same CSV:
 *
 * - numbers with at most 15 significant digits (what spreadsheets display), so the binary noise
 *   of `289981369.08999997` reads `289981369.09`; a plain `.` decimal point and no thousands
 *   separators, currency symbols or padding, so the CSV stays machine-readable;
 * - percentages as the reader sees them, `15.5%`, without rounding to the format's decimals;
 * - dates as ISO 8601 `2023-01-31`, with ` 14:05:00` when they carry a time of day; times alone
 *   as `14:05:00`;
 * - booleans as a Spanish spreadsheet shows them, `VERDADERO` and `FALSO`.
 */

export type ValueKind = 'number' | 'percent' | 'date' | 'time' | 'duration';

/** `value` with at most 15 significant digits, without float noise; '' for NaN and infinities. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '';
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

export function formatPercent(value: number): string {
  const text = formatNumber(value * 100);
  return text === '' ? '' : `${text}%`;
}

export function formatBoolean(value: boolean): string {
  return value ? 'VERDADERO' : 'FALSO';
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function clock(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  return `${pad(hours)}:${pad(minutes)}:${pad(totalSeconds % 60)}`;
}

/** A UTC instant as `yyyy-mm-dd`, with ` hh:mm:ss` unless it is midnight. */
function formatInstant(milliseconds: number): string {
  const date = new Date(milliseconds);
  const year = date.getUTCFullYear();
  const day = `${year < 0 ? '-' : ''}${pad(Math.abs(year), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const seconds = date.getUTCHours() * 3600 + date.getUTCMinutes() * 60 + date.getUTCSeconds();
  return seconds === 0 ? day : `${day} ${clock(seconds)}`;
}

const DAY_MS = 86_400_000;
/** Day 0 of the 1900 system is 1899-12-31, but Excel counts a 29 February 1900 that never was. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);
/** 9999-12-31 in the 1900 system: past it Excel shows ##### instead of a date. */
const LAST_SERIAL = 2_958_465;

/**
 * An Excel serial date (days since the workbook's epoch) as text, or null when it is not one a
 * spreadsheet would show as a date. Times are rounded to the second, as Excel displays them.
 */
export function formatSerial(serial: number, kind: 'date' | 'time' | 'duration', date1904 = false): string | null {
  if (!Number.isFinite(serial) || serial < 0 || serial > LAST_SERIAL) return null;
  const seconds = Math.round(serial * 86_400);
  if (kind === 'duration') return clock(seconds);
  if (kind === 'time') return clock(seconds % 86_400);
  if (date1904) return formatInstant(EPOCH_1904 + seconds * 1000);
  const days = Math.floor(seconds / 86_400);
  if (days === 60) return seconds % 86_400 === 0 ? '1900-02-29' : `1900-02-29 ${clock(seconds % 86_400)}`;
  // Before the phantom 29 February, serial 1 is 1900-01-01: one day later than the epoch says.
  const shift = days < 60 ? DAY_MS : 0;
  return formatInstant(EPOCH_1900 + seconds * 1000 + shift);
}

/**
 * An ISO 8601 date or date-time (ODS `office:date-value`, XLSX `t="d"`) in the same form as
 * `formatSerial`; the text itself when it is not one.
 */
export function formatIsoDate(value: string): string {
  const match = /^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?)?/.exec(value.trim());
  if (!match) return value;
  const [, year, month, day, hours = '0', minutes = '0', seconds = '0'] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hours), Number(minutes), Math.round(Number(seconds)), 0);
  return Number.isNaN(date.getTime()) ? value : formatInstant(date.getTime());
}

/** An ODS `office:time-value` (an ISO 8601 duration such as `PT14H05M00S`) as `14:05:00`. */
export function formatIsoDuration(value: string): string {
  const match = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!match) return value;
  const [, minus, days = '0', hours = '0', minutes = '0', seconds = '0'] = match;
  const total = Math.round(Number(days) * 86_400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds));
  return `${minus ? '-' : ''}${clock(total)}`;
}

/**
 * What an Excel number format shows a number as. Only the first section counts; quoted text,
 * escaped characters, padding (`_x`), fills (`*x`), colours, conditions and locales are ignored.
 */
export function classifyFormat(code: string): ValueKind {
  const section = firstSection(code);
  if (/\[(h+|m+|s+)\]/i.test(section)) return 'duration';
  const bare = section
    .replace(/"[^"]*"/g, '')
    .replace(/\\.|[_*]./g, '')
    .replace(/\[[^\]]*\]/g, '');
  if (/^general$/i.test(bare.trim())) return 'number';
  const hasDate = /[dy]/i.test(bare);
  const hasTime = /[hs]|am\/pm|a\/p/i.test(bare);
  const hasM = /m/i.test(bare);
  if (hasDate || (hasM && !hasTime)) return 'date';
  if (hasTime) return 'time';
  if (bare.includes('%')) return 'percent';
  return 'number';
}

function firstSection(code: string): string {
  let quoted = false;
  for (let i = 0; i < code.length; i += 1) {
    const char = code[i];
    if (char === '\\') i += 1;
    else if (char === '"') quoted = !quoted;
    else if (char === ';' && !quoted) return code.slice(0, i);
  }
  return code;
}

/** Excel's built-in number formats (ECMA-376 §18.8.30), by what they show. */
export function builtinFormatKind(id: number): ValueKind {
  if (id === 9 || id === 10) return 'percent';
  if ((id >= 14 && id <= 17) || id === 22 || (id >= 27 && id <= 31) || (id >= 34 && id <= 36) || (id >= 50 && id <= 58)) return 'date';
  if ((id >= 18 && id <= 21) || id === 32 || id === 33 || id === 45 || id === 47) return 'time';
  if (id === 46) return 'duration';
  return 'number';
}

/** An XLSX number shown the way its format says. */
export function formatXlsxNumber(value: number, kind: ValueKind, date1904: boolean): string {
  if (kind === 'percent') return formatPercent(value);
  if (kind === 'date' || kind === 'time' || kind === 'duration') return formatSerial(value, kind, date1904) ?? formatNumber(value);
  return formatNumber(value);
}
