/** The wizard's strings, resolved on the server and handed to the island (only the `upload.*` keys). */
import type { MessageKey } from '../../lib/i18n/es.ts';

export type UploadKey = Extract<MessageKey, `upload.${string}`>;
export type UploadLabels = Record<UploadKey, string>;

/** Fills `{name}` placeholders, as `lib/i18n` does on the server. */
export function fill(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match));
}
