/**
 * How values are shown (SPEC §9): dates DD/MM/YYYY, percentages with 2 decimals, truncation of
 * names, descriptions, URLs and wallet addresses. Shared by pages and islands.
 */
import dayjs from 'dayjs';

export const TRUNCATE = { name: 50, description: 120, issuerReview: 150, url: 20, wallet: 15 } as const;

/** DD/MM/YYYY, as the spec shows every date. */
export function formatDate(value: Date | string | number): string {
  return dayjs(value).format('DD/MM/YYYY');
}

/** A share as a percentage with two decimals ("97.50%"); 0 of 0 is 0.00%. */
export function formatPercent(part: number, whole: number): string {
  const share = whole > 0 ? (part / whole) * 100 : 0;
  return `${share.toFixed(2)}%`;
}

/** Cuts `text` to `max` characters, ending in an ellipsis when it was longer. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…` : text;
}

/** A wallet address shortened to 15 characters: the start and the end, which is what people compare. */
export function shortenWallet(address: string): string {
  if (address.length <= TRUNCATE.wallet) return address;
  return `${address.slice(0, 8)}…${address.slice(-6)}`;
}

/** Spanish grouping of thousands ("1.065"). */
export function formatCount(value: number): string {
  return new Intl.NumberFormat('es-DO').format(value);
}
