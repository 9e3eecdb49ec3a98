/**
 * What the sitemap lists: the watch's two pages, the archive's own pages (the dashboard, the three
 * group lists, the API's documentation and the FAQ), the page of every source, department and category
 * that has a record, then every
 * record's page (issue #20: a record without a file has one too, at `/registro/{id}`). One fixed order, so `offset` and `limit` cut the same list
 * into the 50,000-URL files of a sitemap index however many records there are.
 */
import { and, asc, count, eq, max, ne, sql } from 'drizzle-orm';
import type { GroupEntity } from '../../domain/groups.ts';
import { collectionPath, groupPath, recordPath } from '../../paths.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, fixityRuns, harvestedRecords } from '../db/schema.ts';
import { disappearedPath, PRESERVATION_PATH } from '../../watch-paths.ts';
import { DIMENSIONS, GROUP_ENTITY_LIST } from './dimensions.ts';
import { disappearedAt, disappearedCondition } from './disappeared.ts';

export interface SitemapEntry {
  /** Path on the archive's origin (the caller makes it absolute). */
  path: string;
  /** When the page's content last changed; unknown (and left out) for a page nothing has changed yet. */
  lastmod: Date | null;
}

/** One run of the list: how long it is, and a slice of it. */
interface Segment {
  size(db: Db): Promise<number>;
  read(db: Db, offset: number, limit: number): Promise<SitemapEntry[]>;
}

/**
 * A collection page changes when the group does, and when any of its records does. Only groups
 * the public sees have a page: a source or institution under review or refused has none. A group
 * with no record yet (a category nothing was filed under) has a page that lists nothing, marked
 * `noindex`: it is left out, rather than offer search engines an empty page.
 */
function collectionPages(entity: GroupEntity): Segment {
  const { table, id, updatedAt, visible, recordColumn } = DIMENSIONS[entity];
  // Correlated per group: the (group_id, updated_at) indexes answer both without a scan.
  const latestRecord = sql`(select max(${alexandrias.updatedAt}) from ${alexandrias} where ${recordColumn} = ${id})`;
  const listed = and(visible, sql`exists (select 1 from ${alexandrias} where ${recordColumn} = ${id})`);
  return {
    size: (db) => db.$count(table, listed),
    async read(db, offset, limit) {
      const rows = await db
        .select({ id, lastmod: sql<Date>`greatest(${updatedAt}, ${latestRecord})`.mapWith(updatedAt) })
        .from(table)
        .where(listed)
        .orderBy(asc(id))
        .limit(limit)
        .offset(offset);
      return rows.map((row) => ({ path: collectionPath(entity, row.id), lastmod: row.lastmod }));
    },
  };
}

/**
 * Every record has a page, at its canonical URL (`recordPath`). A record a moderator blocked keeps
 * its page (with the public reason) but is not offered to search engines: it is left out here, and
 * its page says `noindex`.
 */
const listedRecords = ne(alexandrias.status, 'blocked');

const recordPages: Segment = {
  async size(db) {
    const [row] = await db.select({ n: count() }).from(alexandrias).where(listedRecords);
    return row?.n ?? 0;
  },
  async read(db, offset, limit) {
    const rows = await db
      .select({ id: alexandrias.id, cid: alexandrias.cid, lastmod: alexandrias.updatedAt })
      .from(alexandrias)
      .where(listedRecords)
      .orderBy(asc(alexandrias.id))
      .limit(limit)
      .offset(offset);
    return rows.map((row) => ({ path: recordPath(row), lastmod: row.lastmod }));
  },
};

/**
 * The watch's public pages (issue #19): /desaparecidos changes with each disappearance and withdrawal,
 * /preservacion with each slice of the fixity audit; no date while nothing has happened to either
 * (the protocol makes it optional; an invented one would mislead a crawler).
 */
const watchPages: Segment = {
  size: async () => 2,
  async read(db, offset, limit) {
    // Its last change: the latest disappearance or withdrawal it lists.
    const [gone] = await db
      .select({ at: sql<Date | null>`max(${disappearedAt()})`.mapWith(harvestedRecords.goneSince) })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(disappearedCondition());
    const [audited] = await db.select({ at: max(fixityRuns.nextSliceAt) }).from(fixityRuns);
    const pages: SitemapEntry[] = [
      { path: disappearedPath(), lastmod: gone?.at ?? null },
      { path: PRESERVATION_PATH, lastmod: audited?.at ?? null },
    ];
    return pages.slice(offset, offset + limit);
  },
};

/** Pages built ahead of any server (`prerender`): they change with a release of the archive, whose date nothing records. */
const PRERENDERED_PAGES = ['/docs', '/general/faq'] as const;

/**
 * The archive's own pages: the dashboard and the lists of sources, departments and categories,
 * which change with the records they count (dated by the newest one), and the pages built ahead.
 */
const sitePages: Segment = {
  size: async () => 1 + GROUP_ENTITY_LIST.length + PRERENDERED_PAGES.length,
  async read(db, offset, limit) {
    const [newest] = await db.select({ at: max(alexandrias.updatedAt) }).from(alexandrias);
    const lastmod = newest?.at ?? null;
    const pages: SitemapEntry[] = [
      { path: '/dashboard', lastmod },
      ...GROUP_ENTITY_LIST.map((entity) => ({ path: groupPath(entity), lastmod })),
      ...PRERENDERED_PAGES.map((path) => ({ path, lastmod: null })),
    ];
    return pages.slice(offset, offset + limit);
  },
};

const SEGMENTS: readonly Segment[] = [watchPages, sitePages, ...GROUP_ENTITY_LIST.map(collectionPages), recordPages];

async function segmentSizes(db: Db): Promise<number[]> {
  const sizes: number[] = [];
  for (const segment of SEGMENTS) sizes.push(await segment.size(db));
  return sizes;
}

/** How many URLs the sitemap lists in all. */
export async function sitemapSize(db: Db): Promise<number> {
  return (await segmentSizes(db)).reduce((sum, size) => sum + size, 0);
}

/** Entries `offset` to `offset + limit` of the sitemap's list. */
export async function sitemapEntries(db: Db, { offset, limit }: { offset: number; limit: number }): Promise<SitemapEntry[]> {
  let skip = Math.max(0, Math.trunc(offset));
  let wanted = Math.max(0, Math.trunc(limit));
  const sizes = await segmentSizes(db);
  const entries: SitemapEntry[] = [];
  for (const [index, segment] of SEGMENTS.entries()) {
    if (wanted === 0) break;
    const size = sizes[index] ?? 0;
    if (skip >= size) {
      skip -= size;
      continue;
    }
    const slice = await segment.read(db, skip, Math.min(wanted, size - skip));
    entries.push(...slice);
    wanted -= slice.length;
    skip = 0;
  }
  return entries;
}
