/**
 * Watching what was captured (issue #19): every captured URL is checked again on a schedule that
 * adapts, through the same queue, politeness and capture job as the first capture
 * (`capture-job.ts` with `recheck: true`):
 *
 * - a check is a conditional request (`If-None-Match` / `If-Modified-Since` from the last capture
 *   of the current file), so an unchanged file costs a 304;
 * - unchanged (a 304, or the same bytes): only the check is recorded, and the interval doubles,
 *   from `minIntervalDays` (daily) up to `maxIntervalDays` (30);
 * - different bytes: a new version (`versions/`), and the interval starts again from daily;
 * - a 404 or 410, or no answer at all (DNS, connection): the failure is recorded and checked again
 *   daily; once the failures span `goneAfterDays` (`ARCHIVE_GONE_AFTER_DAYS`, 3; 0: the first
 *   failed check), the URL is "Desaparecido en origen desde <the first failure>", a state of the
 *   source URL apart from the moderation status: the archive's copy stays online. A later success
 *   clears it, and both changes go into the record's history.
 *
 * Every date here is the database's (`now()`), never this process's clock.
 */
import { and, eq, isNotNull, isNull, lte, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { anyOf } from '../db/json-values.ts';
import { alexandrias, captures, harvestedRecords, statusHistory } from '../db/schema.ts';
import { enqueueMany, type NewJob } from '../jobs/index.ts';
import { politenessKey } from '../jobs/hosts.ts';
import { formatDate } from '../../format.ts';
// A cycle on purpose (capture-job.ts calls this module's functions, this module names its job):
// both are only used inside functions, after either module has been evaluated.
import { CAPTURE_JOB, type CaptureJobPayload } from './capture-job.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface WatchSettings {
  /** First interval after a capture or a change, and the interval while failing (1 day). */
  minIntervalDays: number;
  /** Longest interval of a file that does not change (30 days). */
  maxIntervalDays: number;
  /** How long failures must last before the URL counts as gone (3 days; 0: at once). */
  goneAfterDays: number;
}

export const DEFAULT_WATCH: WatchSettings = { minIntervalDays: 1, maxIntervalDays: 30, goneAfterDays: 3 };

const days = (count: number) => sql`make_interval(secs => ${count * 86_400})`;

/** The capture row a check writes (a recheck's own row in `captures`). */
export type CheckCapture = Omit<typeof captures.$inferInsert, 'purpose'>;

export type CheckOutcome =
  /** A 304, or the same bytes again. */
  | { kind: 'unchanged' }
  /** A 404 or 410, or no answer (DNS, connection): `reason` in Spanish. */
  | { kind: 'missing'; reason: string };

/**
 * Records a check that brought no new version, and moves the URL's schedule and state on, in one
 * transaction.
 */
export async function recordCheck(db: Db, settings: WatchSettings, capture: CheckCapture, outcome: CheckOutcome): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(captures).values({ ...capture, purpose: 'recheck' });
    if (outcome.kind === 'unchanged') {
      await tx
        .update(harvestedRecords)
        .set({
          checkInterval: sql`least(${harvestedRecords.checkInterval} * 2, ${days(settings.maxIntervalDays)})`,
          nextCheckAt: sql`now() + least(${harvestedRecords.checkInterval} * 2, ${days(settings.maxIntervalDays)})`,
          lastCheckedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(eq(harvestedRecords.alexandriaId, capture.alexandriaId));
      await backAtOrigin(tx, capture.alexandriaId);
    } else {
      await markFailure(tx, settings, capture.alexandriaId, outcome.reason);
    }
  });
}

/**
 * New files were kept for the records (their first captures, or new versions): watch their URLs
 * from now on, daily at first, and clear a disappearance, with a line of history for each record
 * that was gone. Runs inside the captures' transaction; one statement for all of them.
 */
export async function watchAfterCaptures(tx: Tx, settings: WatchSettings, alexandriaIds: readonly number[]): Promise<void> {
  if (alexandriaIds.length === 0) return;
  // The rows are locked and read before the update, for the disappearance each one clears.
  const cleared = (await tx.execute(sql`
    with before as (
      select alexandria_id, gone_since from ${harvestedRecords}
      where alexandria_id = ${anyOf(alexandriaIds, 'int')} for update
    )
    update ${harvestedRecords} h set
      check_interval = ${days(settings.minIntervalDays)},
      next_check_at = now() + ${days(settings.minIntervalDays)},
      last_checked_at = now(),
      updated_at = now(),
      failing_since = null,
      gone_since = null
    from before where h.alexandria_id = before.alexandria_id
    returning h.alexandria_id, before.gone_since`)) as unknown as { rows: Array<{ alexandria_id: number; gone_since: string | Date | null }> };
  for (const row of cleared.rows) {
    if (row.gone_since === null) continue;
    await noteInHistory(tx, Number(row.alexandria_id), backAtOriginNote(new Date(row.gone_since)));
  }
}

