/** The moderators' inbox (issue #9): the messages sent with the contact form, newest first. */
import { desc, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { contactMessages } from '../db/schema.ts';
import { pageWindow, toPage, type Page } from './paging.ts';

export interface InboxMessage {
  id: number;
  subject: string;
  message: string;
  walletAddress: string | null;
  forwarded: boolean | null;
  createdAt: Date;
}

/** A page of the inbox, 20 messages, newest first. */
export async function inbox(db: Db, page: number): Promise<Page<InboxMessage>> {
  const window = pageWindow(page, 20);
  const items = await db
    .select({
      id: contactMessages.id,
      subject: contactMessages.subject,
      message: contactMessages.message,
      walletAddress: contactMessages.walletAddress,
      forwarded: contactMessages.forwarded,
      createdAt: contactMessages.createdAt,
    })
    .from(contactMessages)
    .orderBy(desc(contactMessages.createdAt), desc(contactMessages.id))
    .limit(window.pageSize)
    .offset(window.offset);
  const [counted] = await db.select({ total: sql<number>`count(*)::int` }).from(contactMessages);
  return toPage(items, counted?.total ?? 0, window);
}
