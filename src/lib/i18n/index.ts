import { formatCount } from '../text.ts';
import { es, type MessageKey } from './es.ts';
import { pluralForm } from './plural.ts';

export type { MessageKey };
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** The Spanish text of `key`, with `{name}` placeholders filled from `params`. */
export const t: Translate = (key, params) => {
  const template: string = es[key];
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (match, name: string) =>
    name in params ? String(params[name]) : match,
  );
};

/** A message with a singular and a plural form: `x.one` and `x.other` exist, and `x` names the pair. */
export type PluralKey = {
  [K in MessageKey]: K extends `${infer Base}.one` ? (`${Base}.other` extends MessageKey ? Base : never) : never;
}[MessageKey];

/**
 * The form of `key` that fits `count` ("1 archivo", "1,068 archivos"), with `{count}` filled in
 * as the archive writes numbers; other placeholders come from `params`.
 */
export function tn(key: PluralKey, count: number, params?: Record<string, string | number>): string {
  return t(`${key}.${pluralForm(count)}` as MessageKey, { ...params, count: formatCount(count) });
}
