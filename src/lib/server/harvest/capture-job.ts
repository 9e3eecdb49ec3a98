/**
 * The `capture` job (issue #18): the archive fetches a harvested record's file itself and keeps
 * it, with its provenance.
 *
 * The bytes take the upload's path (`uploads/add-asset.ts`): streamed through `inspect` (SHA-256,
 * size limit, the first bytes for `detectContent`) into a staging folder, never held in memory;
 * then one transaction writes the capture row and the record (CID, real type, checksum, size,
 * `on_line` unless a moderator blocked it), moves the blocks into the store last (journalled) and pins them locally. A record
 * whose file the archive captured itself from a registered catalogue is `on_line` (DECISIONS.md).
 *
 * What the catalogue declared is compared with the bytes: a different checksum (SHA-256, or the
 * MD5 or SHA-1 catalogues declare as often, computed in the same pass as the SHA-256), size or type
 * is kept as the capture's `mismatch`, in Spanish; the file is kept anyway, since it is what the
 * publisher serves. A failed capture writes a capture row with its reason too, and fails its job:
 * at once (`PermanentJobError`) when trying again cannot help (a 404, a refused address, a file
 * over the limit), else with a retry and backoff.
 *
 * Politeness beyond the queue's own per-host delay: a site's robots.txt `Crawl-delay`, and the
 * `Retry-After` of a 429 or 503, hold the job's host back for every worker on the database
 * (`deferHost`, at most an hour, never less than the configured delay).
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { ASSET_TYPES, type AssetStatus, type AssetType } from '../../domain/constants.ts';
import { formatCount, readableUrl } from '../../format.ts';
import { CaptureError, captureFetch, retryAfterMs, RobotsPolicy, type CaptureFetchOptions, type CaptureResponse } from '../capture/index.ts';
import { detectContent, documentFormat, fileExtension, mediaType, type ContentKind } from '../content-type.ts';
import type { Db } from '../db/index.ts';
import { anyOf, jsonRecords } from '../db/json-values.ts';
import { alexandrias, captures, harvestedRecords, harvestSources, imports, statusHistory } from '../db/schema.ts';
import { PayloadTooLargeError } from '../http/errors.ts';
import { completeMany, DEFAULT_POLITENESS, deferHost, enqueueMany, HandBackJobError, PermanentJobError, type Job, type JobHandler, type JobLease, type NewJob } from '../jobs/index.ts';
import { politenessKey } from '../jobs/hosts.ts';
import { committedPinning, pinCids, queueRemotePins, type PinningProvider } from '../pinning/index.ts';
import type { AddResult, ContentStore, StagedUpload, StagingArea } from '../storage/index.ts';
import { hasSheets, sheetPreviewsJob } from '../spreadsheets/preview-job.ts';
import { inspect } from '../uploads/inspect.ts';
import { AUDIT_REASON_PREFIX } from '../fixity/reasons.ts';
import { addVersions } from '../versions/index.ts';
import { CaptureGroups } from './capture-groups.ts';
import { catalogueNote, fileNameOf } from './map.ts';
import { DEFAULT_WATCH, postponeCheck, recordCheck, watchAfterCaptures, type CheckCapture, type WatchSettings } from './watch.ts';

/** The job kind `runHarvest` queues and `captureHandler` runs. */
export const CAPTURE_JOB = 'capture';

export interface CaptureJobPayload {
  alexandriaId: number;
  url: string;
  /** The harvest run (import) that queued a first capture, told of a capture that fails for good. */
  importId?: number;
  /**
   * A later check of a record that has its file (`watch.ts`): a conditional request, a new
   * version when the bytes changed, and a 404, 410 or silence counted towards a disappearance.
   */
  recheck?: boolean;
  /**
   * A check asked by the fixity audit (`fixity/`), whose stored copy is damaged: unconditional,
   * and the same bytes again rewrite the copy's blocks and give back the status the audit took.
   */
  repair?: boolean;
}

export interface CaptureContext {
  store: ContentStore;
  staging: StagingArea;
  /** Besides the local store (pinned in the transaction), providers asked afterwards. */
  pinning?: readonly PinningProvider[];
  /** `captureAllowPrivate` and `captureMaxBytes` from the configuration. */
  allowPrivate: boolean;
  maxBytes: number;
  /** For tests: other limits of `captureFetch` (timeouts, a resolver). */
  fetchOptions?: Omit<CaptureFetchOptions, 'allowPrivate' | 'maxBytes' | 'signal'>;
  /** Whose robots.txt is asked before each capture; by default one policy per handler, cached per site. */
  robots?: RobotsPolicy;
  /**
   * The queue's pause between two requests to one host (`config.worker.perHostDelayMs`), the least a
   * host asking for a pause is held back; `DEFAULT_POLITENESS.perHostDelayMs` when not given.
   */
  hostDelayMs?: number;
  /** How captured URLs are checked again (`watch.ts`); `DEFAULT_WATCH` when not given. */
  watch?: WatchSettings;
}

