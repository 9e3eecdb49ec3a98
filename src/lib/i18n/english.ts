/**
 * The labels the spec keeps in English ("online", "COPIED", "Loading ...", "Sign in with Magic
 * Connect"...) in an archive whose pages are Spanish (`<html lang="es">`): each shows inside an
 * element with `lang="en"` (`langOf`), so a screen reader says it in English rather than reading
 * English words with Spanish sounds (WCAG 3.1.2, language of parts). Apart from `es.ts`, so that
 * an island asks without carrying the whole dictionary.
 */
import type { MessageKey } from './es.ts';

const ENGLISH_KEYS: ReadonlySet<string> = new Set<MessageKey>([
  'nav.home',
  'status.under_review',
  'status.on_line',
  'status.blocked',
  'status.broken',
  'record.deals',
  'panel.title',
  'panel.copied',
  'csv.loading',
  'csv.invalid',
  'csv.noResults',
  'dashboard.achievements',
  'table.action',
  'auth.login.button',
  'auth.login.waiting',
  'auth.forgot.loading',
  'upload.close',
  'upload.submit',
  'upload.step.6',
  'upload.step.7',
  'upload.loading',
  'upload.entity.noResult',
  'profile.lastFilesEmpty',
  'results.none',
  'notifications.welcome',
  'search.loading',
  'search.notFound',
]);

/** `'en'` for a label the spec keeps in English, for the `lang` of the element that shows it; else nothing. */
export function langOf(key: MessageKey): 'en' | undefined {
  return ENGLISH_KEYS.has(key) ? 'en' : undefined;
}

/** The storage statuses a record page names (SPEC §4: 'Remote', 'Pinned', …) are English words too. */
export const STORAGE_STATUS_LANG = 'en';
