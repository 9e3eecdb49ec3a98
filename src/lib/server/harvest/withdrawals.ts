/**
 * What a complete run does with the records of its source that the catalogue no longer lists:
 * marks them withdrawn ("retirado del catálogo", with the date, never deleted), unless too many of
 * the catalogue's datasets went at once.
 *
 * A file a dataset no longer offers, while the dataset itself is still listed, is withdrawn at once:
 * its publisher changed the dataset. A whole dataset gone is another matter when many go together:
 * a portal losing a large part of its datasets from one day to the next is far more often a portal
 * in trouble (CKAN's search index half rebuilt answers `package_search` with a fraction of the
 * catalogue) than its publishers' decision. Withdrawn records are public (`/desaparecidos`, the
 * Atom feeds), so one such reading would publish hundreds of false disappearances. A run that finds
 * more than `WITHDRAWALS_AT_ONCE` of the datasets listed before it gone withdraws none of them on
 * its word alone: it names itself on its source (`withdrawals_held_by`) and says so in its errors.
 * A complete run at least `SECOND_READING_AFTER` later withdraws the datasets neither reading
 * listed, and holds again what it alone misses, if that is still too many; a run sooner than that
 * holds the same way without taking the first one's place. So a real mass removal is recorded a
 * scheduled run later (a day, by default), and an index broken for less than that never is.
 */
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, harvestedRecords, harvestSources, imports, statusHistory } from '../db/schema.ts';
import { formatCount } from '../../text.ts';

/**
 * The most datasets one run withdraws on its own reading: `datasets`, or `share` of those its
 * source listed before it, whichever is more. Counted in datasets, not records: a dataset of
 * twelve files is one decision of its publisher.
 */
export const WITHDRAWALS_AT_ONCE = { datasets: 10, share: 0.2 } as const;

/**
 * How long after the run that held withdrawals a second reading may confirm them: a moderator's
 * «Cosechar ahora» a minute later would read the same broken index again.
 */
export const SECOND_READING_AFTER = { sql: '12 hours', words: '12 horas' } as const;

/** The history line of a record whose dataset left its catalogue: what the archive keeps of it depends on whether its file was captured. */
const WITHDRAWN_WITH_COPY = 'Retirado del catálogo: la fuente ya no lo lista. El archivo conserva el registro y su copia.';
const WITHDRAWN_WITHOUT_COPY = 'Retirado del catálogo: la fuente ya no lo lista. El archivo conserva el registro, pero no llegó a capturar su documento.';