/** Answers of a recheck that say the file is gone from its URL. */
const GONE_STATUSES = new Set([404, 410]);

/** Failures of a recheck that say the origin does not answer at all. */
const UNREACHABLE: ReadonlySet<string> = new Set(['dns_failed', 'connect_failed', 'connect_timeout']);

/** Answers that say "not now" rather than "never": the job is retried. */
const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Answers whose `Retry-After` holds back the whole host (RFC 9110: "too many requests", "unavailable"). */
const HOST_BUSY_STATUSES = new Set([429, 503]);

/** A checksum algorithm a catalogue may declare (by `algorithmName`): its node:crypto name and its label. */
const CHECKSUM_ALGORITHMS: Readonly<Record<string, { hash: string; label: string }>> = {
  md5: { hash: 'md5', label: 'MD5' },
  sha1: { hash: 'sha1', label: 'SHA-1' },
  sha224: { hash: 'sha224', label: 'SHA-224' },
  sha256: { hash: 'sha256', label: 'SHA-256' },
  sha384: { hash: 'sha384', label: 'SHA-384' },
  sha512: { hash: 'sha512', label: 'SHA-512' },
};

/** The declared checksum (`algorithm:value`) when the archive can check it, with its algorithm's hash and label. */
function checkableChecksum(declared: string | null): { hash: string; label: string; value: string } | null {
  const [algorithm, value] = declared?.split(':', 2) ?? [];
  const known = algorithm ? CHECKSUM_ALGORITHMS[algorithm] : undefined;
  return known && value ? { ...known, value } : null;
}

