/**
 * What moderators read (issue #8, DECISIONS 'Contribution'): the queue of contributions under
 * review, the sources and institutions waiting to be accepted, and a record's status history (shown
 * to everyone on its page). The changes themselves are made in `moderation/`.
 */
import { and, asc, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { AssetStatus } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, statusHistory } from '../db/schema.ts';
import { DIMENSIONS } from './dimensions.ts';
import { pageWindow, toPage, type Page } from './paging.ts';
import { recordDetails, type RecordDetail } from './records.ts';

export interface HistoryEntry {
  from: AssetStatus | null;
  to: AssetStatus;
  reason: string | null;
  /** The moderator's wallet; null when the archive itself set the status. */
  actor: string | null;
  at: Date;
}

/** A record's public status history, oldest first. */
export async function recordHistory(db: Db, alexandriaId: number): Promise<HistoryEntry[]> {
  return db
    .select({
      from: statusHistory.fromStatus,
      to: statusHistory.toStatus,
      reason: statusHistory.reason,
      actor: statusHistory.actor,
      at: statusHistory.createdAt,
    })
    .from(statusHistory)
    .where(eq(statusHistory.alexandriaId, alexandriaId))
    .orderBy(asc(statusHistory.createdAt), asc(statusHistory.id));
}

/** Records waiting for review, oldest first: the moderation queue. Harvested metadata is no contribution. */
export async function reviewQueueIds(db: Db, limit: number, offset: number): Promise<{ ids: number[]; total: number }> {
  const waiting = and(eq(alexandrias.status, 'under_review'), isNotNull(alexandrias.walletAddress));
  const rows = await db
    .select({ id: alexandrias.id })
    .from(alexandrias)
    .where(waiting)
    .orderBy(asc(alexandrias.createdAt), asc(alexandrias.id))
    .limit(limit)
    .offset(offset);
  const [counted] = await db.select({ total: sql<number>`count(*)::int` }).from(alexandrias).where(waiting);
  return { ids: rows.map((row) => row.id), total: counted?.total ?? 0 };
}

/** Another record of a queued record's file, as the queue links to it. */
export type SameFileRecord = Pick<RecordDetail, 'id' | 'cid' | 'title' | 'status'>;

/**
 * A record waiting for review, whole, with the other records of the same file: a document sent
 * twice, or one the archive already holds (captured from a catalogue, or uploaded before). The
 * contribution is not refused for it, since a second record may describe the file better or
 * place it elsewhere; the moderator decides, seeing both.
 */
export interface QueuedRecord extends RecordDetail {
  /** The first `SAME_FILE_NAMED` of them, oldest first. */
  sameFile: SameFileRecord[];
  /** How many other records the file has. */
  sameFileTotal: number;
}

/** Other records of a queued file named at most: a file in many datasets would bury the queue. */
export const SAME_FILE_NAMED = 5;

/** A page of the moderation queue, each record whole (its proofs, source page and issuer). */
export async function reviewQueue(db: Db, page: number): Promise<Page<QueuedRecord>> {
  const window = pageWindow(page);
  const queue = await reviewQueueIds(db, window.pageSize, window.offset);
  // Moderators see the name of a source or institution under review, to judge the record with it.
  const found = queue.ids.length ? await recordDetails(db, inArray(alexandrias.id, queue.ids), { forModerators: true }) : [];
  const cids = [...new Set(found.flatMap((record) => (record.cid ? [record.cid] : [])))];
  // Every record of those files: a page of the queue's files, each in a few datasets at most.
  const sharing = cids.length
    ? await db
        .select({ id: alexandrias.id, cid: alexandrias.cid, title: alexandrias.title, status: alexandrias.status })
        .from(alexandrias)
        .where(inArray(alexandrias.cid, cids))
        .orderBy(asc(alexandrias.createdAt), asc(alexandrias.id))
    : [];
  const records = queue.ids.flatMap((id) =>
    found
      .filter((record) => record.id === id)
      .map((record) => {
        const others = record.cid ? sharing.filter((other) => other.cid === record.cid && other.id !== record.id) : [];
        return { ...record, sameFile: others.slice(0, SAME_FILE_NAMED), sameFileTotal: others.length };
      }),
  );
  return toPage(records, queue.total, window);
}

/** The entities contributors create, and a moderator reviews. */
export type ReviewedEntity = 'src' | 'dep';

export interface EntityUnderReview {
  id: number;
  name: string;
  url: string | null;
  description: string | null;
  createdAt: Date;
}

/** Sources or institutions contributors created that wait for review, newest first. */
export async function entitiesUnderReview(db: Db, entity: ReviewedEntity, limit = 50): Promise<EntityUnderReview[]> {
  const { table, id, name, url, description } = DIMENSIONS[entity];
  return db
    .select({ id, name, url, description, createdAt: table.createdAt })
    .from(table)
    .where(eq(table.reviewStatus, 'under_review'))
    .orderBy(desc(table.createdAt), desc(id))
    .limit(limit);
}

/** Sources contributors created that wait for review, newest first. */
export function sourcesUnderReview(db: Db): Promise<EntityUnderReview[]> {
  return entitiesUnderReview(db, 'src');
}

/** Institutions contributors created that wait for review, newest first. */
export function departmentsUnderReview(db: Db): Promise<EntityUnderReview[]> {
  return entitiesUnderReview(db, 'dep');
}

export interface ModerationPage {
  queue: Page<QueuedRecord>;
  sources: EntityUnderReview[];
  departments: EntityUnderReview[];
}

/** Everything /moderacion shows: a page of the queue, and the new sources and institutions. */
export async function loadModeration(db: Db, page: number): Promise<ModerationPage> {
  return { queue: await reviewQueue(db, page), sources: await sourcesUnderReview(db), departments: await departmentsUnderReview(db) };
}
