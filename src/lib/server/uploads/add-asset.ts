/**
 * `POST /v2/ops/assets/add`: one contribution, all or nothing (DECISIONS: Contribution, Storage).
 *
 * 1. A session, within the rate limits; the `asset`, `nonce` and `signature` fields come first
 *    and are checked at once (fields, owner, nonce, referenced ids), before any file byte is read.
 * 2. The document and the proof stream into a staging area, their size, SHA-256 and real type
 *    checked as they pass.
 * 3. The confirmation message is rebuilt from the received bytes' hashes and the nonce; its
 *    signer must be the session's wallet.
 * 4. The blocks move into the store, then one transaction spends the nonce and writes the source
 *    or issuer if new, the record, its proof entry, the local pins and the finished import.
 *
 * Any failure discards the staged blocks and the upload's import, so nothing is left behind.
 */
import { and, eq, sql } from 'drizzle-orm';
import { verifyMessage } from 'ethers';
import type { AssetType } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { User } from '../../domain/user.ts';
import {
  assetPayloadSchema,
  confirmationMessage,
  nonceSchema,
  notDeclaredTypeMessage,
  signatureSchema,
  UPLOAD_FIELDS,
  type AssetPayload,
  type NewEntity,
} from '../../domain/upload.ts';
import { SIGNATURE_MESSAGES } from '../../domain/auth-fields.ts';
import type { ArchiveConfig } from '../config.ts';
import { consumeNonce, isNonceUsable } from '../auth/nonces.ts';
import { spend } from '../auth/rate-limit.ts';
import { aletheias, alexandrias, categories, departments, imports, sources, statusHistory } from '../db/schema.ts';
import type { Db } from '../db/index.ts';
import { DIMENSIONS } from '../queries/dimensions.ts';
import {
  ForbiddenError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../http/errors.ts';
import { committedPinning, pinCids, queueRemotePins, type PinningProvider } from '../pinning/index.ts';
import { vouchSha256, type ContentStore, type StagedUpload, type StagingArea } from '../storage/index.ts';
import {
  cleanFileName,
  detectContent,
  documentFormat,
  fileExtension,
  mediaType,
  PROOF_KINDS,
  type ContentKind,
} from '../content-type.ts';
import { dropUploadImport, keepAlive, startUploadImport } from './imports.ts';
import { inspect } from './inspect.ts';
import { PdfStructure } from './pdf-structure.ts';
import { BROKEN_PDF_MESSAGE } from '../../domain/pdf-shape.ts';
import { EXECUTABLE_REFUSED_MESSAGE } from '../../domain/content-kind.ts';
import { parseInput, refuseUnfitInput } from '../http/input.ts';
import { enqueue } from '../jobs/index.ts';
import { hasSheets, sheetPreviewsJob } from '../spreadsheets/preview-job.ts';
import { readMultipart, type Part } from './multipart.ts';
import { formatCount } from '../../text.ts';

export interface UploadContext {
  db: Db;
  store: ContentStore;
  staging: StagingArea;
  /** Besides the local store (pinned inside the transaction), providers asked once it is done. */
  pinning?: readonly PinningProvider[];
  config: Pick<ArchiveConfig, 'maxDocumentBytes' | 'maxProofBytes' | 'uploadsPerHour'>;
  user: User | null;
  clientAddress: string;
  request: Request;
}

export interface AddedAsset {
  assetCID: string;
  assetId: number;
}

/** A received file, after its bytes were staged and checked. */
interface ReceivedFile {
  cid: string;
  size: number;
  sha256: string;
  kind: ContentKind;
  fileName: string;
}

interface Fields {
  asset: AssetPayload;
  nonce: string;
  signature: string;
}

const megabytes = (bytes: number) => `${formatCount(Math.floor(bytes / 1_000_000))} MB`;

export async function addAsset(context: UploadContext): Promise<AddedAsset> {
  const { db, config } = context;
  if (!context.user) throw new UnauthorizedError('Inicie sesión con su cartera para contribuir un documento.');
  const account = context.user.account.toLowerCase();
  const hour = 60 * 60;
  await spend(db, `upload:wallet:${account}`, { max: config.uploadsPerHour.wallet, windowSeconds: hour });
  await spend(db, `upload:ip:${context.clientAddress}`, { max: config.uploadsPerHour.ip, windowSeconds: hour });

  const staged = context.staging.begin();
  let importId: number | undefined;
  let stopHeartbeat = () => {};
  try {
    let fields: Fields | undefined;
    const files: { document?: ReceivedFile; proof?: ReceivedFile } = {};
    const pending: Record<string, string> = {};

    for await (const part of readMultipart(context.request, { fieldBytes: 64 * 1024, fields: 3, files: 2 })) {
      if (part.kind === 'field') {
        pending[part.name] = part.value;
        if (!fields && pending.asset !== undefined && pending.nonce !== undefined && pending.signature !== undefined) {
          fields = await checkFields(db, account, pending);
          importId = await startUploadImport(db, account);
          stopHeartbeat = keepAlive(db, importId);
        }
        continue;
      }
      if (!fields) {
        throw new ValidationError('Los campos asset, nonce y signature deben enviarse antes que los archivos.');
      }
      if (part.name === UPLOAD_FIELDS.document && !files.document) {
        files.document = await receiveDocument(part, staged, fields.asset, config.maxDocumentBytes);
      } else if (part.name === UPLOAD_FIELDS.proof && !files.proof) {
        files.proof = await receiveProof(part, staged, config.maxProofBytes);
      } else {
        throw new ValidationError(`Parte inesperada en la subida: «${part.name.slice(0, 40)}».`);
      }
    }

    if (!fields) throw new ValidationError('Faltan los campos asset, nonce y signature.');
    if (!files.document || !files.proof) {
      const field = files.document ? UPLOAD_FIELDS.proof : UPLOAD_FIELDS.document;
      throw new ValidationError('File is required', [{ field, message: 'File is required' }]);
    }
    const { document, proof } = files;

    const message = confirmationMessage({ documentSha256: document.sha256, proofSha256: proof.sha256, nonce: fields.nonce });
    if (recoverSigner(message, fields.signature) !== account) {
      throw new ForbiddenError('La firma no corresponde a estos archivos ni a la cartera con la que inició sesión.');
    }

    const assetId = await db.transaction(async (tx) => {
      // First: waiting here for another commit of the same file keeps no row locked.
      await staged.hold(tx);
      if (!(await consumeNonce(tx, fields.nonce, new Date(), { purpose: 'upload', account }))) throw replayedNonce();
      const id = await createRecord(tx as unknown as Db, {
        account,
        asset: fields.asset,
        document,
        proof,
        importId: importId!,
        message,
        signature: fields.signature,
      });
      // The blocks join the store last, journalled: a failed commit or a crash takes them back.
      await staged.commit(tx);
      await pinCids(tx, committedPinning, [document.cid, proof.cid]);
      // A spreadsheet's sheets become searchable previews (issue #7), by a job committed with the
      // record: a server that dies after answering leaves it for the next worker.
      const format = documentFormat(fields.asset.docType, document.kind) ?? 'other';
      if (hasSheets(format)) await enqueue(tx as unknown as Db, sheetPreviewsJob(id, document.cid));
      return id;
    });
    await staged.settle();
    // Remote services are asked by the queue, not while the contributor waits (and not lost on a crash).
    await queueRemotePins(db, context.pinning ?? [], [document.cid, proof.cid]).catch((error: unknown) =>
      console.error('No se pudieron encolar los anclajes remotos; el archivo los buscará de nuevo en unas horas', error),
    );
    return { assetCID: document.cid, assetId };
  } catch (error) {
    await staged.discard().catch((cause: unknown) => console.error('No se pudo limpiar una subida fallida', cause));
    if (importId !== undefined) await dropUploadImport(db, importId).catch((cause: unknown) => console.error(cause));
    throw error;
  } finally {
    stopHeartbeat();
  }
}

/** The first entry of every contribution's public history. */
const UPLOAD_REASON = 'Contribución recibida, con la firma de la cartera verificada; espera la revisión de un moderador.';

function replayedNonce(): ForbiddenError {
  return new ForbiddenError('Esta confirmación ya se usó o caducó: firme de nuevo para subir el documento.');
}

function recoverSigner(message: string, signature: string): string | null {
  try {
    return verifyMessage(message, signature).toLowerCase();
  } catch {
    return null;
  }
}

/** The text fields, checked before any file byte is read. */
async function checkFields(db: Db, account: string, raw: Record<string, string>): Promise<Fields> {
  let json: unknown;
  try {
    json = JSON.parse(raw.asset ?? '');
  } catch {
    throw new ValidationError('El campo asset debe ser un objeto JSON.');
  }
  refuseUnfitInput(json);
  const asset = parseInput(assetPayloadSchema, json, 'Datos no válidos.');
  const nonce = nonceSchema.safeParse(raw.nonce);
  const signature = signatureSchema.safeParse(raw.signature);
  if (!nonce.success) throw new ValidationError(nonce.error.issues[0]?.message ?? 'El nonce de la subida no es válido: pida uno nuevo.');
  if (!signature.success) throw new ValidationError(signature.error.issues[0]?.message ?? SIGNATURE_MESSAGES.invalid);
  if (asset.owner.toLowerCase() !== account) {
    throw new ForbiddenError('El propietario (owner) debe ser la cartera con la que inició sesión.');
  }
  // Refuse a spent, expired or someone else's nonce now, not after the whole file has arrived.
  if (!(await isNonceUsable(db, nonce.data, { purpose: 'upload', account }))) throw replayedNonce();
  await checkReferences(db, asset);
  return { asset, nonce: nonce.data, signature: signature.data };
}

/**
 * Ids picked in the wizard must exist, and a picked source or issuer must be one the public sees,
 * as the wizard only offers those (one under review or refused is reached by typing it anew, which
 * finds it by URL); a 400 with the step's own message otherwise.
 */
async function checkReferences(db: Db, asset: AssetPayload): Promise<void> {
  const exists = async (entity: GroupEntity, table: typeof categories | typeof sources | typeof departments, id: number | undefined) =>
    id === undefined || (await db.select({ id: table.id }).from(table).where(and(eq(table.id, id), DIMENSIONS[entity].visible))).length === 1;
  const missing: Array<{ field: string; message: string }> = [];
  if (!(await exists('cat', categories, asset.categoryId))) missing.push({ field: 'categoryId', message: 'Category is required' });
  if (!(await exists('src', sources, asset.sourceId))) missing.push({ field: 'sourceId', message: 'Source is required' });
  if (!(await exists('dep', departments, asset.issuerId))) missing.push({ field: 'issuerId', message: 'issuerId is required' });
  if (missing.length > 0) throw new ValidationError(missing[0]!.message, missing);
}

const EMPTY_DOCUMENT = 'El documento está vacío (0 bytes): elija el archivo que quiere archivar.';
const EMPTY_PROOF = 'La captura de prueba está vacía (0 bytes): elija la imagen de la página de la fuente.';

async function receiveDocument(
  part: Extract<Part, { kind: 'file' }>,
  staged: StagedUpload,
  asset: AssetPayload,
  maxBytes: number,
): Promise<ReceivedFile> {
  let kind: ContentKind = 'binary';
  const inspection = inspect(part.content, {
    maxBytes,
    tooLargeMessage: `El documento pasa del límite de ${megabytes(maxBytes)}.`,
    checkHead(head) {
      kind = detectContent(head);
      // Chosen but empty: 'File is required' (SPEC, for no file) would tell the contributor nothing.
      if (head.length === 0) throw new ValidationError(EMPTY_DOCUMENT, [{ field: UPLOAD_FIELDS.document, message: EMPTY_DOCUMENT }]);
      if (kind === 'executable') throw new UnsupportedMediaTypeError(EXECUTABLE_REFUSED_MESSAGE);
      if (documentFormat(asset.docType, kind) === null) {
        throw new UnsupportedMediaTypeError(notDeclaredTypeMessage(asset.docType));
      }
    },
  });
  const pdf = new PdfStructure();
  // `watch` passes the inspected bytes on unchanged: their SHA-256 is the inspection's.
  const stored = await staged.add(vouchSha256(watch(inspection.stream, (chunk) => pdf.push(chunk)), inspection.wholeSha256));
  const { sha256, size, head } = inspection.result();
  // The header said PDF; only the whole file can say whether it is one (pdf-structure.ts). Refused
  // as a PDF, it is not stored (the staged blocks are discarded); as 'other' it is kept as bytes.
  // (`checkHead` set `kind` from a callback, which TypeScript's narrowing cannot see.)
  let received = kind as ContentKind;
  if (received === 'pdf' && !pdf.isPdf(head)) {
    if (asset.docType === 'pdf') throw new UnsupportedMediaTypeError(BROKEN_PDF_MESSAGE);
    received = 'binary';
  }
  return { cid: stored.cid, size, sha256, kind: received, fileName: cleanFileName(part.fileName) };
}

/** Passes `chunks` on unchanged, showing each to `see` first. */
async function* watch(chunks: AsyncIterable<Uint8Array>, see: (chunk: Uint8Array) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    see(chunk);
    yield chunk;
  }
}

