/**
 * One file's fixity check, and what a failed one does to the records that hold the file.
 *
 * The check walks the file's whole DAG through `ContentStore.blocks`, which reads every block and
 * hashes it against its CID before yielding it, as the gateway does while it streams: the audit
 * and a download agree on what "intact" means. A block altered on disk, a missing block, or a root
 * that is not a file is a failure; any other error (the disk unreadable, the folder unmounted)
 * says nothing of the file and is thrown, so the slice is tried again rather than every record
 * marked broken.
 */
import { and, eq, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { formatDate } from '../../format.ts';
import type { Db } from '../db/index.ts';
import { aletheias, alexandrias, fixityFailures, harvestedRecords, recordVersions, sheetPreviews, statusHistory } from '../db/schema.ts';
import { CAPTURE_JOB, type CaptureJobPayload } from '../harvest/capture-job.ts';
import { politenessKey } from '../jobs/hosts.ts';
import { enqueueMany } from '../jobs/index.ts';
import { CorruptBlockError, MissingBlockError, NotAFileError, NotInStoreError, type ContentStore } from '../storage/index.ts';
import { AUDIT_REASON_PREFIX } from './reasons.ts';

export type FixityFailureKind = (typeof fixityFailures.$inferInsert)['kind'];

export type FileAudit =
  | { ok: true; bytes: number }
  | { ok: false; bytes: number; kind: FixityFailureKind; blockCid: string | null; reason: string };

/** Reads and hashes every block of `cid`; see the module's header for what counts as a failure. */
export async function auditFile(store: ContentStore, cid: string, signal?: AbortSignal): Promise<FileAudit> {
  let bytes = 0;
  try {
    for await (const block of store.blocks(cid)) {
      bytes += block.bytes.byteLength;
      signal?.throwIfAborted();
    }
    return { ok: true, bytes };
  } catch (error) {
    if (error instanceof CorruptBlockError) {
      return { ok: false, bytes, kind: 'corrupt', blockCid: error.cid, reason: `el bloque ${error.cid} ya no coincide con su hash SHA-256 (alterado en el disco)` };
    }
    if (error instanceof MissingBlockError) {
      return { ok: false, bytes, kind: 'missing', blockCid: error.cid, reason: `falta el bloque ${error.cid} en el almacén` };
    }
    if (error instanceof NotInStoreError) {
      return { ok: false, bytes, kind: 'missing', blockCid: error.cid, reason: 'el archivo ya no está en el almacén' };
    }
    if (error instanceof NotAFileError) {
      return { ok: false, bytes, kind: 'unreadable', blockCid: error.cid, reason: 'el bloque raíz ya no describe un archivo' };
    }
    throw error;
  }
}

export interface FailureOutcome {
  /** Records whose current file it is, marked `broken` now. */
  markedBroken: number[];
  /** Records whose re-capture was queued (their source still has the file, as far as the archive knows). */
  recaptured: number[];
}

/**
 * Records a failed file once per pass (a slice tried again finds it recorded and does nothing),
 * and tells every record that holds it, in one transaction: a record whose current file it is
 * becomes `broken` with the public reason in its history (a blocked one keeps its status, the
 * reason noted); one that holds it as an older version, a proof or a sheet preview gets a line of
 * history. Afterwards, a record still available at its source (a harvested URL not gone) gets a
 * capture queued, as a check of its URL.
 */
export async function recordFailure(db: Db, runId: number, cid: string, audit: Extract<FileAudit, { ok: false }>): Promise<FailureOutcome | null> {
  const outcome = await db.transaction(async (tx) => {
    const [known] = await tx
      .select({ id: fixityFailures.id })
      .from(fixityFailures)
      .where(and(eq(fixityFailures.runId, runId), eq(fixityFailures.cid, cid)));
    if (known) return null;
    const [failure] = await tx
      .insert(fixityFailures)
      .values({ runId, cid, blockCid: audit.blockCid, kind: audit.kind, reason: audit.reason })
      .returning({ foundAt: fixityFailures.foundAt });
    const date = formatDate(failure!.foundAt);

    const current = await tx.select({ id: alexandrias.id, status: alexandrias.status }).from(alexandrias).where(eq(alexandrias.cid, cid));
    const markedBroken: number[] = [];
    for (const record of current) {
      const toStatus = record.status === 'blocked' ? 'blocked' : 'broken';
      if (toStatus === 'broken' && record.status !== 'broken') {
        await tx.update(alexandrias).set({ status: 'broken', updatedAt: sql`now()` }).where(eq(alexandrias.id, record.id));
        markedBroken.push(record.id);
      }
      await tx.insert(statusHistory).values({
        alexandriaId: record.id,
        fromStatus: record.status,
        toStatus,
        reason: `${AUDIT_REASON_PREFIX} del ${date}: ${audit.reason}. La copia del archivo está dañada y no se ofrece hasta repararla.`,
      });
    }

    const currentIds = new Set(current.map((record) => record.id));
    const others = await tx
      .selectDistinct({ id: sql<number>`holder.alexandria_id` })
      .from(
        sql`(
          select ${recordVersions.alexandriaId} as alexandria_id from ${recordVersions} where ${recordVersions.cid} = ${cid}
          union select ${aletheias.alexandriaId} from ${aletheias} where ${aletheias.cid} = ${cid}
          union select ${sheetPreviews.alexandriaId} from ${sheetPreviews} where ${sheetPreviews.cid} = ${cid}
        ) as holder`,
      );
    const noted = others.map((row) => Number(row.id)).filter((id) => !currentIds.has(id));
    if (noted.length > 0) {
      const records = await tx.select({ id: alexandrias.id, status: alexandrias.status }).from(alexandrias).where(inArray(alexandrias.id, noted));
      await tx.insert(statusHistory).values(
        records.map((record) => ({
          alexandriaId: record.id,
          fromStatus: record.status,
          toStatus: record.status,
          reason: `${AUDIT_REASON_PREFIX} del ${date}: un archivo del registro (CID ${cid}, una versión anterior, una prueba o una vista de hoja) está dañado: ${audit.reason}.`,
        })),
      );
    }
    return { markedBroken, currentIds: [...currentIds] };
  });
  if (!outcome) return null;
  const recaptured = await queueRecaptures(db, runId, outcome.currentIds);
  return { markedBroken: outcome.markedBroken, recaptured };
}

/**
 * Queues a capture of each record's URL when its source still has it (a harvested record with a
 * URL that is not "desaparecido en origen"), through the capture job as a check of the URL, as
 * `harvest/watch.ts` queues its checks. One per record and pass.
 */
async function queueRecaptures(db: Db, runId: number, alexandriaIds: readonly number[]): Promise<number[]> {
  if (alexandriaIds.length === 0) return [];
  const targets = await db
    .select({ alexandriaId: harvestedRecords.alexandriaId, url: harvestedRecords.distributionUrl })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(
      and(
        inArray(harvestedRecords.alexandriaId, [...alexandriaIds]),
        isNotNull(harvestedRecords.distributionUrl),
        isNull(harvestedRecords.goneSince),
        ne(alexandrias.status, 'blocked'),
      ),
    );
  const jobs = targets.flatMap(({ alexandriaId, url }) =>
    url
      ? [
          {
            kind: CAPTURE_JOB,
            payload: { alexandriaId, url, repair: true } satisfies CaptureJobPayload,
            host: politenessKey(url),
            dedupeKey: `fixity-recapture:${runId}:${alexandriaId}`,
            maxAttempts: 3,
          },
        ]
      : [],
  );
  await enqueueMany(db, jobs);
  return targets.map((target) => target.alexandriaId);
}
