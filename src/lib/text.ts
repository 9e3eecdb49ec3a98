/**
 * Cutting text to the lengths of SPEC §9, and counts as people write them. Kept apart from
 * format.ts (which needs dayjs) so the header's wallet widget and the i18n module can use them
 * without shipping a date library to every page.
 */
/** Dates are shown as the Dominican Republic lives them, whatever the server's own clock zone. */
export const ARCHIVE_TIME_ZONE = 'America/Santo_Domingo';

export const TRUNCATE = { name: 50, description: 120, issuerReview: 150, url: 20, wallet: 15 } as const;

/**
 * Cuts `text` to `max` characters (UTF-16 units), ending in an ellipsis when it was longer; never
 * between the two halves of a surrogate pair (a character outside the BMP, as most emoji are),
 * whose lone half is no text at all. A sequence of several characters shown as one (an emoji with
 * a skin tone, a flag) may still lose its last ones: what is left is still text.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1));
  return `${(/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut).trimEnd()}…`;
}

/** A wallet address shortened to 15 characters: the start and the end, which is what people compare. */
export function shortenWallet(address: string): string {
  if (address.length <= TRUNCATE.wallet) return address;
  return `${address.slice(0, 8)}…${address.slice(-6)}`;
}

/** Thousands grouped as the Dominican Republic writes them ("1,065"). */
export function formatCount(value: number): string {
  return new Intl.NumberFormat('es-DO').format(value);
}

/** `text` with its first letter in capitals, as a value standing alone starts («Español, inglés»). */
export function capitalized(text: string): string {
  return text.charAt(0).toLocaleUpperCase('es') + text.slice(1);
}
