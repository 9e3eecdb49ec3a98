/**
 * The change feeds as Atom 1.0 (RFC 4287), written by the `feed` library. Every URL is absolute on
 * the configured public origin (`config.publicUrl`), never the request's: a feed is copied into
 * readers and aggregators, and its links must lead back to the archive whatever Host was asked.
 */
import { Feed } from 'feed';
import { formatBytes, formatDate } from '../../format.ts';
import { t } from '../../i18n/index.ts';
import { fingerprintHash, isNotModified, notModified } from '../export/http.ts';
import { absoluteUrl, recordIdPath, recordPath } from '../../paths.ts';
import { CHANGES_FEED_PATH, departmentFeedPath, disappearedPath } from '../../watch-paths.ts';
import type { ChangeEvent } from './changes.ts';

const ATOM_HEADERS = {
  'Content-Type': 'application/atom+xml; charset=utf-8',
  'Cache-Control': 'public, max-age=300',
} as const;

/**
 * A feed's answer, tagged by its bytes: a reader polling a feed that has not changed gets a 304
 * (If-None-Match), instead of the whole document every few minutes.
 */
export function atomResponse(request: Request, xml: string): Response {
  const etag = `W/"${fingerprintHash(xml)}"`;
  const headers = { ...ATOM_HEADERS, ETag: etag };
  if (isNotModified(request, { etag })) return notModified(headers);
  return new Response(xml, { headers });
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * `feed` writes every title and summary as `type="html"`: plain text (a record's title may hold
 * `<` or `&`) is escaped so a reader shows it as written instead of reading it as markup.
 */
function html(text: string): string {
  return text.replace(/[&<>]/g, (char) => HTML_ENTITIES[char] ?? char);
}

export interface AtomFeedOptions {
  /** The archive's public origin. */
  origin: string;
  events: readonly ChangeEvent[];
  /** One institution's feed; the archive's when absent. */
  department?: { id: number; name: string };
  /**
   * When what the feed covers began (the institution's entry in the archive, the archive's first
   * import): the `updated` Atom requires of a feed with no entry yet, which readers show as its
   * date, and which stays the same from one request to the next.
   */
  since: Date;
}

/** The Atom document of `events` (already newest first). */
export function changesAtom({ origin, events, department, since }: AtomFeedOptions): string {
  const self = absoluteUrl(origin, department ? departmentFeedPath(department.id) : CHANGES_FEED_PATH);
  const feed = new Feed({
    id: self,
    title: department ? t('feed.department.title', { name: department.name }) : t('feed.changes.title'),
    description: t('feed.changes.description'),
    link: absoluteUrl(origin, disappearedPath(department ? { dep: department.id } : {})),
    language: 'es',
    updated: events[0]?.at ?? since,
    generator: t('site.name'),
    copyright: t('footer.license'),
    feedLinks: { atom: self },
    favicon: absoluteUrl(origin, '/favicon.svg'),
    // Atom requires an author of every entry (RFC 4287 §4.1.1): the archive, for them all.
    author: { name: t('site.name'), link: absoluteUrl(origin, '/') },
  });
  for (const event of events) {
    const page = absoluteUrl(origin, recordPath({ cid: event.recordCid, id: event.alexandriaId }));
    // An entry's id never changes (RFC 4287 §4.2.6): built on the record's id, not on its page,
    // whose address follows the record's current file, so a new version would renew every older entry.
    const entry = absoluteUrl(origin, recordIdPath(event.alexandriaId));
    if (event.kind === 'version') {
      // No enclosure for the version's file: feed 5.1 writes an Atom enclosure's type as
      // `image/<the URL's last path segment>`, whatever type it is given. The summary names the CID
      // and its download address instead; the record page lists every version.
      const file = absoluteUrl(origin, `/ipfs/${encodeURIComponent(event.cid)}`);
      feed.addItem({
        id: `${entry}#v${event.number}`,
        title: html(t('feed.entry.version', { number: event.number, title: event.title })),
        link: page,
        date: event.at,
        description: html(t('feed.entry.versionBody', { number: event.number, title: event.title, date: formatDate(event.at), size: formatBytes(event.size), cid: event.cid, url: file })),
      });
    } else if (event.kind === 'withdrawn') {
      // Withdrawn again after coming back is a new entry: the date is part of its id.
      feed.addItem({
        id: `${entry}#retirado-${event.at.toISOString()}`,
        title: html(t('feed.entry.withdrawn', { title: event.title })),
        link: page,
        date: event.at,
        description: html(t('feed.entry.withdrawnBody', { title: event.title, date: formatDate(event.at), catalogue: event.catalogue })),
      });
    } else {
      feed.addItem({
        id: `${entry}#desaparecido-${event.at.toISOString()}`,
        title: html(t('feed.entry.gone', { title: event.title })),
        link: page,
        date: event.at,
        description: html(t('feed.entry.goneBody', { title: event.title, date: formatDate(event.at), url: event.url ?? '—' })),
      });
    }
  }
  return feed.atom1();
}