export interface Withdrawals {
  /** Records this run marked withdrawn. */
  withdrawn: number;
  /** Why some unseen records were not, for the run's errors; null when none was held. */
  held: string | null;
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Marks withdrawn the records of the source `harvestSourceId` that its complete run `importId`
 * did not see: those of datasets it still lists at once, and those of the datasets it lists no
 * more unless too many went (then only those a second reading confirms; see the header).
 */
export async function withdrawUnseen(db: Db, harvestSourceId: number, importId: number): Promise<Withdrawals> {
  return db.transaction(async (tx) => {
    const [source] = await tx
      .select({
        heldBy: harvestSources.withdrawalsHeldBy,
        // Whether the held run is old enough for this one to be its second reading (one whose
        // import is gone is: there is nothing to wait for).
        ripe: sql<boolean>`coalesce((select i.created_at <= now() - ${SECOND_READING_AFTER.sql}::interval
          from ${imports} i where i.id = ${harvestSources.withdrawalsHeldBy}), true)`,
      })
      .from(harvestSources)
      .where(eq(harvestSources.id, harvestSourceId))
      .for('update');
    const heldBy = source?.heldBy ?? null;
    const confirming = heldBy !== null && source!.ripe;
    const unseen = sql`${harvestedRecords.lastSeenImportId} is distinct from ${importId}`;
    const ofSource = and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt))!;
    // Each dataset still listed: gone (this run saw none of its records), missed by the held run
    // as well (nor did it), and listed before this run (not one it found new).
    const datasets = sql`
      select ${harvestedRecords.datasetIdentifier} as dataset,
             bool_and(${unseen}) as gone,
             bool_and(coalesce(${harvestedRecords.lastSeenImportId} < ${confirming ? heldBy : null}::int, ${confirming}::boolean)) as twice,
             bool_or(${harvestedRecords.createdAt} < (select created_at from ${imports} where id = ${importId})) as before
        from ${harvestedRecords} where ${ofSource}
       group by ${harvestedRecords.datasetIdentifier}`;
    const [tally] = (
      (await tx.execute(sql`
        select count(*) filter (where before)::int as listed,
               count(*) filter (where gone)::int as gone,
               count(*) filter (where gone and twice)::int as confirmed
          from (${datasets}) d`)) as unknown as { rows: Array<{ listed: number; gone: number; confirmed: number }> }
    ).rows;
    const listed = Number(tally?.listed ?? 0);
    const confirmed = Number(tally?.confirmed ?? 0);
    const waiting = Number(tally?.gone ?? 0) - confirmed;
    // The datasets a second reading confirms go whatever their number; the rest, when not too many.
    const hold = waiting > Math.max(WITHDRAWALS_AT_ONCE.datasets, Math.floor(listed * WITHDRAWALS_AT_ONCE.share));
    // Held: the unseen files of datasets still listed, and the datasets both readings missed.
    const withdrawable = sql`${harvestedRecords.datasetIdentifier} in (select dataset from (${datasets}) d where not gone or twice)`;
    const withdrawn = await markWithdrawn(tx, harvestSourceId, and(ofSource, unseen, hold ? withdrawable : undefined)!);
    // Held again by this run; or, too soon to be a second reading, still by the one before.
    const nextHeldBy = !hold ? null : confirming || heldBy === null ? importId : heldBy;
    if (nextHeldBy !== heldBy) await tx.update(harvestSources).set({ withdrawalsHeldBy: nextHeldBy }).where(eq(harvestSources.id, harvestSourceId));
    return { withdrawn, held: hold ? heldMessage(waiting, listed, confirmed) : null };
  });
}

/** Marks withdrawn the records `where` picks, each with its line of history; returns how many. */
async function markWithdrawn(tx: Tx, harvestSourceId: number, where: SQL): Promise<number> {
  const gone = await tx.update(harvestedRecords).set({ withdrawnAt: sql`now()` }).where(where).returning({ id: harvestedRecords.alexandriaId });
  if (gone.length === 0) return 0;
  // One statement, whatever their number: those withdrawn just now carry this transaction's now().
  await tx.execute(sql`
    insert into ${statusHistory} (alexandria_id, from_status, to_status, reason)
    select a.id, a.status, a.status,
           case when a.cid is null then ${WITHDRAWN_WITHOUT_COPY} else ${WITHDRAWN_WITH_COPY} end
      from ${alexandrias} a join ${harvestedRecords} h on h.alexandria_id = a.id
     where h.harvest_source_id = ${harvestSourceId} and h.withdrawn_at = now()`);
  // Their pages changed («Retirado del catálogo»): so did their date of change, which the sitemap,
  // schema.org and DCAT state, as a return to the catalogue moves it too (run.ts). Lists in
  // «recently updated» order (collections, the API's default) show them first, marked withdrawn.
  await tx.execute(sql`
    update ${alexandrias} a set updated_at = now()
      from ${harvestedRecords} h
     where h.alexandria_id = a.id and h.harvest_source_id = ${harvestSourceId} and h.withdrawn_at = now()`);
  return gone.length;
}

/** The run's note when it held `waiting` of the `listed` datasets, and withdrew the `confirmed` ones two readings missed. */
function heldMessage(waiting: number, listed: number, confirmed: number): string {
  const count = (n: number) => formatCount(n);
  const datasets = (n: number) => `${count(n)} ${n === 1 ? 'conjunto' : 'conjuntos'} de datos`;
  const before = confirmed === 0 ? '' : `${confirmed === 1 ? 'Se retiró' : 'Se retiraron'} ${datasets(confirmed)} que tampoco vio una cosecha anterior. `;
  return (
    `${before}El catálogo dejó de listar ${datasets(waiting)} de los ${count(listed)} que listaba: demasiados de una vez para darlos por retirados ` +
    `con una sola lectura (suele ser el índice del portal, no sus datos). Siguen como estaban; se marcarán retirados si tampoco los lista ` +
    `una cosecha hecha al menos ${SECOND_READING_AFTER.words} después de la que lo notó.`
  );
}