/** The handler of `capture` jobs, for `runWorker({ handlers: { [CAPTURE_JOB]: captureHandler(context) } })`. */
export function captureHandler(context: CaptureContext): JobHandler {
  const robots = context.robots ?? new RobotsPolicy({ fetch: { ...context.fetchOptions, allowPrivate: context.allowPrivate } });
  const hostDelayMs = context.hostDelayMs ?? DEFAULT_POLITENESS.perHostDelayMs;
  const watch = context.watch ?? DEFAULT_WATCH;
  // One per handler, so per worker (and its database): the files it captures at once are written together.
  let groups: CaptureGroups<KeptFile> | undefined;
  const declaredOf = declaredLoader();
  return async (job, { db, signal, hostDone = () => {}, batch }) => {
    groups ??= new CaptureGroups<KeptFile>(context.staging, (staged, files) => writeGroup(db, context, staged, files));
    const payload = job.payload as CaptureJobPayload;
    // The key its jobs were queued under, so the pause reaches them all.
    const host = job.host ?? politenessKey(payload.url);
    const holdHostBack = (delayMs: number) => deferHost(db, host, Math.max(delayMs, hostDelayMs));
    const declared = await declaredOf(db, job, batch);
    if (!declared) throw new PermanentJobError(`El registro ${payload.alexandriaId} ya no existe.`);
    // A recheck of a record whose first capture never came is that first capture.
    const recheck = (payload.recheck === true || payload.repair === true) && declared.cid !== null ? { currentCid: declared.cid, repair: payload.repair === true } : null;
    // Another run's job captured it already: its file is kept, not fetched and stored twice.
    if (declared.cid && !recheck) return;
    const base = {
      alexandriaId: payload.alexandriaId,
      requestedUrl: payload.url,
      declaredSize: declared.size,
      declaredChecksum: declared.checksum,
      purpose: recheck ? ('recheck' as const) : ('capture' as const),
    };
    const { purpose: _purpose, ...checkBase } = base;
    const started = Date.now();
    let response: CaptureResponse | undefined;
    try {
      // A site that asks crawlers to keep out of a path is obeyed (RFC 9309), and told why in the capture.
      const verdict = await robots.check(payload.url);
      if (!verdict.allowed) {
        // robots.txt could not be read (RFC 9309: keep out for now), which is not the site saying no:
        // the verdict is kept for a while, so the site's captures wait until it is asked again
        // rather than spend their attempts on it, unless no retry can help (a refused address).
        if (verdict.unreachable && verdict.siteFailure?.retryable !== false) await holdHostBack(robots.failureTtlMs);
        // The site itself cannot be reached: that failure, retried or not as any capture's would be.
        if (verdict.siteFailure) throw verdict.siteFailure;
        if (verdict.unreachable) throw new Error(`no se pudo leer el robots.txt del sitio, y sin él no se captura (${verdict.reason})`);
        throw new PermanentJobError(`robots.txt del sitio no permite capturar esta dirección (${verdict.reason})`);
      }
      // Its Crawl-delay counts from this request: the host's next job waits it out.
      if (verdict.crawlDelayMs !== null) await holdHostBack(verdict.crawlDelayMs);
      response = await captureFetch(payload.url, {
        ...context.fetchOptions,
        allowPrivate: context.allowPrivate,
        maxBytes: context.maxBytes,
        signal,
        // A repair needs the bytes themselves: a 304 would leave the damaged copy as it is.
        ...(recheck && !recheck.repair ? await validatorsOf(db, payload.alexandriaId, recheck.currentCid) : {}),
      });
      if (recheck && response.status === 304) {
        response.body.destroy();
        const check = { ...checkBase, ...responseFields(response), cid: recheck.currentCid, durationMs: Date.now() - started };
        return await recordCheck(db, watch, check, { kind: 'unchanged' });
      }
      if (response.status < 200 || response.status > 299) {
        response.body.destroy();
        if (recheck && GONE_STATUSES.has(response.status)) {
          const reason = `el servidor respondió HTTP ${response.status}`;
          const check = { ...checkBase, ...responseFields(response), durationMs: Date.now() - started, errorReason: reason };
          return await recordCheck(db, watch, check, { kind: 'missing', reason });
        }
        const wait = HOST_BUSY_STATUSES.has(response.status) ? retryAfterMs(response.retryAfter) : null;
        if (wait !== null) await holdHostBack(wait);
        throw refusedStatus(response, wait);
      }
      return await keep(db, context, groups, job.lockedBy === null ? null : job, payload, declared, response, base, started, recheck, hostDone);
    } catch (error) {
      // The worker is stopping, or the group the file was in was refused for another file: the job
      // goes back to the queue untried, with nothing to record.
      if (signal.aborted || error instanceof HandBackJobError) throw error;
      const failure = asJobError(error);
      // No answer at all from the origin: for a watched URL, a failed check, not a failed job.
      if (recheck && error instanceof CaptureError && UNREACHABLE.has(error.reason)) {
        const check = { ...checkBase, durationMs: Date.now() - started, errorReason: failure.message };
        return await recordCheck(db, watch, check, { kind: 'missing', reason: failure.message });
      }
      await db.insert(captures).values({
        ...base,
        ...(response ? responseFields(response) : {}),
        durationMs: Date.now() - started,
        errorReason: failure.message,
      });
      if (failure instanceof PermanentJobError || job.attempts >= job.maxAttempts) {
        if (payload.importId !== undefined) await noteFailure(db, payload.importId, payload.alexandriaId, payload.url, failure.message);
        // Its next check must still come: the job's dedupe key names the due date it had.
        if (recheck) await postponeCheck(db, watch, payload.alexandriaId);
      }
      throw failure;
    }
  };
}

/** What the catalogue declared of a record's file, and the record's type and current file. */
interface Declared {
  size: number | null;
  checksum: string | null;
  type: AssetType;
  cid: string | null;
}

/**
 * Reads `Declared` for the capture jobs claimed together (`JobContext.batch`) in one query, when
 * the first of them starts: the others, which wait for their host's turn, find theirs read. What
 * was read goes with the batch (a `WeakMap` keyed by it), so it lasts as long as its jobs do.
 */
function declaredLoader(): (db: Db, job: Job, batch: readonly Job[] | undefined) => Promise<Declared | undefined> {
  const read = new WeakMap<readonly Job[], Promise<Map<number, Declared>>>();
  return async (db, job, batch = [job]) => {
    let facts = read.get(batch);
    if (!facts) {
      const ids = batch.filter((one) => one.kind === job.kind).map((one) => (one.payload as CaptureJobPayload).alexandriaId);
      facts = db
        .select({ id: alexandrias.id, size: harvestedRecords.declaredSize, checksum: harvestedRecords.declaredChecksum, type: alexandrias.type, cid: alexandrias.cid })
        .from(alexandrias)
        .leftJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
        .where(sql`${alexandrias.id} = ${anyOf(ids, 'int')}`)
        .then((rows) => new Map(rows.map(({ id, ...declared }) => [id, declared])));
      read.set(batch, facts);
      // A failed read fails the jobs that asked for it; the next attempt reads again.
      facts.catch(() => read.delete(batch));
    }
    return (await facts).get((job.payload as CaptureJobPayload).alexandriaId);
  };
}

