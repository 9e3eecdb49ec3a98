/**
 * What the original's catalogue says of a harvested record, as the record keeps it (migrations
 * 0021, 0026 and 0043): the original's own dates, licence, keywords, how often it is updated (as
 * declared; `frequencyLabel` names it), whom to ask about it (an e-mail only when valid), the
 * period it covers (calendar dates `YYYY-MM-DD` and/or the catalogue's words), and its languages
 * and the areas it covers (`dcat/catalog.ts` publishes only what was declared).
 *
 * Listed once: the harvester maps and writes them, a change of any is kept in the history, and
 * record pages read them for "Cómo citar".
 */
import { alexandrias } from './schema.ts';

export const CATALOGUE_FACT_KEYS = [
  'issued',
  'modified',
  'licenseTitle',
  'licenseUrl',
  'keywords',
  'updateFrequency',
  'contactName',
  'contactEmail',
  'temporalStart',
  'temporalEnd',
  'temporalText',
  'languages',
  'spatial',
] as const;

type CatalogueFactKey = (typeof CATALOGUE_FACT_KEYS)[number];

export type CatalogueFacts = Pick<typeof alexandrias.$inferSelect, CatalogueFactKey>;

/** The facts' columns, to select them with a record (`db.select({ ...catalogueFactColumns })`). */
export const catalogueFactColumns = Object.fromEntries(CATALOGUE_FACT_KEYS.map((key) => [key, alexandrias[key]])) as {
  [K in CatalogueFactKey]: (typeof alexandrias)[K];
};

/** The catalogue facts of anything that carries them (a mapped dataset, a record row), and nothing else. */
export function catalogueFactsOf(source: CatalogueFacts): CatalogueFacts {
  return Object.fromEntries(CATALOGUE_FACT_KEYS.map((key) => [key, source[key]])) as CatalogueFacts;
}
