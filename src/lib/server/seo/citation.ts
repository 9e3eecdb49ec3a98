/**
 * "Cómo citar" on a record's page (issue #20): one line a researcher can paste into a
 * bibliography, in the usual Spanish form of a data citation (author, year, title, kind, where it
 * is kept, address, identifier, date of access). Pure: the page passes what it knows.
 */
import { calendarDate, formatDate } from '../../format.ts';
import { t } from '../../i18n/index.ts';
import type { RecordDetail } from '../queries/records.ts';

export interface CitationContext {
  /**
   * The record's permanent address (`/registro/{id}`). Its page's canonical URL names the current
   * file's CID, and moves (301) to the next one when the file changes at its origin: a citation
   * must still lead to the record, the CID and version it names saying which file was consulted.
   */
  url: string;
  /** The version of the record's file cited, when it has had more than one (issue #19). */
  version?: number | null;
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
    `${withoutStop(record.title)}${context.version ? ` (${t('cite.version', { number: context.version })})` : ''} [${t('cite.kind')}].`,
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


type Covered = Pick<RecordDetail, 'temporalStart' | 'temporalEnd' | 'temporalText'>;

/**
 * A record's temporal coverage in words, one line for its dates and one for what the catalogue
 * wrote: whole years read as years ("De 2017 a 2026"), other dates as dates ("Del 01/01/2017 al
 * 30/06/2017"), an open end as "Desde el …" or "Hasta el …". Empty when the catalogue states none.
 */
export function temporalCoverage({ temporalStart: start, temporalEnd: end, temporalText: text }: Covered): string[] {
  const lines: string[] = [];
  const startsYear = start?.endsWith('-01-01');
  const endsYear = end?.endsWith('-12-31');
  if (start && end && startsYear && endsYear) {
    const [from, to] = [start.slice(0, 4), end.slice(0, 4)];
    lines.push(from === to ? t('record.coverageYear', { year: from }) : t('record.coverageYears', { start: from, end: to }));
  } else if (start && end) {
    lines.push(t('record.coverageBetween', { start: calendarDate(start), end: calendarDate(end) }));
  } else if (start) {
    lines.push(t('record.coverageFrom', { date: calendarDate(start) }));
  } else if (end) {
    lines.push(t('record.coverageUntil', { date: calendarDate(end) }));
  }
  if (text) lines.push(text);
  return lines;
}