/** The media types of a web page (RFC 2854, XHTML), as a server names them in Content-Type. */
const WEB_PAGE_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/** Streams the body into the store and records the capture and the record, all or nothing. */
async function keep(
  db: Db,
  context: CaptureContext,
  groups: CaptureGroups<KeptFile>,
  lease: JobLease | null,
  payload: CaptureJobPayload,
  declared: { size: number | null; checksum: string | null; type: AssetType },
  response: CaptureResponse,
  base: Record<string, unknown> & { alexandriaId: number; requestedUrl: string; purpose: 'capture' | 'recheck' },
  started: number,
  recheck: { currentCid: string; repair: boolean } | null,
  hostDone: () => void,
): Promise<'completed' | undefined> {
  const watch = context.watch ?? DEFAULT_WATCH;
  // A web page, by the server's own word, where the catalogue declared data is the origin's error
  // or landing page, not the document: the capture fails with that reason, before a byte joins the
  // files captured beside it (a failure there would send them all back to the queue). A check of a
  // kept copy counts it as a disappearance instead, below. Markup found only in the bytes (an
  // «XLS» that is an HTML table or Excel 2003 XML, as government exports often are) is kept for a
  // moderator, its mismatch reported; and a distribution declared as a page («HTML») is kept.
  if (!recheck && declared.type !== 'other' && WEB_PAGE_TYPE.test(response.contentType ?? '')) {
    response.body.destroy();
    throw new PermanentJobError(`el catálogo declara ${ASSET_TYPES[declared.type].label} y el servidor respondió una página web (${response.contentType!.split(';')[0]!.trim()})`);
  }
  let kind: ContentKind = 'binary';
  const checksum = checkableChecksum(declared.checksum);
  // Once the whole body has come, the host is asked nothing more: its turn goes to the next capture
  // while this one's last block is hashed and staged.
  response.body.once('end', hostDone);
  const inspection = inspect(response.body, {
    digests: checksum ? [checksum.hash] : [],
    maxBytes: context.maxBytes,
    tooLargeMessage: `el archivo pasa del límite de ${context.maxBytes} bytes`,
    checkHead(head) {
      kind = detectContent(head);
      if (kind === 'executable') throw new PermanentJobError('el archivo es un programa ejecutable, y el archivo solo guarda documentos y datos');
    },
  });
  // A first capture joins the files being captured beside it in one staged upload and one
  // transaction (`CaptureGroups`); a check stages alone, since most of its outcomes keep nothing.
  const group = recheck ? null : groups.join();
  const staged = recheck ? context.staging.begin() : null;
  let stored: AddResult;
  try {
    stored = await (group ? group.add(inspection.stream) : staged!.add(inspection.stream));
  } catch (error) {
    await staged?.discard().catch((cause: unknown) => console.error('No se pudo limpiar una captura fallida', cause));
    throw error;
  }
  // The bytes are in (if the body's end did not say so already): the host's turn goes to the next
  // capture while this one is written.
  hostDone();
  try {
    const { sha256, size, digests } = inspection.result();
    // `checkHead` set `kind` from a callback, which TypeScript's narrowing cannot see.
    const content = kind as ContentKind;
    const type = realType(declared.type, content);
    const mismatch = mismatches({ declared, digests, size, type, content });
    // A page (HTML) or nothing where the archive holds data is the origin's error page served with
    // a 200, a "soft 404": a failed check that counts towards a disappearance, never a new version.
    if (staged && recheck && !recheck.repair && (size === 0 || content === 'markup') && declared.type !== 'other') {
      await staged.discard();
      const { purpose: _purpose, ...checkBase } = base;
      const reason = size === 0 ? 'el origen respondió un archivo vacío' : 'el origen respondió una página web donde estaba el archivo';
      const check = { ...checkBase, ...responseFields(response), durationMs: Date.now() - started, errorReason: reason };
      await recordCheck(db, watch, check, { kind: 'missing', reason });
      return;
    }
    if (staged && recheck && stored.cid === recheck.currentCid) {
      const { purpose: _purpose, ...checkBase } = base;
      const check = { ...checkBase, ...responseFields(response), cid: stored.cid, sha256, size, durationMs: Date.now() - started, mismatch };
      if (recheck.repair) {
        await repairCopy(db, staged, watch, check, response);
        return;
      }
      // The same bytes again (a server that ignores conditional requests): only the check is kept.
      await staged.discard();
      await recordCheck(db, watch, check, { kind: 'unchanged' });
      return;
    }
    const fileName = fileNameOf(response.finalUrl);
    const kept: KeptFile = {
      lease,
      alexandriaId: payload.alexandriaId,
      capture: { ...base, ...responseFields(response), cid: stored.cid, sha256, size, durationMs: Date.now() - started, mismatch },
      cid: stored.cid,
      sha256,
      size,
      type,
      mimeType: mediaType(content, type),
      fileName,
      // The archive vouches for bytes it captured only when they are a document: an empty answer, or
      // a web page where the catalogue declared nothing more precise, waits for a moderator.
      vouched: size > 0 && content !== 'markup',
      finalUrl: response.finalUrl,
      status: response.status,
    };
    if (group) return (await group.submit(kept)) ? 'completed' : undefined;
    // A check's new version: written as a group of one, its job done in the same transaction.
    const completed = await writeGroup(db, context, staged!, [kept]);
    return lease !== null && completed.has(lease.id) ? 'completed' : undefined;
  } catch (error) {
    group?.leave();
    await staged?.discard().catch((cause: unknown) => console.error('No se pudo limpiar una captura fallida', cause));
    throw error;
  }
}

