/**
 * POST /v2/ops/assets/add on a real database with the real catalogue: what a contribution creates,
 * every refusal with its status and message, and that a refused or broken upload leaves nothing.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, count, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toUser } from '../../src/lib/domain/user.ts';
import { issueNonce } from '../../src/lib/server/auth/nonces.ts';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { aletheias, alexandrias, departments, imports, jobs, pins, sources } from '../../src/lib/server/db/schema.ts';
import { serveFile } from '../../src/lib/server/gateway/index.ts';
import { getGroupItem } from '../../src/lib/server/queries/groups.ts';
import { toResponse } from '../../src/lib/server/http/errors.ts';
import { cidOf, createContentStore, createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { addAsset, type UploadContext } from '../../src/lib/server/uploads/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { ALICE, MALLORY } from '../helpers/siwe.ts';
import { pngImage, serializedForm, sha256Hex, signUpload, uploadForm, uploadRequest } from '../helpers/upload.ts';

const PDF = await fs.readFile(path.join(FIXTURES_DIR, 'files/pdf/sisalril-pespj-d1.pdf'));
const CSV = await fs.readFile(path.join(FIXTURES_DIR, 'files/csv/salario-minimo-hacienda-2000-2025.csv'));
const PROOF = pngImage(120, 80, 1);

const TITLE = 'Plan estratégico de la Superintendencia de Salud 2024';
const DESCRIPTION =
  'Documento oficial publicado por la institución con su plan estratégico, metas, indicadores y presupuesto para el periodo indicado.';

async function countFiles(dir: string): Promise<number> {
  try {
    const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).length;
  } catch {
    return 0;
  }
}

describe.each(testEngines())('uploads on %s', (engine: Engine) => {
  let archive: Awaited<ReturnType<typeof createSeededDatabase>>;
  let dataDir: string;
  let context: Omit<UploadContext, 'request' | 'user'>;
  let stagingDir: string;
  let existing: { categoryId: number; sourceId: number; issuerId: number; sourceUrl: string };

  beforeAll(async () => {
    archive = await createSeededDatabase(engine);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-upload-'));
    stagingDir = path.join(dataDir, 'staging');
    const [source] = await archive.db.select().from(sources).limit(1);
    const [issuer] = await archive.db.select().from(departments).limit(1);
    const category = await archive.db.query.categories.findFirst();
    existing = { categoryId: category!.id, sourceId: source!.id, issuerId: issuer!.id, sourceUrl: source!.url };
  }, 120_000);

  afterAll(async () => {
    await archive?.destroy();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const user = toUser(ALICE.address, 'metamask');

  function baseAsset(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      title: TITLE,
      docType: 'pdf',
      description: DESCRIPTION,
      categoryId: existing.categoryId,
      docSource: 'https://www.sisalril.gob.do/transparencia/plan-estrategico',
      sourceId: existing.sourceId,
      issuerId: existing.issuerId,
      owner: ALICE.address,
      ...overrides,
    };
  }

  async function call(request: Request, who = user, config: Partial<UploadContext['config']> = {}) {
    try {
      const added = await addAsset({
        ...context,
        config: { ...context.config, ...config },
        user: who,
        request,
      });
      return { status: 200, body: { ...added } as Record<string, unknown> };
    } catch (error) {
      const response = toResponse(error);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }
  }

  function blocksDir() {
    return path.join(dataDir, 'blocks');
  }

  async function upload(options: {
    asset?: Record<string, unknown>;
    document?: { name: string; bytes: Uint8Array };
    proof?: { name: string; bytes: Uint8Array };
    signer?: typeof ALICE;
    nonce?: string;
    config?: Partial<UploadContext['config']>;
  } = {}) {
    const document = options.document ?? { name: 'plan-estrategico.pdf', bytes: PDF };
    const proof = options.proof ?? { name: 'captura.png', bytes: PROOF };
    const nonce = options.nonce ?? (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const signature = await signUpload(options.signer ?? ALICE, document.bytes, proof.bytes, nonce);
    const form = uploadForm({ asset: options.asset ?? baseAsset(), document, proof, nonce, signature });
    return { ...(await call(uploadRequest(form), user, options.config)), nonce, signature, form };
  }

  /** What an upload could have left behind. */
  async function leftovers() {
    const [records] = await archive.db.select({ n: count() }).from(alexandrias);
    const [open] = await archive.db.select({ n: count() }).from(imports).where(eq(imports.status, 'in_progress'));
    const [all] = await archive.db.select({ n: count() }).from(imports);
    return {
      records: records!.n,
      importsInProgress: open!.n,
      imports: all!.n,
      blocks: await countFiles(blocksDir()),
      staged: await countFiles(stagingDir),
    };
  }

  beforeAll(() => {
    context = {
      db: archive.db,
      // Uploads go to a store of their own, so its blocks can be counted.
      store: createContentStore({ dir: blocksDir() }),
      staging: createStagingArea({ storeDir: path.join(dataDir, 'blocks'), dir: stagingDir, guard: databaseFileGuard(archive.db) }),
      config: { maxDocumentBytes: 200_000_000, maxProofBytes: 10_000_000, uploadsPerHour: { wallet: 1000, ip: 1000 } },
      clientAddress: '127.0.0.1',
    };
  });

  it('stores a real PDF with its proof, under review, signed by the session wallet', async () => {
    const before = await leftovers();
    const result = await upload();
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const { assetCID, assetId } = result.body as { assetCID: string; assetId: number };
    expect(assetCID).toBe((await cidOf(PDF)).cid);

    const record = await archive.db.query.alexandrias.findFirst({ where: eq(alexandrias.id, assetId) });
    expect(record).toMatchObject({
      cid: assetCID,
      title: TITLE,
      type: 'pdf',
      status: 'under_review',
      walletAddress: ALICE.address.toLowerCase(),
      sourceId: existing.sourceId,
      departmentId: existing.issuerId,
      categoryId: existing.categoryId,
      fileName: 'plan-estrategico.pdf',
      fileExtension: 'pdf',
      fileSize: PDF.length,
      mimeType: 'application/pdf',
      fileSha256: sha256Hex(PDF),
      signature: result.signature,
    });
    expect(record!.signedMessage).toContain(`Nonce: ${result.nonce}`);
    const [importRow] = await archive.db.select().from(imports).where(eq(imports.id, record!.importId!));
    expect(importRow).toMatchObject({ type: 'single', status: 'done', documents: 1, walletAddress: ALICE.address.toLowerCase() });
    const proofs = await archive.db.select().from(aletheias).where(eq(aletheias.alexandriaId, assetId));
    expect(proofs).toHaveLength(1);
    expect(proofs[0]).toMatchObject({ cid: (await cidOf(PROOF)).cid, mimeType: 'image/png', fileSize: PROOF.length });
    const pinned = await archive.db.select().from(pins).where(eq(pins.cid, assetCID));
    expect(pinned.map((pin) => pin.status)).toEqual(['pinned']);

    const after = await leftovers();
    expect(after.records).toBe(before.records + 1);
    expect(after.blocks).toBeGreaterThan(before.blocks);
    expect(after.staged).toBe(0);
    expect(after.importsInProgress).toBe(0);
  });

  it('creates a new source and issuer once, and finds them again by URL and website', async () => {
    const asset = baseAsset({
      docType: 'csv',
      title: 'Salario mínimo nacional por sector, 2000 a 2025',
      sourceId: undefined,
      issuerId: undefined,
      newSource: { name: 'Portal de Hacienda', description: 'Portal del Ministerio de Hacienda', url: 'https://Hacienda.Example.do/datos/' },
      newIssuer: { name: 'Ministerio de Prueba de Hacienda', description: 'Institución de prueba', url: 'https://prueba-hacienda.example.do' },
    });
    const first = await upload({ asset, document: { name: 'salario.csv', bytes: CSV } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const second = await upload({
      asset: {
        ...asset,
        newSource: { ...(asset.newSource as object), url: 'https://hacienda.example.do/datos' },
        newIssuer: { ...(asset.newIssuer as object), name: 'Otro nombre', url: 'https://prueba-hacienda.example.do/' },
      },
      document: { name: 'salario.csv', bytes: CSV },
    });
    expect(second.status).toBe(200);
    // Two identical documents get the same CID.
    expect(second.body.assetCID).toBe(first.body.assetCID);
    const records = await archive.db
      .select({ sourceId: alexandrias.sourceId, departmentId: alexandrias.departmentId, type: alexandrias.type, mimeType: alexandrias.mimeType })
      .from(alexandrias)
      .where(and(eq(alexandrias.cid, String(first.body.assetCID)), isNotNull(alexandrias.walletAddress)));
    // The seed archived the same file: its record shares the CID too.
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ type: 'csv', mimeType: 'text/csv' });
    expect(records[1]!.sourceId).toBe(records[0]!.sourceId);
    expect(records[1]!.departmentId).toBe(records[0]!.departmentId);
    const created = await archive.db.select().from(sources).where(eq(sources.id, records[0]!.sourceId!));
    expect(created[0]).toMatchObject({ name: 'Portal de Hacienda', url: 'https://hacienda.example.do/datos' });
  });

  it('lists a source made for a catalogue that brought nothing yet once a contribution is filed there', async () => {
    const [waiting] = await archive.db
      .insert(sources)
      .values({ name: 'Portal en espera', url: 'https://espera.example.do', description: 'Catálogo público cosechado por el archivo: https://espera.example.do/', awaitingHarvest: true })
      .returning({ id: sources.id });
    expect(await getGroupItem(archive.db, 'src', waiting!.id)).toBeNull();
    const asset = baseAsset({
      title: 'Informe del portal en espera',
      sourceId: undefined,
      newSource: { name: 'Portal en espera', description: 'Portal de prueba', url: 'https://espera.example.do/' },
    });
    const answer = await upload({ asset, document: { name: 'informe.pdf', bytes: PDF } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [filed] = await archive.db.select({ sourceId: alexandrias.sourceId }).from(alexandrias).where(eq(alexandrias.title, 'Informe del portal en espera'));
    expect(filed!.sourceId).toBe(waiting!.id);
    expect(await getGroupItem(archive.db, 'src', waiting!.id)).toMatchObject({ id: waiting!.id, name: 'Portal en espera' });
  });

  it('queues the sheet previews of an uploaded spreadsheet with its record, in the same transaction, once per file', async () => {
    const bytes = await fs.readFile(path.join(FIXTURES_DIR, 'files/spreadsheets/one-primas-netas-seguros-2015-2023.xlsx'));
    const result = await upload({ asset: baseAsset({ docType: 'xlsx', title: 'Primas netas de seguros, 2015 a 2023' }), document: { name: 'primas.xlsx', bytes } });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const queued = await archive.db.select().from(jobs).where(eq(jobs.dedupeKey, `sheet-previews:${result.body.assetId}:${result.body.assetCID}`));
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ kind: 'sheet-previews', status: 'queued', payload: { alexandriaId: result.body.assetId, cid: result.body.assetCID } });
    // A PDF has no sheets: no job.
    const before = await archive.db.$count(jobs);
    const pdf = await upload({ asset: baseAsset({ title: 'Otro plan estratégico en PDF' }) });
    expect(pdf.status).toBe(200);
    expect(await archive.db.$count(jobs)).toBe(before);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['no title', { title: '' }, 'Title is required'],
    ['a short title', { title: 'Presupuesto 2024' }, 'Title must be at least 20 characters'],
    ['no document type', { docType: undefined }, 'Document Type is required'],
    ['no category', { categoryId: undefined }, 'Category is required'],
    ['no description', { description: '' }, 'Description is required'],
    ['a short description', { description: 'Muy corta.' }, 'Description must be at least 100 characters'],
    ['no source URL', { docSource: '' }, 'Source URL is required'],
    ['a source URL that is not http', { docSource: 'javascript:alert(1)' }, 'Source is not a valid URL'],
    ['an unknown source', { sourceId: 999_999 }, 'Source is required'],
    ['an incomplete new source', { sourceId: undefined, newSource: { name: 'Portal', url: 'https://p.example.do' } }, 'All information is required'],
    ['a new source with a bad URL', { sourceId: undefined, newSource: { name: 'Portal', description: 'Un portal', url: 'ftp://p.example.do' } }, 'This URL is not valid'],
    ['an unknown issuer', { issuerId: 999_999 }, 'issuerId is required'],
    ['an incomplete new issuer', { issuerId: undefined, newIssuer: { name: 'Ministerio' } }, 'All information is required'],
    ['a new issuer with a bad URL', { issuerId: undefined, newIssuer: { name: 'M', description: 'D', url: 'no es una url' } }, 'This URL is not valid'],
    ['a NUL in a text field', { title: 'Plan estratégico de salud\u0000 2024 completo' }, 'El texto contiene un carácter nulo (NUL), que no se admite.'],
    // Invisible characters count for nothing (issue #16): lengths are what a reader sees.
    ['a title of 20 zero-width spaces', { title: '\u200B'.repeat(20) }, 'Title must be at least 20 characters'],
    ['a short title padded with zero-width and bidi characters', { title: `Presupuesto 2024${'\u200B\u202E\u2066'.repeat(10)}` }, 'Title must be at least 20 characters'],
    ['a description of 100 zero-width spaces', { description: '\u200B'.repeat(100) }, 'Description must be at least 100 characters'],
    ['a short description padded with controls', { description: `Muy corta.${'\u0007\u200D\uFEFF'.repeat(40)}` }, 'Description must be at least 100 characters'],
    ['a new source named only with zero-width spaces', { sourceId: undefined, newSource: { name: '\u200B'.repeat(30), description: 'Un portal', url: 'https://p.example.do' } }, 'All information is required'],
  ];

  it.each(invalid)('refuses %s with the spec message, leaving nothing', async (_case, overrides, message) => {
    const before = await leftovers();
    const result = await upload({ asset: baseAsset(overrides) });
    expect(result.status).toBe(400);
    expect(result.body.message).toBe(message);
    expect(await leftovers()).toEqual(before);
  });

  it('stores titles, descriptions and new names without bidi overrides and zero-width characters', async () => {
    const result = await upload({
      asset: baseAsset({
        title: 'Plan estratégico \u202Efdp.exe\u202C de salud\u200B 2024',
        description: `${DESCRIPTION}\u2067 Segunda línea\u2069\ncon su salto.`,
        sourceId: undefined,
        newSource: { name: 'Portal \u202Egro.lanoicaN\u202C de Salud', description: 'Portal\u200B oficial', url: 'https://portal-bidi.example.do' },
      }),
      proof: { name: 'captura.png', bytes: pngImage(120, 80, 3) },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const record = await archive.db.query.alexandrias.findFirst({ where: eq(alexandrias.id, (result.body as { assetId: number }).assetId) });
    expect(record?.title).toBe('Plan estratégico fdp.exe de salud 2024');
    expect(record?.description).toBe(`${DESCRIPTION} Segunda línea\ncon su salto.`);
    const [source] = await archive.db.select().from(sources).where(eq(sources.id, record!.sourceId!));
    expect(source).toMatchObject({ name: 'Portal gro.lanoicaN de Salud', description: 'Portal oficial' });
  });

  it('refuses a missing file or proof with "File is required"', async () => {
    const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const signature = await signUpload(ALICE, PDF, PROOF, nonce);
    for (const missing of ['fileUploaded', 'proof']) {
      const form = uploadForm({ asset: baseAsset(), document: { name: 'a.pdf', bytes: PDF }, proof: { name: 'p.png', bytes: PROOF }, nonce, signature });
      form.delete(missing);
      const before = await leftovers();
      const result = await call(uploadRequest(form));
      expect(result.status).toBe(400);
      expect(result.body.message).toBe('File is required');
      expect(await leftovers()).toEqual(before);
    }
  });

  it('refuses an empty document or proof, saying it is empty, and keeps nothing', async () => {
    for (const [empty, message] of [
      ['document', 'El documento está vacío (0 bytes): elija el archivo que quiere archivar.'],
      ['proof', 'La captura de prueba está vacía (0 bytes): elija la imagen de la página de la fuente.'],
    ] as const) {
      const [document, proof] = empty === 'document' ? [Buffer.alloc(0), PROOF] : [PDF, Buffer.alloc(0)];
      const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
      const signature = await signUpload(ALICE, document, proof, nonce);
      const before = await leftovers();
      const result = await call(uploadRequest(uploadForm({ asset: baseAsset(), document: { name: 'a.pdf', bytes: document }, proof: { name: 'p.png', bytes: proof }, nonce, signature })));
      expect(result.status, empty).toBe(400);
      expect(result.body.message, empty).toBe(message);
      expect(await leftovers()).toEqual(before);
    }
  });

  it('refuses an oversized document with 413 and keeps nothing of it', async () => {
    const before = await leftovers();
    const result = await upload({ config: { maxDocumentBytes: 100_000 } });
    expect(result.status).toBe(413);
    expect(result.body.message).toMatch(/pasa del límite/);
    expect(await leftovers()).toEqual(before);
  });

  it('refuses a PDF declared as CSV, and a proof that is not an image, with 415', async () => {
    const before = await leftovers();
    const asCsv = await upload({ asset: baseAsset({ docType: 'csv' }) });
    expect(asCsv.status).toBe(415);
    expect(asCsv.body.message).toMatch(/no es un CSV/);
    const textProof = await upload({ proof: { name: 'captura.png', bytes: Buffer.from('<svg onload="alert(1)"></svg>') } });
    expect(textProof.status).toBe(415);
    expect(textProof.body.message).toMatch(/PNG, JPEG o WebP/);
    expect(await leftovers()).toEqual(before);
  });

  it('refuses a program even declared as "other", with 415, and keeps nothing of it', async () => {
    const before = await leftovers();
    const program = Buffer.alloc(4096);
    program.write('MZ', 0, 'latin1');
    program.writeUInt32LE(0x80, 0x3c);
    program.write('PE\0\0', 0x80, 'latin1');
    const result = await upload({ asset: baseAsset({ docType: 'other' }), document: { name: 'Presupuesto General 2026.pdf.exe', bytes: program } });
    expect(result.status).toBe(415);
    expect(result.body.message).toMatch(/es un programa/);
    expect(await leftovers()).toEqual(before);
  });

  it('refuses as a PDF a page that only mentions %PDF-, or a PDF header with no PDF behind it, and keeps nothing', async () => {
    const before = await leftovers();
    const html = Buffer.from('<!doctype html><html><!-- %PDF-1.4 --><body><script>alert(document.domain)</script></body></html>');
    const mentioned = await upload({ document: { name: 'informe.pdf', bytes: html } });
    expect(mentioned.status).toBe(415);
    expect(mentioned.body.message).toMatch(/no es un PDF/);
    const headerOnly = Buffer.concat([Buffer.from('%PDF-1.4\n'), html]);
    const hollow = await upload({ document: { name: 'informe.pdf', bytes: headerOnly } });
    expect(hollow.status).toBe(415);
    expect(hollow.body.message).toMatch(/no está construido como uno/);
    expect(await leftovers()).toEqual(before);
  });

  it('keeps an HTML file sent as "other" but serves it as a sandboxed download', async () => {
    const html = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
    const result = await upload({ asset: baseAsset({ docType: 'other' }), document: { name: 'pagina.html', bytes: html } });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const record = await archive.db.query.alexandrias.findFirst({ where: eq(alexandrias.id, Number(result.body.assetId)) });
    expect(record).toMatchObject({ type: 'other', mimeType: 'application/octet-stream', fileExtension: 'html' });

    const response = await serveFile(archive.db, context.store, {
      cid: String(result.body.assetCID),
      method: 'GET',
      range: null,
      ifNoneMatch: null,
      download: false,
      fileName: null,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(response.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(html);
  });

  it('refuses a signature by another wallet, and an owner that is not the session, with 403', async () => {
    const before = await leftovers();
    const forged = await upload({ signer: MALLORY });
    expect(forged.status).toBe(403);
    expect(forged.body.message).toMatch(/firma no corresponde/);
    const otherOwner = await upload({ asset: baseAsset({ owner: MALLORY.address }) });
    expect(otherOwner.status).toBe(403);
    expect(await leftovers()).toEqual(before);
  });

  it('refuses a replayed signature', async () => {
    const first = await upload();
    expect(first.status).toBe(200);
    const before = await leftovers();
    const replay = await call(uploadRequest(first.form));
    expect(replay.status).toBe(403);
    expect(replay.body.message).toMatch(/ya se usó/);
    expect(await leftovers()).toEqual(before);
  });

  it('stores the same signed upload sent twice at once only once, and whole', async () => {
    // Blocks no other test stores, several of them, so the two copies stage and move at once.
    const body = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3 * 256 * 1024), Buffer.from('\n')]);
    // Built like a PDF to its end (a cross-reference table and the trailer pointing at it), or it is refused as one.
    const trailer = Buffer.from(`xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 >>\nstartxref\n${body.length}\n%%EOF\n`);
    const document = { name: 'doble.pdf', bytes: Buffer.concat([body, trailer]) };
    const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const signature = await signUpload(ALICE, document.bytes, PROOF, nonce);
    const form = uploadForm({ asset: baseAsset(), document, proof: { name: 'p.png', bytes: PROOF }, nonce, signature });
    const answers = await Promise.all([call(uploadRequest(form)), call(uploadRequest(form))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 403]);
    const stored = answers.find((answer) => answer.status === 200)!.body.assetCID as string;
    // The refused copy took back nothing the accepted one needs.
    const chunks: Uint8Array[] = [];
    for await (const chunk of context.store.cat(stored)) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(document.bytes)).toBe(true);
    expect(await countFiles(stagingDir)).toBe(0);
  });

  it('refuses an upload without a session with 401', async () => {
    const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const signature = await signUpload(ALICE, PDF, PROOF, nonce);
    const form = uploadForm({ asset: baseAsset(), document: { name: 'a.pdf', bytes: PDF }, proof: { name: 'p.png', bytes: PROOF }, nonce, signature });
    const result = await call(uploadRequest(form), null as never);
    expect(result.status).toBe(401);
  });

  it('leaves nothing behind when the connection drops mid-upload', async () => {
    const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const signature = await signUpload(ALICE, PDF, PROOF, nonce);
    const form = uploadForm({ asset: baseAsset(), document: { name: 'a.pdf', bytes: PDF }, proof: { name: 'p.png', bytes: PROOF }, nonce, signature });
    const { bytes, contentType } = await serializedForm(form);
    const before = await leftovers();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Most of the document arrives (several blocks are staged), then the connection breaks.
        if (sent > bytes.length * 0.8) {
          controller.error(new Error('ECONNRESET'));
          return;
        }
        const piece = bytes.subarray(sent, sent + 64 * 1024);
        sent += piece.length;
        controller.enqueue(piece);
      },
    });
    const result = await call(uploadRequest(body, { 'content-type': contentType }));
    expect(result.status).toBe(400);
    expect(result.body.message).toMatch(/conexión se cortó|incompleta/);
    expect(await leftovers()).toEqual(before);
    // The nonce was not spent: the contributor can send the same signed upload again.
    const retry = await call(uploadRequest(form));
    expect(retry.status).toBe(200);
  });

  it('refuses a body that is not multipart with 400', async () => {
    const result = await call(uploadRequest(new Blob(['{}']).stream(), { 'content-type': 'application/json' }));
    expect(result.status).toBe(400);
    expect(result.body.message).toMatch(/multipart/);
  });
});