async function receiveProof(part: Extract<Part, { kind: 'file' }>, staged: StagedUpload, maxBytes: number): Promise<ReceivedFile> {
  let kind: ContentKind = 'binary';
  const inspection = inspect(part.content, {
    maxBytes,
    tooLargeMessage: `La captura de prueba pasa del límite de ${megabytes(maxBytes)}.`,
    checkHead(head) {
      kind = detectContent(head);
      if (head.length === 0) throw new ValidationError(EMPTY_PROOF, [{ field: UPLOAD_FIELDS.proof, message: EMPTY_PROOF }]);
      if (!PROOF_KINDS.has(kind)) {
        throw new UnsupportedMediaTypeError('La prueba debe ser una imagen PNG, JPEG o WebP (una captura de pantalla).');
      }
    },
  });
  const stored = await staged.add(inspection.stream);
  const { sha256, size } = inspection.result();
  return { cid: stored.cid, size, sha256, kind, fileName: cleanFileName(part.fileName) };
}

interface NewRecord {
  account: string;
  asset: AssetPayload;
  document: ReceivedFile;
  proof: ReceivedFile;
  importId: number;
  message: string;
  signature: string;
}

/** Writes the record and everything it needs; runs inside the upload's transaction. */
async function createRecord(tx: Db, record: NewRecord): Promise<number> {
  const { asset, document, proof, account } = record;
  const sourceId = asset.sourceId ?? (await findOrCreateSource(tx, asset.newSource));
  const departmentId = asset.issuerId ?? (await findOrCreateIssuer(tx, asset.newIssuer));
  const type: AssetType = documentFormat(asset.docType, document.kind) ?? 'other';
  const [row] = await tx
    .insert(alexandrias)
    .values({
      cid: document.cid,
      title: asset.title,
      description: asset.description,
      type,
      formats: [type],
      status: 'under_review',
      sourceUrl: asset.docSource,
      fileName: document.fileName,
      fileExtension: fileExtension(document.fileName),
      fileSize: document.size,
      fileSha256: document.sha256,
      mimeType: mediaType(document.kind, type),
      categoryId: asset.categoryId,
      departmentId,
      sourceId,
      importId: record.importId,
      walletAddress: account,
      signedMessage: record.message,
      signature: record.signature,
    })
    .returning({ id: alexandrias.id });
  if (!row) throw new Error('The record was not created');
  await tx.insert(aletheias).values({
    alexandriaId: row.id,
    cid: proof.cid,
    fileName: proof.fileName,
    mimeType: mediaType(proof.kind, 'other'),
    fileSize: proof.size,
    walletAddress: account,
  });
  await tx.insert(statusHistory).values({ alexandriaId: row.id, fromStatus: null, toStatus: 'under_review', reason: UPLOAD_REASON, actor: null });
  await tx.update(imports).set({ status: 'done', sourceId, documents: 1 }).where(eq(imports.id, record.importId));
  // A source or issuer with a new contribution is "recently updated" on its group page; a source
  // the archive made for a catalogue that has brought nothing yet is listed from now on.
  await tx.update(sources).set({ updatedAt: sql`now()`, awaitingHarvest: false }).where(eq(sources.id, sourceId));
  await tx.update(departments).set({ updatedAt: sql`now()` }).where(eq(departments.id, departmentId));
  return row.id;
}

