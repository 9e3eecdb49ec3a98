/**
 * How values are shown (SPEC §9): dates DD/MM/YYYY, percentages with 2 decimals, truncation of
 * names, descriptions, URLs and wallet addresses. Shared by pages and islands.
 */
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import { ARCHIVE_TIME_ZONE, TRUNCATE, truncate } from './text.ts';

export { ARCHIVE_TIME_ZONE, formatCount, shortenWallet, TRUNCATE, truncate } from './text.ts';

dayjs.extend(utc);
dayjs.extend(timezone);

/** DD/MM/YYYY, as the spec shows every date. */
export function formatDate(value: Date | string | number): string {
  return dayjs(value).tz(ARCHIVE_TIME_ZONE).format('DD/MM/YYYY');
}

/** The time of day, HH:mm, in the archive's time zone: beside a date where several events share a day. */
export function formatTime(value: Date | string | number): string {
  return dayjs(value).tz(ARCHIVE_TIME_ZONE).format('HH:mm');
}

/** `2017-03-05` → `05/03/2017`: a calendar date (no time, no zone) as the archive writes dates, with no zone to shift it a day. */
export function calendarDate(date: string): string {
  const [year, month, day] = date.split('-');
  return `${day}/${month}/${year}`;
}

/** A share as a percentage with two decimals ("97.50%"); 0 of 0 is 0.00%. */
export function formatPercent(part: number, whole: number): string {
  const share = whole > 0 ? (part / whole) * 100 : 0;
  return `${share.toFixed(2)}%`;
}

/**
 * A URL as people read it, the escaped letters of its path and query shown as letters («Nómina»,
 * not «N%C3%B3mina»), as a browser's address bar shows them. Only what follows the host is
 * decoded: a name and password before it stay escaped, or «datos.gob.do%E2%88%95x@otro.example»
 * would read as an address at datos.gob.do (U+2215 looks like a slash), and the host stays as the
 * URL parser writes it (punycode). Escapes of reserved characters stay (`decodeURI`), and so do
 * those of spaces and of invisible or direction-changing characters. For text only: a link keeps
 * the URL as it is.
 */
export function readableUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const href = parsed.href;
  const tail = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  try {
    const readable = decodeURI(tail).replace(/[\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}]/gu, (char) => encodeURIComponent(char));
    return `${href.slice(0, href.length - tail.length)}${readable}`;
  } catch {
    return href; // an escape that is not UTF-8 (a Latin-1 «%E9»): shown as it came
  }
}

/** A long URL cut to 20 characters for tables, without its scheme (the link keeps the whole). */
export function truncateUrl(url: string): string {
  return truncate(url.replace(/^https?:\/\//, '').replace(/\/$/, ''), TRUNCATE.url);
}

export type BadgeColour = 'red' | 'yellow' | 'blue';

/**
 * The count badges of SPEC §9: 0 or 1 to 4 red, 5 to 10 yellow, above 10 blue, and 100 or more
 * shown as '+100' (collection cards use the same cap).
 */
export function countBadge(count: number): { text: string; colour: BadgeColour } {
  const colour: BadgeColour = count <= 4 ? 'red' : count <= 10 ? 'yellow' : 'blue';
  return { text: count >= 100 ? '+100' : String(count), colour };
}

/** A byte size in the units people read ("1.3 MB", as the Dominican Republic writes decimals). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${new Intl.NumberFormat('es-DO', { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}
