/**
 * "Cómo citar" on a record's page (issue #20): one line a researcher can paste into a
 * bibliography, in the usual Spanish form of a data citation (author, year, title, kind, where it
 * is kept, address, identifier, date of access). Pure: the page passes what it knows.
 */
import { formatDate } from '../../format.ts';
import { t } from '../../i18n/index.ts';
import type { RecordDetail } from '../queries/records.ts';

export interface CitationContext {
  /** The record page's absolute canonical URL. */
  url: string;
  /** When the reader consults it: the page's render time. */
  accessed: Date;
}

type Cited = Pick<RecordDetail, 'title' | 'cid' | 'issued' | 'modified' | 'department' | 'source'>;

/**
 * The citation of `record`. Its author is the issuing institution (else the source); its year the
 * original's publication (else its last change at the origin), or "s. f." when the catalogue
 * gives neither: the archive's own dates say when it was copied, not when it was published.
 */
export function recordCitation(record: Cited, context: CitationContext): string {
  const author = record.department?.name ?? record.source?.name;
  const dated = record.issued ?? record.modified;
  const year = dated ? formatDate(dated).slice(-4) : t('cite.noDate');
  // The URL comes last, with no full stop after it, so a pasted citation still links.
  const parts = [
    author ? `${withStop(author)} (${year}).` : `(${year}).`,
    `${withoutStop(record.title)} [${t('cite.kind')}].`,
    `${t('site.name')}.`,
    record.cid ? `CID: ${record.cid}.` : null,
    t('cite.accessed', { date: formatDate(context.accessed), url: context.url }),
  ];
  return parts.filter((part): part is string => part !== null).join(' ');
}

/** `text` ending in one full stop, whatever it ended in. */
function withStop(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

/** `text` without the full stop it may end in (a title followed by its kind in brackets). */
function withoutStop(text: string): string {
  return text.trim().replace(/\.+$/, '');
}
