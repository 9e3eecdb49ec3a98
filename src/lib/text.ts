/**
 * Cutting text to the lengths of SPEC §9. Kept apart from format.ts (which needs dayjs) so the
 * header's wallet widget can shorten an address without shipping a date library to every page.
 */
export const TRUNCATE = { name: 50, description: 120, issuerReview: 150, url: 20, wallet: 15 } as const;

/** Cuts `text` to `max` characters, ending in an ellipsis when it was longer. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…` : text;
}

/** A wallet address shortened to 15 characters: the start and the end, which is what people compare. */
export function shortenWallet(address: string): string {
  if (address.length <= TRUNCATE.wallet) return address;
  return `${address.slice(0, 8)}…${address.slice(-6)}`;
}
