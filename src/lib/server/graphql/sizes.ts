/**
 * What the archive holds, for the cost rule (limits.ts): how many records, imports, sources,
 * departments and categories, and how many records the largest groups hold. With these, a
 * document is priced by the rows it can really cause, not by the worst case of an archive of any
 * size: "10 departments with their records" is 10 departments and at most the records of the 10
 * largest (about 100 today), not 10 × 100. The original front end's group pages ask exactly that
 * (issue #22), and were priced as expensive as a flood.
 *
 * Read from the running counts and the groups' tables (a few small queries, no record is read),
 * at most once every `SIZES_TTL_MS` per handler, before a request is validated. Until the first
 * read, and if a read fails, the rule prices the worst case as before.
 */
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { countGroups, countRecordsFast, groupRecords } from '../queries/connections.ts';
import { MAX_LIMIT } from '../queries/find.ts';
import { countImports } from '../queries/imports.ts';
import { DIMENSIONS } from '../queries/dimensions.ts';

export interface ArchiveSizes {
  records: number;
  imports: number;
  groups: Record<GroupEntity, GroupSizes>;
}

export interface GroupSizes {
  /** How many public groups of the kind there are. */
  count: number;
  /** The record counts of the largest groups, largest first (the first `MAX_LIMIT`). */
  largest: number[];
}

/** How long a reading of the sizes is used: the archive grows by harvests, not by the second. */
export const SIZES_TTL_MS = 60_000;

const ENTITIES: GroupEntity[] = ['src', 'dep', 'cat'];

export async function readArchiveSizes(db: Db): Promise<ArchiveSizes> {
  const [records, imports, ...groups] = await Promise.all([
    countRecordsFast(db, {}),
    countImports(db, {}),
    ...ENTITIES.map(async (entity): Promise<GroupSizes> => {
      const [count, byGroup] = await Promise.all([countGroups(db, entity, {}), groupRecords(db, {}, DIMENSIONS[entity].field)]);
      return { count, largest: byGroup.slice(0, MAX_LIMIT).map((group) => group.count) };
    }),
  ]);
  return { records, imports, groups: Object.fromEntries(ENTITIES.map((entity, index) => [entity, groups[index]!])) as ArchiveSizes['groups'] };
}

/** The sizes a handler prices by: `current()` the latest reading, `refresh()` reads anew when it is old. */
export interface SizesSource {
  current(): ArchiveSizes | null;
  refresh(): Promise<void>;
}

export function archiveSizes(getDb: () => Promise<Db>, ttlMs = SIZES_TTL_MS): SizesSource {
  let sizes: ArchiveSizes | null = null;
  let readAt = -Infinity;
  let reading: Promise<void> | null = null;
  return {
    current: () => sizes,
    refresh() {
      if (Date.now() - readAt < ttlMs) return Promise.resolve();
      // One reading at a time; requests arriving meanwhile wait for it.
      reading ??= (async () => {
        try {
          sizes = await readArchiveSizes(await getDb());
          readAt = Date.now();
        } catch {
          // The request itself will meet the database's trouble; prices stay as they were.
        } finally {
          reading = null;
        }
      })();
      return reading;
    },
  };
}
