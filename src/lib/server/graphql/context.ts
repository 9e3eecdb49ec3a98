/**
 * What every resolver receives: the database, the archive's public origin (for file URLs) and
 * per-request batch loaders, so that 100 records asking for their category's icon cost one query.
 */
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { dealsOfCids, findRecordsOfParents, type RecordParent } from '../queries/connections.ts';
import type { RecordFilter, RecordSortField, Window } from '../queries/find.ts';
import { groupItemsByIds, type GroupItem } from '../queries/groups.ts';
import type { RecordDetail } from '../queries/records.ts';
import { versionsOfRecords, type VersionItem } from '../queries/versions.ts';

export interface GraphqlContext {
  db: Db;
  /** Origin that file and proof URLs are built on (`{origin}/ipfs/{cid}`). */
  origin: string;
  loadGroup(entity: GroupEntity, id: number): Promise<GroupItem | null>;
  loadDeals(cid: string): Promise<Array<{ dealId: string; storageProvider: string }>>;
  /** A captured record's versions (issue #19), oldest first. */
  loadVersions(alexandriaId: number): Promise<VersionItem[]>;
  /** The records of one source, department, category or import; siblings asking alike share a query. */
  loadRecordsOf(parent: RecordParent, id: number, filter: RecordFilter, window: Window<RecordSortField>): Promise<RecordDetail[]>;
  /** Values computed once per request (the unfiltered totals). */
  once<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

/**
 * A loader that gathers the keys asked for while resolvers run, then fetches them in one call
 * (the DataLoader pattern: the batch runs after the current promise jobs, on the next tick).
 */
function batchLoader<K, V>(fetch: (keys: K[]) => Promise<Map<K, V>>, missing: V): (key: K) => Promise<V> {
  let pending: Map<K, Array<{ resolve(value: V): void; reject(error: unknown): void }>> | null = null;
  const dispatch = async (batch: NonNullable<typeof pending>) => {
    try {
      const found = await fetch([...batch.keys()]);
      for (const [key, waiting] of batch) for (const { resolve } of waiting) resolve(found.get(key) ?? missing);
    } catch (error) {
      for (const waiting of batch.values()) for (const { reject } of waiting) reject(error);
    }
  };
  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (!pending) {
        const batch = new Map<K, Array<{ resolve(value: V): void; reject(error: unknown): void }>>();
        pending = batch;
        void Promise.resolve().then(() =>
          process.nextTick(() => {
            pending = null;
            void dispatch(batch);
          }),
        );
      }
      const waiting = pending.get(key) ?? [];
      waiting.push({ resolve, reject });
      pending.set(key, waiting);
    });
}

export function createContext(db: Db, origin: string): GraphqlContext {
  const groupLoaders = Object.fromEntries(
    (['src', 'dep', 'cat'] as const).map((entity) => [
      entity,
      batchLoader<number, GroupItem | null>(async (ids) => new Map((await groupItemsByIds(db, entity, ids)).map((item) => [item.id, item])), null),
    ]),
  ) as Record<GroupEntity, (id: number) => Promise<GroupItem | null>>;
  const loadDeals = batchLoader((cids: string[]) => dealsOfCids(db, cids), []);
  const loadVersions = batchLoader((ids: number[]) => versionsOfRecords(db, ids), [] as VersionItem[]);
  // One loader per kind of parent and arguments: the 10 categories of a list ask alike.
  const recordLoaders = new Map<string, (id: number) => Promise<RecordDetail[]>>();
  const computed = new Map<string, Promise<unknown>>();
  return {
    db,
    origin,
    loadGroup: (entity, id) => groupLoaders[entity](id),
    loadDeals,
    loadVersions,
    loadRecordsOf(parent, id, filter, window) {
      const key = JSON.stringify([parent, filter, window]);
      let load = recordLoaders.get(key);
      if (!load) {
        load = batchLoader((ids: number[]) => findRecordsOfParents(db, parent, ids, filter, window), []);
        recordLoaders.set(key, load);
      }
      return load(id);
    },
    once<T>(key: string, compute: () => Promise<T>) {
      if (!computed.has(key)) computed.set(key, compute());
      return computed.get(key) as Promise<T>;
    },
  };
}