/**
 * Writes kept files (a group of first captures, `CaptureGroups`, or a check's new version alone)
 * and moves their staged blocks into the store, in one transaction; answers the jobs marked done.
 */
async function writeGroup(db: Db, context: CaptureContext, staged: StagedUpload, files: KeptFile[]): Promise<Set<number>> {
  const cids = [...new Set(files.map((file) => file.cid))];
  const completed = await db.transaction(async (tx) => {
    // First: waiting here for another commit of the same file keeps no job or record row locked.
    await staged.hold(tx);
    const done = await writeKept(tx, context, files);
    // The blocks join the store last, journalled: a failed commit or a crash takes them back.
    await staged.commit(tx);
    await pinCids(tx, committedPinning, cids);
    return done;
  });
  await staged.settle();
  await pinRemotely(db, context, cids);
  return completed;
}

/** A file kept for its record, ready to be written with others in one transaction (`writeKept`). */
interface KeptFile {
  /** The job's lease, to mark it done in the same transaction; null when no worker holds it (a direct call). */
  lease: JobLease | null;
  alexandriaId: number;
  capture: typeof captures.$inferInsert;
  cid: string;
  sha256: string;
  size: number;
  type: AssetType;
  mimeType: string | null;
  fileName: string;
  vouched: boolean;
  finalUrl: string;
  status: number;
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Inserts the capture rows of `files` (one per record, as `writeKept` leaves them), in one
 * statement; answers each record's new capture id. The columns are written out: a column added to
 * `captures` that a kept file fills must be added here too (`error_reason` is a failure's only).
 */
async function insertCaptures(tx: Tx, files: readonly KeptFile[]): Promise<Map<number, number>> {
  const rows = files.map(({ capture }) => ({
    alexandria_id: capture.alexandriaId,
    requested_url: capture.requestedUrl,
    final_url: capture.finalUrl,
    status: capture.status,
    content_type: capture.contentType,
    content_length: capture.contentLength,
    etag: capture.etag,
    last_modified: capture.lastModified,
    cid: capture.cid,
    sha256: capture.sha256,
    size: capture.size,
    duration_ms: capture.durationMs,
    declared_size: capture.declaredSize,
    declared_checksum: capture.declaredChecksum,
    mismatch: capture.mismatch,
    purpose: capture.purpose ?? 'capture',
  }));
  const inserted = (await tx.execute(sql`
    insert into ${captures} (alexandria_id, requested_url, final_url, status, content_type, content_length, etag, last_modified,
      cid, sha256, size, duration_ms, declared_size, declared_checksum, mismatch, purpose)
    select alexandria_id, requested_url, final_url, status, content_type, content_length, etag, last_modified,
      cid, sha256, size, duration_ms, declared_size, declared_checksum, mismatch, purpose
      from ${jsonRecords(
        rows,
        `c(alexandria_id int, requested_url text, final_url text, status int, content_type text, content_length bigint, etag text,
          last_modified text, cid text, sha256 text, size bigint, duration_ms int, declared_size bigint, declared_checksum text,
          mismatch text, purpose text)`,
      )}
    returning id, alexandria_id`)) as unknown as { rows: Array<{ id: number; alexandria_id: number }> };
  const ids = new Map(inserted.rows.map((row) => [Number(row.alexandria_id), Number(row.id)]));
  // One file per record (`writeKept` sees to it), so each record names its own capture.
  if (ids.size !== files.length) throw new Error(`Se insertaron ${ids.size} capturas para ${files.length} archivos.`);
  return ids;
}

/**
 * Writes kept files in the transaction `tx`, a statement for all of them at each step (two for the
 * records when some change their file name): their jobs done, their capture rows, their records
 * (file, real type, `on_line` for a record waiting for its file), their versions, the watch of
 * their URLs, their lines of history, the previews of their sheets and their local pins (the caller
 * commits the staged blocks, last). Returns the jobs marked done (a job whose lease was lost is not,
 * as `complete` would not).
 */
async function writeKept(tx: Tx, context: CaptureContext, claimed: readonly KeptFile[]): Promise<Set<number>> {
  const watch = context.watch ?? DEFAULT_WATCH;
  const completed = await completeMany(tx, claimed.flatMap((file) => (file.lease ? [file.lease] : [])));
  // A job whose lease was lost belongs to the worker that took it back: its file is written by that
  // one, not here too (a second capture row, and a "new version" of the same bytes). And a record
  // twice in one group (two of its captures queued at once) is written once.
  const written = new Set<number>();
  const files = claimed.filter((file) => {
    if (file.lease !== null && !completed.has(file.lease.id)) return false;
    if (written.has(file.alexandriaId)) return false;
    written.add(file.alexandriaId);
    return true;
  });
  if (files.length === 0) return completed;
  const ids = files.map((file) => file.alexandriaId);
  const captureIds = await insertCaptures(tx, files);
  const beforeRows = await tx
    .select({ id: alexandrias.id, status: alexandrias.status, fileName: alexandrias.fileName, catalogue: { name: harvestSources.name, url: harvestSources.url } })
    .from(alexandrias)
    .leftJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
    .leftJoin(harvestSources, eq(harvestSources.id, harvestedRecords.harvestSourceId))
    .where(sql`${alexandrias.id} = ${anyOf(ids, 'int')}`);
  const before = new Map(beforeRows.map((row) => [row.id, row]));
  const records = files.map((file) => {
    const previous = before.get(file.alexandriaId);
    const catalogue = previous?.catalogue?.name ? (previous.catalogue as { name: string; url: string }) : null;
    return {
      id: file.alexandriaId,
      cid: file.cid,
      sha256: file.sha256,
      size: file.size,
      type: file.type,
      mime_type: file.mimeType,
      file_name: file.fileName,
      file_extension: fileExtension(file.fileName),
      // Only a record waiting for its file goes online: a moderator's decision (blocked, broken)
      // stands, and so does one that is online already.
      status: previous?.status === 'under_review' && file.vouched ? 'on_line' : (previous?.status ?? 'under_review'),
      // The capture is told from its row on the record page; the note keeps the catalogue.
      provenance_note: catalogue ? catalogueNote(catalogue, 'captured') : null,
    };
  });
  // The search text is generated from the title, the description and the file name, and an update
  // that sets file_name computes it again: half of this statement's cost. Most captures keep the
  // name the harvest gave the record (the same URL), so they leave file_name out.
  const renames = (record: (typeof records)[number]) => before.get(record.id)?.fileName !== record.file_name;
  for (const rename of [false, true]) {
    const group = records.filter((record) => renames(record) === rename);
    if (group.length === 0) continue;
    const rows = jsonRecords(
      group,
      `v(id int, cid text, sha256 text, size bigint, type asset_type, mime_type text,
        file_name text, file_extension text, status asset_status, provenance_note text)`,
    );
    await tx.execute(sql`
      update ${alexandrias} a set cid = v.cid, type = v.type, formats = array[v.type], status = v.status,
        ${rename ? sql`file_name = v.file_name, ` : sql``}file_extension = v.file_extension, file_size = v.size, file_sha256 = v.sha256,
        mime_type = v.mime_type, provenance_note = v.provenance_note, updated_at = now()
      from ${rows} where a.id = v.id`);
  }
  const versions = await addVersions(
    tx,
    files.map((file) => ({
      alexandriaId: file.alexandriaId,
      cid: file.cid,
      sha256: file.sha256,
      size: file.size,
      type: file.type,
      mimeType: file.mimeType,
      fileName: file.fileName,
      captureId: captureIds.get(file.alexandriaId)!,
    })),
  );
  await watchAfterCaptures(tx, watch, ids);
  const history: Array<{ alexandria_id: number; from_status: AssetStatus | null; to_status: AssetStatus; reason: string }> = [];
  const jobs: NewJob[] = [];
  files.forEach((file, index) => {
    const previous = before.get(file.alexandriaId)?.status ?? null;
    const version = versions[index]!;
    if (version.number > 1) {
      history.push({
        alexandria_id: file.alexandriaId,
        from_status: previous,
        to_status: previous ?? 'under_review',
        reason: `Nueva versión (v${version.number}) capturada desde ${readableUrl(file.finalUrl)} (HTTP ${file.status}): ${
          version.sameAs === null ? 'el archivo cambió en el origen' : `el archivo volvió a ser como en la v${version.sameAs} (los mismos bytes)`
        }; las versiones anteriores siguen disponibles.`,
      });
    }
    if (records[index]!.status === 'on_line' && previous === 'under_review') {
      history.push({
        alexandria_id: file.alexandriaId,
        from_status: previous,
        to_status: 'on_line',
        reason: `Capturado por el archivo desde ${readableUrl(file.finalUrl)} (HTTP ${file.status}).`,
      });
    }
    // A spreadsheet's sheets become searchable previews, by a job committed with the file.
    if (hasSheets(file.type)) jobs.push(sheetPreviewsJob(file.alexandriaId, file.cid));
  });
  if (history.length > 0) {
    await tx.execute(sql`
      insert into ${statusHistory} (alexandria_id, from_status, to_status, reason)
      select alexandria_id, from_status, to_status, reason
        from ${jsonRecords(history, 'h(alexandria_id int, from_status asset_status, to_status asset_status, reason text)')}`);
  }
  if (jobs.length > 0) await enqueueMany(tx as unknown as Db, jobs);
  return completed;
}

/** Besides the local store, the remote providers: asked by the queue (`remote-pin` jobs), paced and retried. */
async function pinRemotely(db: Db, context: CaptureContext, cids: readonly string[]): Promise<void> {
  await queueRemotePins(db, context.pinning ?? [], cids).catch((error: unknown) =>
    console.error('No se pudieron encolar los anclajes remotos; el archivo los buscará de nuevo en unas horas', error),
  );
}

/**
 * The origin sent the very bytes of a copy the fixity audit found damaged: their blocks replace
 * the damaged ones in the store (the staged move overwrites), the check is recorded, and a record
 * the audit marked `broken` gets back the status it had, with a line of history. A status a
 * moderator set after the audit stands.
 */
async function repairCopy(db: Db, staged: StagedUpload, watch: WatchSettings, check: CheckCapture, response: CaptureResponse): Promise<void> {
  await db.transaction(async (tx) => {
    await staged.hold(tx);
    // The last change of status (lines that change none, harvest updates and notes, come between).
    const [last] = await tx
      .select({ fromStatus: statusHistory.fromStatus, toStatus: statusHistory.toStatus, reason: statusHistory.reason })
      .from(statusHistory)
      .where(and(eq(statusHistory.alexandriaId, check.alexandriaId), sql`${statusHistory.fromStatus} is distinct from ${statusHistory.toStatus}`))
      .orderBy(desc(statusHistory.id))
      .limit(1);
    const [record] = await tx.select({ status: alexandrias.status }).from(alexandrias).where(eq(alexandrias.id, check.alexandriaId));
    const brokenByAudit = record?.status === 'broken' && last?.toStatus === 'broken' && last.reason?.startsWith(AUDIT_REASON_PREFIX);
    const restored = brokenByAudit ? (last!.fromStatus ?? 'on_line') : null;
    if (restored) await tx.update(alexandrias).set({ status: restored, updatedAt: sql`now()` }).where(eq(alexandrias.id, check.alexandriaId));
    await tx.insert(statusHistory).values({
      alexandriaId: check.alexandriaId,
      fromStatus: record?.status ?? null,
      toStatus: restored ?? record?.status ?? 'broken',
      reason: `Copia reparada: el origen volvió a servir los mismos bytes (HTTP ${response.status}, ${response.finalUrl}), que sustituyen a los bloques dañados.`,
    });
    // The blocks overwrite the damaged ones; journalled, as every commit.
    await staged.commit(tx);
  });
  await staged.settle();
  await recordCheck(db, watch, check, { kind: 'unchanged' });
}

/** The record's format from its bytes: the declared one when the bytes agree with it. */
function realType(declared: AssetType, content: ContentKind): AssetType {
  if (declared === 'csv' && content === 'text') return 'csv';
  return documentFormat('other', content) ?? 'other';
}

/** How the bytes differ from what the catalogue declared, in Spanish; null when they agree. */
function mismatches({
  declared,
  digests,
  size,
  type,
  content,
}: {
  declared: { size: number | null; checksum: string | null; type: AssetType };
  /** The file's digests (hex) by node:crypto name: SHA-256, and the declared checksum's algorithm. */
  digests: Record<string, string>;
  size: number;
  type: AssetType;
  content: ContentKind;
}): string | null {
  const found: string[] = [];
  const checksum = checkableChecksum(declared.checksum);
  const actual = checksum ? digests[checksum.hash] : undefined;
  if (checksum && actual && checksum.value !== actual) found.push(`el catálogo declara ${checksum.label} ${checksum.value} y el archivo tiene ${actual}`);
  if (declared.size !== null && declared.size !== size) found.push(`el catálogo declara ${formatCount(declared.size)} bytes y el archivo tiene ${formatCount(size)}`);
  const sameFamily = (a: AssetType, b: AssetType) => a === b || (['xls', 'xlsx'].includes(a) && ['xls', 'xlsx'].includes(b));
  if (declared.type !== 'other' && !sameFamily(declared.type, type)) {
    found.push(`el catálogo declara ${ASSET_TYPES[declared.type].label} y el contenido es ${content === 'markup' ? 'HTML o XML' : ASSET_TYPES[type].label}`);
  }
  return found.length ? found.join('; ') : null;
}

function responseFields(response: CaptureResponse) {
  return {
    finalUrl: response.finalUrl,
    status: response.status,
    contentType: response.contentType,
    contentLength: response.contentLength,
    etag: response.etag,
    lastModified: response.lastModified,
  };
}

/**
 * The error a non-2xx answer fails its job with: retried with backoff for a 429 or a 5xx, at once
 * for the rest (a 404 will not mend). `waitMs` is what its Retry-After asked, when it did.
 */
function refusedStatus(response: CaptureResponse, waitMs: number | null): Error {
  const message = `el servidor respondió HTTP ${response.status}${waitMs === null ? '' : ` y pidió esperar ${Math.ceil(waitMs / 1000)} s`}`;
  return RETRYABLE_STATUSES.has(response.status) ? new Error(message) : new PermanentJobError(message);
}

/** Any failure as the error its job fails with, its message the reason moderators read. */
function asJobError(error: unknown): Error {
  if (error instanceof PermanentJobError) return error;
  if (error instanceof CaptureError) return error.retryable ? new Error(error.message, { cause: error }) : new PermanentJobError(error.message, { cause: error });
  if (error instanceof PayloadTooLargeError) return new PermanentJobError(error.message, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A capture that failed for good counts as a failure of the run that queued it, with its reason:
 * once per record, however often a moderator retries it (its first reason stays), and once for each
 * of two records whose datasets link the same file.
 */
async function noteFailure(db: Db, importId: number, alexandriaId: number, url: string, message: string): Promise<void> {
  const entry = JSON.stringify([{ key: url, record: alexandriaId, message: `captura: ${message}` }]);
  // Noted already: this record's failure, or one noted before failures named their record.
  const noted = sql`exists (
    select 1 from jsonb_array_elements(${imports.errors}) e
     where e->>'key' = ${url} and (e->'record' is null or e->'record' = to_jsonb(${alexandriaId}::int)))`;
  await db
    .update(imports)
    .set({
      documentsFailed: sql`${imports.documentsFailed} + 1`,
      errors: sql`${imports.errors} || ${entry}::jsonb`,
      harvestCounts: sql`jsonb_set(coalesce(${imports.harvestCounts}, '{}'::jsonb), '{failed}', to_jsonb(coalesce((${imports.harvestCounts} ->> 'failed')::int, 0) + 1))`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(imports.id, importId), sql`not ${noted}`));
}

/** The validators of the last capture of the record's current file, for a conditional request. */
async function validatorsOf(db: Db, alexandriaId: number, cid: string): Promise<{ ifNoneMatch?: string; ifModifiedSince?: string }> {
  const [last] = await db
    .select({ etag: captures.etag, lastModified: captures.lastModified })
    .from(captures)
    .where(and(eq(captures.alexandriaId, alexandriaId), eq(captures.cid, cid), sql`${captures.status} between 200 and 299`))
    .orderBy(desc(captures.capturedAt), desc(captures.id))
    .limit(1);
  return { ...(last?.etag ? { ifNoneMatch: last.etag } : {}), ...(last?.lastModified ? { ifModifiedSince: last.lastModified } : {}) };
}
