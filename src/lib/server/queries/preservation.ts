/**
 * The archive's preservation record (issue #19, `/preservacion`): the fixity audit's passes (when it
 * last read, files and bytes checked, failures) and what the watch keeps (versions, URLs watched,
 * sources gone). All public: an archive's claim to keep documents intact is worth what it shows.
 */
import { and, count, desc, eq, isNotNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, fixityFailures, fixityRuns, harvestedRecords, recordVersions } from '../db/schema.ts';
import { SLICE_EVERY_MINUTES } from '../fixity/index.ts';
import { countDisappeared } from './disappeared.ts';

export interface FixityPass {
  number: number;
  startedAt: Date;
  finishedAt: Date | null;
  filesTotal: number;
  filesChecked: number;
  bytesChecked: number;
  failures: number;
  /** When its last slice read, or null before the first. */
  lastReadAt: Date | null;
}

export interface PreservationFailure {
  cid: string;
  reason: string;
  foundAt: Date;
}

export interface Preservation {
  /** The pass under way, or the last one; null before the first. */
  latestPass: FixityPass | null;
  /** The last pass that read every file, or null. */
  lastCompletePass: FixityPass | null;
  failuresEver: number;
  recentFailures: PreservationFailure[];
  versions: { total: number; older: number };
  watchedUrls: number;
  disappeared: number;
}

const passColumns = {
  number: fixityRuns.number,
  startedAt: fixityRuns.startedAt,
  finishedAt: fixityRuns.finishedAt,
  filesTotal: fixityRuns.filesTotal,
  filesChecked: fixityRuns.filesChecked,
  bytesChecked: fixityRuns.bytesChecked,
  failures: fixityRuns.failures,
  // Each slice sets the next one's time when it ends: the last read was one pause before it.
  lastReadAt: sql<Date | null>`case when ${fixityRuns.slices} > 0 then ${fixityRuns.nextSliceAt} - make_interval(secs => ${SLICE_EVERY_MINUTES * 60}) end`.mapWith(fixityRuns.nextSliceAt),
};

/** Everything /preservacion shows. */
export async function loadPreservation(db: Db): Promise<Preservation> {
  const [latestPass] = await db.select(passColumns).from(fixityRuns).orderBy(desc(fixityRuns.number)).limit(1);
  const [lastCompletePass] = await db.select(passColumns).from(fixityRuns).where(isNotNull(fixityRuns.finishedAt)).orderBy(desc(fixityRuns.number)).limit(1);
  const [failures] = await db.select({ n: count() }).from(fixityFailures);
  const recentFailures = await db
    .select({ cid: fixityFailures.cid, reason: fixityFailures.reason, foundAt: fixityFailures.foundAt })
    .from(fixityFailures)
    .orderBy(desc(fixityFailures.foundAt), desc(fixityFailures.id))
    .limit(10);
  const [versions] = await db
    .select({ total: count(), records: sql<number>`count(distinct ${recordVersions.alexandriaId})::int` })
    .from(recordVersions);
  // What `harvest/watch.ts` checks: a harvested URL whose file the archive holds, not blocked.
  const [watched] = await db
    .select({ n: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(and(isNotNull(harvestedRecords.distributionUrl), isNotNull(alexandrias.cid), ne(alexandrias.status, 'blocked')));
  return {
    latestPass: latestPass ?? null,
    lastCompletePass: lastCompletePass ?? null,
    failuresEver: failures?.n ?? 0,
    recentFailures,
    versions: { total: versions?.total ?? 0, older: (versions?.total ?? 0) - Number(versions?.records ?? 0) },
    watchedUrls: watched?.n ?? 0,
    disappeared: await countDisappeared(db, 'origen'),
  };
}
