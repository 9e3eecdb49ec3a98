/**
 * What the header's notifications tell a signed-in contributor (DECISIONS: the dropdown is built
 * for real): the moderators' decisions on their uploads, newest first. The archive's own entries
 * in a record's history (an upload that starts under review, a harvest) are no news to them.
 */
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { AssetStatus } from '../../domain/constants.ts';
import { recordPath } from '../../paths.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, statusHistory } from '../db/schema.ts';

/** Decisions a wallet is told of at once: the dropdown is a glance, its uploads' pages the whole story. */
export const NOTIFICATIONS_LIMIT = 5;

export interface Notification {
  recordId: number;
  title: string;
  /** The record's page. */
  path: string;
  status: AssetStatus;
  /** The moderator's public reason; empty when they gave none. */
  reason: string;
  at: Date;
}

export async function notificationsOf(db: Db, walletAddress: string, limit = NOTIFICATIONS_LIMIT): Promise<Notification[]> {
  const rows = await db
    .select({
      recordId: alexandrias.id,
      cid: alexandrias.cid,
      title: alexandrias.title,
      status: statusHistory.toStatus,
      reason: statusHistory.reason,
      at: statusHistory.createdAt,
    })
    .from(statusHistory)
    .innerJoin(alexandrias, eq(alexandrias.id, statusHistory.alexandriaId))
    .where(and(eq(alexandrias.walletAddress, walletAddress.toLowerCase()), isNotNull(statusHistory.actor)))
    .orderBy(desc(statusHistory.createdAt), desc(statusHistory.id))
    .limit(limit);
  return rows.map(({ cid, recordId, reason, ...row }) => ({ ...row, recordId, reason: reason ?? '', path: recordPath({ cid, id: recordId }) }));
}
