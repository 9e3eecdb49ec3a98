/**
 * Which plural form a count takes in Spanish: "1 archivo", "0 archivos", "2 archivos". Browser-safe
 * and tiny, so an island that received both forms of a label picks the same one the server would.
 */
const SPANISH = new Intl.PluralRules('es');

export type PluralForm = 'one' | 'other';

/**
 * `one` for exactly one, `other` for everything else. CLDR also gives Spanish a `many` form for
 * round millions ("1 millón de archivos"); the archive's labels read right with `other` there.
 */
export function pluralForm(count: number): PluralForm {
  return SPANISH.select(count) === 'one' ? 'one' : 'other';
}

/** The template of `forms` that fits `count` (for islands, which get both forms as plain strings). */
export function pickPlural(count: number, forms: Record<PluralForm, string>): string {
  return forms[pluralForm(count)];
}
