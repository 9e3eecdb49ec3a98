/**
 * What a complete run does with the records of its source that the catalogue no longer lists:
 * marks them withdrawn ("retirado del catálogo", with the date, never deleted), unless too many of
 * the catalogue's datasets went at once.
 *
 * A portal losing a large part of its datasets from one day to the next is far more often a portal
 * in trouble than its publishers' decision: CKAN's search index half rebuilt answers
 * `package_search` with a fraction of the catalogue, a portal moves to new identifiers. Withdrawn
 * records are public (`/desaparecidos`, the Atom feeds), so one such reading would publish
 * hundreds of false disappearances. A run that finds more than `WITHDRAWALS_AT_ONCE` of its
 * catalogue's datasets gone withdraws none of them on its word alone: it names itself on its
 * source (`withdrawals_held_by`) and says so in its errors. The next complete run withdraws what
 * neither reading listed, and holds again only what it alone misses. So a real mass removal is
 * recorded one run later (a day, by default), and a broken index never is.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, harvestedRecords, harvestSources, statusHistory } from '../db/schema.ts';

/**
 * The most datasets one run withdraws on its own reading: `datasets`, or `share` of those its
 * source listed, whichever is more. Counted in datasets, not records: a dataset of twelve files
 * is one decision of its publisher.
 */
export const WITHDRAWALS_AT_ONCE = { datasets: 10, share: 0.2 } as const;

/** The history line of a record whose dataset left its catalogue: what the archive keeps of it depends on whether its file was captured. */
const WITHDRAWN_WITH_COPY = 'Retirado del catálogo: la fuente ya no lo lista. El archivo conserva el registro y su copia.';
const WITHDRAWN_WITHOUT_COPY = 'Retirado del catálogo: la fuente ya no lo lista. El archivo conserva el registro, pero no llegó a capturar su documento.';

export interface Withdrawals {
  /** Records this run marked withdrawn. */
  withdrawn: number;
  /** Why some unseen records were not, for the run's errors; null when none was held. */
  held: string | null;
}

/**
 * Marks withdrawn the records of the source `harvestSourceId` that its complete run `importId`
 * did not see: all of them or, past `WITHDRAWALS_AT_ONCE`, only those that the run holding
 * withdrawals before (`withdrawals_held_by`) did not see either, and this run holds the rest.
 */
export async function withdrawUnseen(db: Db, harvestSourceId: number, importId: number): Promise<Withdrawals> {
  return db.transaction(async (tx) => {
    const [source] = await tx
      .select({ heldBy: harvestSources.withdrawalsHeldBy })
      .from(harvestSources)
      .where(eq(harvestSources.id, harvestSourceId))
      .for('update');
    const heldBy = source?.heldBy ?? null;
    const unseen = sql`${harvestedRecords.lastSeenImportId} is distinct from ${importId}`;
    const ofSource = and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt));
    const [tally] = (
      (await tx.execute(sql`
        select count(distinct ${harvestedRecords.datasetIdentifier})::int as listed,
               count(distinct ${harvestedRecords.datasetIdentifier}) filter (where ${unseen})::int as unseen
          from ${harvestedRecords} where ${ofSource}`)) as unknown as { rows: Array<{ listed: number; unseen: number }> }
    ).rows;
    const listed = Number(tally?.listed ?? 0);
    const unseenDatasets = Number(tally?.unseen ?? 0);
    const hold = unseenDatasets > Math.max(WITHDRAWALS_AT_ONCE.datasets, Math.floor(listed * WITHDRAWALS_AT_ONCE.share));
    // Held: only what the held run missed as well. A record it never saw has an older (or no) run.
    const missedTwice = heldBy === null ? sql`false` : sql`coalesce(${harvestedRecords.lastSeenImportId} < ${heldBy}, true)`;
    const gone = await tx
      .update(harvestedRecords)
      .set({ withdrawnAt: sql`now()` })
      .where(and(ofSource, unseen, hold ? missedTwice : undefined))
      .returning({ dataset: harvestedRecords.datasetIdentifier });
    const confirmed = new Set(gone.map((row) => row.dataset)).size;
    const waiting = unseenDatasets - confirmed;
    const stillHeld = hold && waiting > 0;
    const nextHeldBy = stillHeld ? importId : null;
    if (nextHeldBy !== heldBy) await tx.update(harvestSources).set({ withdrawalsHeldBy: nextHeldBy }).where(eq(harvestSources.id, harvestSourceId));
    if (gone.length > 0) {
      // One statement, whatever their number: those withdrawn just now carry this transaction's now().
      await tx.execute(sql`
        insert into ${statusHistory} (alexandria_id, from_status, to_status, reason)
        select a.id, a.status, a.status,
               case when a.cid is null then ${WITHDRAWN_WITHOUT_COPY} else ${WITHDRAWN_WITH_COPY} end
          from ${alexandrias} a join ${harvestedRecords} h on h.alexandria_id = a.id
         where h.harvest_source_id = ${harvestSourceId} and h.withdrawn_at = now()`);
    }
    return { withdrawn: gone.length, held: stillHeld ? heldMessage(waiting, listed, confirmed) : null };
  });
}

/** The run's note when it held `waiting` of the `listed` datasets, and withdrew the `confirmed` ones two runs missed. */
function heldMessage(waiting: number, listed: number, confirmed: number): string {
  const count = (n: number) => n.toLocaleString('es');
  const datasets = (n: number) => `${count(n)} ${n === 1 ? 'conjunto' : 'conjuntos'} de datos`;
  const before = confirmed === 0 ? '' : `${confirmed === 1 ? 'Se retiró' : 'Se retiraron'} ${datasets(confirmed)} que tampoco listaba la cosecha anterior. `;
  return (
    `${before}El catálogo dejó de listar ${datasets(waiting)} de los ${count(listed)} que listaba: demasiados de una vez para darlos por retirados ` +
    `con una sola lectura (suele ser el índice del portal, no sus datos). Siguen como estaban; si la próxima cosecha tampoco los lista, se marcarán retirados.`
  );
}
