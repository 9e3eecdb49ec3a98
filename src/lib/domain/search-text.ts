import { SEARCH_TEXT_MAX } from './constants.ts';

/**
 * A search text as the archive takes it, wherever it is typed (the results page, the header's
 * dialog, the API): trimmed, and no longer than `SEARCH_TEXT_MAX`. Longer text is cut, not
 * refused, and at a space: a word cut in two is searched as a word no record holds, and the whole
 * query found nothing. A single word longer than that is cut where the limit falls.
 */
export function boundedSearchText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= SEARCH_TEXT_MAX) return trimmed;
  const cut = trimmed.slice(0, SEARCH_TEXT_MAX);
  return /\s/.test(trimmed[SEARCH_TEXT_MAX]!) ? cut.trim() : cut.replace(/\s+\S*$/, '') || cut;
}