/** A check that failed for a reason that says nothing of the URL (a 500 three times): try again tomorrow. */
export async function postponeCheck(db: Db, settings: WatchSettings, alexandriaId: number): Promise<void> {
  await db
    .update(harvestedRecords)
    .set({ nextCheckAt: sql`now() + ${days(settings.minIntervalDays)}`, lastCheckedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(harvestedRecords.alexandriaId, alexandriaId));
}

async function markFailure(tx: Tx, settings: WatchSettings, alexandriaId: number, reason: string): Promise<void> {
  // While failing, checked at the shortest interval: a disappearance is told within a day of its threshold.
  const [state] = await tx
    .update(harvestedRecords)
    .set({
      failingSince: sql`coalesce(${harvestedRecords.failingSince}, now())`,
      checkInterval: days(settings.minIntervalDays),
      nextCheckAt: sql`now() + ${days(settings.minIntervalDays)}`,
      lastCheckedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(eq(harvestedRecords.alexandriaId, alexandriaId))
    .returning({ failingSince: harvestedRecords.failingSince, goneSince: harvestedRecords.goneSince });
  if (!state || state.goneSince) return;
  const [gone] = await tx
    .update(harvestedRecords)
    .set({ goneSince: harvestedRecords.failingSince })
    .where(and(eq(harvestedRecords.alexandriaId, alexandriaId), sql`${harvestedRecords.failingSince} <= now() - ${days(settings.goneAfterDays)}`))
    .returning({ goneSince: harvestedRecords.goneSince });
  if (!gone?.goneSince) return;
  await noteInHistory(
    tx,
    alexandriaId,
    `Desaparecido en origen desde el ${formatDate(gone.goneSince)}: ${reason}. El archivo conserva su copia y la sigue sirviendo.`,
  );
}

/** A success at the origin: the failures end, and a disappearance is cleared with a line of history. */
async function backAtOrigin(tx: Tx, alexandriaId: number): Promise<void> {
  const [before] = await tx
    .select({ goneSince: harvestedRecords.goneSince })
    .from(harvestedRecords)
    .where(eq(harvestedRecords.alexandriaId, alexandriaId));
  await tx
    .update(harvestedRecords)
    .set({ failingSince: null, goneSince: null })
    .where(and(eq(harvestedRecords.alexandriaId, alexandriaId), sql`(${harvestedRecords.failingSince} is not null or ${harvestedRecords.goneSince} is not null)`));
  if (before?.goneSince) await noteInHistory(tx, alexandriaId, backAtOriginNote(before.goneSince));
}

function backAtOriginNote(goneSince: Date): string {
  return `De nuevo disponible en el origen (había desaparecido el ${formatDate(goneSince)}).`;
}

/** A line in the record's history that changes no status (from = to), like the harvest's updates. */
async function noteInHistory(tx: Tx, alexandriaId: number, reason: string): Promise<void> {
  const [record] = await tx.select({ status: alexandrias.status }).from(alexandrias).where(eq(alexandrias.id, alexandriaId));
  if (!record) return;
  await tx.insert(statusHistory).values({ alexandriaId, fromStatus: record.status, toStatus: record.status, reason });
}

/** Checks queued per turn of the schedule: a few hundred polite requests, not the whole archive at once. */
export const RECHECKS_PER_TURN = 500;

export interface RecheckTarget {
  alexandriaId: number;
  url: string;
}

/** The capture jobs that check `targets` now; each check's key names its due date, so one is queued per turn. */
function recheckJobs(targets: ReadonlyArray<RecheckTarget & { dueKey: string }>): NewJob[] {
  return targets.map(({ alexandriaId, url, dueKey }) => ({
    kind: CAPTURE_JOB,
    payload: { alexandriaId, url, recheck: true } satisfies CaptureJobPayload,
    host: politenessKey(url),
    dedupeKey: `recheck:${alexandriaId}:${dueKey}`,
    maxAttempts: 3,
  }));
}

/**
 * Queues the checks that are due (their `next_check_at` passed): records with a file, a URL to
 * check, and not blocked by a moderator. Returns how many were queued.
 */
export async function queueDueRechecks(db: Db, limit = RECHECKS_PER_TURN): Promise<number> {
  const due = await db
    .select({
      alexandriaId: harvestedRecords.alexandriaId,
      url: harvestedRecords.distributionUrl,
      dueKey: sql<string>`extract(epoch from ${harvestedRecords.nextCheckAt})::text`,
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(
      and(
        lte(harvestedRecords.nextCheckAt, sql`now()`),
        isNotNull(harvestedRecords.distributionUrl),
        isNotNull(alexandrias.cid),
        ne(alexandrias.status, 'blocked'),
      ),
    )
    .orderBy(harvestedRecords.nextCheckAt)
    .limit(limit);
  const targets = due.flatMap((row) => (row.url ? [{ alexandriaId: row.alexandriaId, url: row.url, dueKey: row.dueKey }] : []));
  const queued = await enqueueMany(db, recheckJobs(targets));
  return queued.filter((entry) => entry.created).length;
}

/**
 * Makes the checks of `alexandriaIds` (or of every watched record) due now, for `npm run recheck`,
 * or those of one harvest source's records its catalogue still lists (`harvestSourceId`,
 * «Comprobar los archivos ahora»); returns the records made due.
 */
export async function makeDueNow(db: Db, { alexandriaIds, harvestSourceId }: { alexandriaIds?: readonly number[]; harvestSourceId?: number } = {}): Promise<number[]> {
  const rows = await db
    .update(harvestedRecords)
    .set({ nextCheckAt: sql`now()` })
    .where(
      and(
        isNotNull(harvestedRecords.distributionUrl),
        // What `queueDueRechecks` would check: a file, and a record no moderator blocked.
        sql`exists (select 1 from ${alexandrias} a where a.id = ${harvestedRecords.alexandriaId} and a.cid is not null and a.status <> 'blocked')`,
        alexandriaIds ? sql`${harvestedRecords.alexandriaId} in ${alexandriaIds.length ? alexandriaIds : [-1]}` : undefined,
        harvestSourceId === undefined ? undefined : eq(harvestedRecords.harvestSourceId, harvestSourceId),
        // A record its catalogue withdrew keeps its copy, and its URL is no longer the catalogue's word.
        harvestSourceId === undefined ? undefined : isNull(harvestedRecords.withdrawnAt),
      ),
    )
    .returning({ alexandriaId: harvestedRecords.alexandriaId });
  return rows.map((row) => row.alexandriaId);
}