/** A URL compared loosely: scheme and host in lower case, no trailing slash, no fragment. */
export function urlKey(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return `${parsed.protocol}//${parsed.host.toLowerCase()}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
}

/** Sources are de-duplicated by URL (DECISIONS: Contribution). */
async function findOrCreateSource(tx: Db, fresh: NewEntity): Promise<number> {
  const url = urlKey(fresh.url);
  const match = sql`lower(regexp_replace(${sources.url}, '/+$', '')) = lower(${url})`;
  const [existing] = await tx.select({ id: sources.id }).from(sources).where(match).limit(1);
  if (existing) return existing.id;
  const [created] = await tx
    .insert(sources)
    // A contributor's new source waits for a moderator (issue #8).
    .values({ name: fresh.name, description: fresh.description, url, reviewStatus: 'under_review' })
    .onConflictDoUpdate({ target: sources.url, set: { updatedAt: sql`now()` } })
    .returning({ id: sources.id });
  return created!.id;
}

/** Issuers are de-duplicated by website, and by name, which the catalogue keeps unique. */
async function findOrCreateIssuer(tx: Db, fresh: NewEntity): Promise<number> {
  const website = urlKey(fresh.url);
  const [existing] = await tx
    .select({ id: departments.id })
    .from(departments)
    .where(
      sql`lower(regexp_replace(${departments.website}, '/+$', '')) = lower(${website})
          or archivo_unaccent(lower(${departments.name})) = archivo_unaccent(lower(${fresh.name}))`,
    )
    .limit(1);
  if (existing) return existing.id;
  const [created] = await tx
    .insert(departments)
    // A contributor's new institution waits for a moderator, as a new source does (issue #16).
    .values({ name: fresh.name, desciption: fresh.description, website, reviewStatus: 'under_review' })
    .onConflictDoUpdate({ target: departments.name, set: { updatedAt: sql`now()` } })
    .returning({ id: departments.id });
  return created!.id;
}

