import { es, type MessageKey } from './es.ts';

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
