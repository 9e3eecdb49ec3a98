/**
 * The change feeds (issue #19): `/feeds/cambios.atom` for the whole archive and
 * `/feeds/instituciones/{id}.atom` for one institution, each the newest `FEED_ENTRIES` new
 * versions and disappearances (`changes.ts`), written as Atom (`atom.ts`).
 */
import type { Db } from '../db/index.ts';
import { changesAtom } from './atom.ts';
import { archiveBegan, latestChanges, publicDepartmentOfFeed } from './changes.ts';

export { atomResponse } from './atom.ts';
export { FEED_ENTRIES, latestChanges, type ChangeEvent } from './changes.ts';

/** The archive's feed, with absolute links on `origin`. */
export async function archiveChangesFeed(db: Db, origin: string): Promise<string> {
  const events = await latestChanges(db);
  // The archive's first import dates only a feed with no entry: readers poll, and most polls find some.
  return changesAtom({ origin, events, since: events.length > 0 ? events[0]!.at : await archiveBegan(db) });
}

/** One institution's feed, or null when the public sees no such institution. */
export async function departmentChangesFeed(db: Db, origin: string, departmentId: number): Promise<string | null> {
  const department = await publicDepartmentOfFeed(db, departmentId);
  if (department === null) return null;
  return changesAtom({ origin, department: { id: departmentId, name: department.name }, events: await latestChanges(db, { departmentId }), since: department.createdAt });
}
