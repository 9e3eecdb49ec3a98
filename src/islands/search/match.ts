/**
 * The pure part of the search modal: matching categories in the browser and the address of the
 * full results page. Kept apart from the component so it can be tested without a browser.
 */

/** Lowercase, without accents or surrounding spaces: 'Educación' and 'educacion' match. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase().trim();
}

export interface CategoryMatch<T> {
  items: T[];
  /** True when nothing matched and `items` holds every category instead. */
  all: boolean;
}

/**
 * The categories whose title contains the query (accents and case aside). The categories REST call
 * has no filter and there are only a dozen, so they are matched here. When none matches, all of
 * them are offered, so a search always leaves a way to browse by theme.
 */
export function matchCategories<T extends { name: string }>(categories: readonly T[], query: string): CategoryMatch<T> {
  const folded = foldText(query);
  const items = folded ? categories.filter((category) => foldText(category.name).includes(folded)) : [];
  return items.length > 0 ? { items, all: false } : { items: [...categories], all: true };
}

/** The full results page for a query (`/buscar?q=…`), which also works without JavaScript. */
export function searchPagePath(query: string): string {
  const q = query.trim();
  return q ? `/buscar?${new URLSearchParams({ q })}` : '/buscar';
}

/** A count of records, with the singular for one. */
export function recordCount(count: number, labels: { one: string; other: string }): string {
  return (count === 1 ? labels.one : labels.other).replace('{count}', String(count));
}
