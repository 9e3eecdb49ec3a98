/** The search modal's strings, resolved on the server and handed to the island (only the `search.*` keys). */
import type { MessageKey } from '../../lib/i18n/es.ts';

export type SearchKey = Extract<MessageKey, `search.${string}`>;
export type SearchLabels = Record<SearchKey, string>;
