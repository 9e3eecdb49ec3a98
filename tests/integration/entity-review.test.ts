/**
 * Issue #16, item 6: a contributor's new source and institution stay out of every public read
 * (group lists, search, the upload wizard's lookups, collection pages, record pages, DCAT, the
 * exports, the sitemap, the import timeline, GraphQL's group lists, groupBy keys and filters) until a moderator accepts
 * them; refused ones never show, even after having been accepted. Driven through a real upload,
 * the real moderation functions and the real institution status endpoint.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AstroCookies } from 'astro';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toUser } from '../../src/lib/domain/user.ts';
import { createSession, resolveSession, upsertUser } from '../../src/lib/server/auth/sessions.ts';
import { issueNonce } from '../../src/lib/server/auth/nonces.ts';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { alexandrias, departmentReviews, departments, sources } from '../../src/lib/server/db/schema.ts';
import { catalogResponse } from '../../src/lib/server/dcat/response.ts';
import { exportResponse } from '../../src/lib/server/export/catalog-export.ts';
import { toResponse } from '../../src/lib/server/http/errors.ts';
import { changeDepartmentStatus, changeSourceStatus, isModerator } from '../../src/lib/server/moderation/index.ts';
import { countGroups, countRecordsFast, groupRecords } from '../../src/lib/server/queries/connections.ts';
import { findGroups } from '../../src/lib/server/queries/find.ts';
import {
  archiveTotals,
  departmentsUnderReview,
  findImports,
  getRecord,
  listGroup,
  loadCollection,
  searchArchive,
  searchGroups,
  sitemapEntries,
  sourcesUnderReview,
} from '../../src/lib/server/queries/index.ts';
import { createContentStore, createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { addAsset, type UploadContext } from '../../src/lib/server/uploads/index.ts';
import { collectionPath } from '../../src/lib/paths.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { ALICE, MALLORY } from '../helpers/siwe.ts';
import { pngImage, signUpload, uploadForm, uploadRequest } from '../helpers/upload.ts';

// The endpoint reads the running archive; here it is the test's database and moderators.
const running = vi.hoisted(() => ({ archive: undefined as unknown }));
vi.mock('../../src/lib/server/archive.ts', () => ({ getArchive: async () => running.archive }));
const { POST: departmentStatus } = await import('../../src/pages/v2/ops/departments/[id]/status.ts');

const PDF = await fs.readFile(path.join(FIXTURES_DIR, 'files/pdf/sisalril-pespj-d1.pdf'));
const ORIGIN = 'https://archivo.example';
const MODERATOR = ALICE.address.toLowerCase();

const PHISHING_URL = 'https://portal-oficial-transparencia.example.net/login';
const SOURCE_NAME = 'Portal Oficial de Transparencia Fiscalizada';
const ISSUER_NAME = 'Ministerio de Hacienda Oficial Verificadísimo';
const ISSUER_URL = 'https://hacienda-oficial-verificado.example.net';

describe.each(testEngines())('sources and institutions under review on %s', (engine: Engine) => {
  let archive: Awaited<ReturnType<typeof createSeededDatabase>>;
  let dataDir: string;
  let context: Omit<UploadContext, 'request' | 'user'>;
  let categoryId: number;
  const created = {} as { recordId: number; cid: string; importId: number; sourceId: number; departmentId: number };

  beforeAll(async () => {
    archive = await createSeededDatabase(engine);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-revision-'));
    context = {
      db: archive.db,
      store: createContentStore({ dir: path.join(dataDir, 'blocks') }),
      staging: createStagingArea({ storeDir: path.join(dataDir, 'blocks'), dir: path.join(dataDir, 'staging'), guard: databaseFileGuard(archive.db) }),
      config: { maxDocumentBytes: 200_000_000, maxProofBytes: 10_000_000, uploadsPerHour: { wallet: 1000, ip: 1000 } },
      clientAddress: '127.0.0.1',
    };
    categoryId = (await archive.db.query.categories.findFirst())!.id;
    running.archive = { db: archive.db, config: { moderators: [MODERATOR] } };
  }, 120_000);

  afterAll(async () => {
    await archive?.destroy();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function upload(asset: Record<string, unknown>, proofSeed: number) {
    const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const proof = pngImage(60, 40, proofSeed);
    const signature = await signUpload(ALICE, PDF, proof, nonce);
    const form = uploadForm({ asset, document: { name: 'plan.pdf', bytes: PDF }, proof: { name: 'captura.png', bytes: proof }, nonce, signature });
    try {
      return { status: 200, body: await addAsset({ ...context, user: toUser(ALICE.address, 'metamask'), request: uploadRequest(form) }) };
    } catch (error) {
      const response = toResponse(error);
      return { status: response.status, body: (await response.json()) as { message: string } };
    }
  }

  function asset(overrides: Record<string, unknown>) {
    return {
      title: 'Plan estratégico institucional del periodo 2024 a 2028',
      docType: 'pdf',
      description:
        'Documento publicado por la institución con su plan estratégico, sus metas, indicadores de seguimiento y el presupuesto de cada año del periodo.',
      categoryId,
      docSource: 'https://www.sisalril.gob.do/transparencia/plan-estrategico',
      owner: ALICE.address,
      ...overrides,
    };
  }

  async function text(response: Response): Promise<string> {
    expect(response.status).toBe(200);
    return response.text();
  }

  /** Every public place the new source and institution could show up, and whether they do. */
  async function publicTraces() {
    const { sourceId, departmentId, recordId, importId } = created;
    const window = { limit: 100, start: 0 };
    const record = await getRecord(archive.db, recordId);
    const sitemap = (await sitemapEntries(archive.db, { offset: 0, limit: 100_000 })).map((entry) => entry.path);
    const turtle = await text(await catalogResponse('turtle', { db: archive.db, origin: ORIGIN, request: new Request(`${ORIGIN}/catalog.ttl`) }));
    const csv = await text(await exportResponse({ db: archive.db, dataDir, origin: ORIGIN, format: 'csv', request: new Request(`${ORIGIN}/export/catalogo.csv`) }));
    const search = await searchArchive(archive.db, 'Verificadísimo or Fiscalizada', { facets: true, pageSize: 100 });
    const [uploadImport] = await findImports(archive.db, { id: importId }, { limit: 1, start: 0 });
    return {
      sourceListed: (await listGroup(archive.db, 'src', 1)).items.some((item) => item.id === sourceId),
      departmentListed: (await listGroup(archive.db, 'dep', 1)).items.some((item) => item.id === departmentId),
      // The upload wizard's lookups (REST getAll ?name=) and GraphQL's lists and connections.
      sourceFound: (await searchGroups(archive.db, 'src', 'Transparencia Fiscalizada')).some((hit) => hit.id === sourceId),
      departmentFound: (await searchGroups(archive.db, 'dep', 'Hacienda Verificadísimo')).some((hit) => hit.id === departmentId),
      sourceByName: (await findGroups(archive.db, 'src', { name: 'Fiscalizada' }, window)).length + (await countGroups(archive.db, 'src', { id: sourceId })),
      departmentByName: (await findGroups(archive.db, 'dep', { name: 'Verificadísimo' }, window)).length + (await countGroups(archive.db, 'dep', { id: departmentId })),
      sourcePage: (await loadCollection(archive.db, 'src', sourceId, 1)) !== null,
      departmentPage: (await loadCollection(archive.db, 'dep', departmentId, 1)) !== null,
      // Searching the entities' own words finds their records only through public entities.
      searchFindsRecord: search.items.some((item) => item.id === recordId),
      searchFacetNames: [...search.facets.source, ...search.facets.department].some((facet) => facet.label === SOURCE_NAME || facet.label === ISSUER_NAME),
      recordNamesSource: record?.source?.id === sourceId && record.source.url === PHISHING_URL,
      recordNamesDepartment: record?.department?.id === departmentId,
      turtleNamesDepartment: turtle.includes(ISSUER_NAME) || turtle.includes(`${collectionPath('dep', departmentId)}>`),
      csvNamesSource: csv.includes(SOURCE_NAME),
      csvNamesDepartment: csv.includes(ISSUER_NAME),
      sitemapSource: sitemap.includes(collectionPath('src', sourceId)),
      sitemapDepartment: sitemap.includes(collectionPath('dep', departmentId)),
      importNamesSource: uploadImport?.source?.id === sourceId,
      // GraphQL's groupBy keys and `where: { source | department }`, by the running counts and by the rows.
      sourceGrouped: await grouped('source', sourceId),
      departmentGrouped: await grouped('department', departmentId),
      recordsOfSource: (await countRecordsFast(archive.db, { sourceId })) + (await countRecordsFast(archive.db, { sourceId, title: 'Plan estratégico' })),
      recordsOfDepartment: (await countRecordsFast(archive.db, { departmentId })) + (await countRecordsFast(archive.db, { departmentId, title: 'Plan estratégico' })),
    };
  }

  async function grouped(field: 'source' | 'department', id: number): Promise<boolean> {
    const byCounts = await groupRecords(archive.db, {}, field);
    const byRows = await groupRecords(archive.db, { title: 'Plan estratégico' }, field);
    return [...byCounts, ...byRows].some((group) => Number(group.key) === id);
  }

  const hidden = {
    sourceListed: false,
    departmentListed: false,
    sourceFound: false,
    departmentFound: false,
    sourceByName: 0,
    departmentByName: 0,
    sourcePage: false,
    departmentPage: false,
    searchFindsRecord: false,
    searchFacetNames: false,
    recordNamesSource: false,
    recordNamesDepartment: false,
    turtleNamesDepartment: false,
    csvNamesSource: false,
    csvNamesDepartment: false,
    sitemapSource: false,
    sitemapDepartment: false,
    importNamesSource: false,
    sourceGrouped: false,
    departmentGrouped: false,
    recordsOfSource: 0,
    recordsOfDepartment: 0,
  };

  async function etags() {
    const catalog = await catalogResponse('turtle', { db: archive.db, origin: ORIGIN, request: new Request(`${ORIGIN}/catalog.ttl`) });
    const csv = await exportResponse({ db: archive.db, dataDir, origin: ORIGIN, format: 'csv', request: new Request(`${ORIGIN}/export/catalogo.csv`) });
    await catalog.body?.cancel();
    await csv.body?.cancel();
    return { catalog: catalog.headers.get('etag'), csv: csv.headers.get('etag') };
  }

  it('keeps a contributor’s new source and institution out of every public read while under review', async () => {
    const totalsBefore = await archiveTotals(archive.db);
    const result = await upload(
      asset({
        newSource: { name: SOURCE_NAME, description: 'Portal con los datos fiscales oficiales', url: PHISHING_URL },
        newIssuer: { name: ISSUER_NAME, description: 'Institución oficial de hacienda', url: ISSUER_URL },
      }),
      7,
    );
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const { assetId, assetCID } = result.body as { assetId: number; assetCID: string };
    const [row] = await archive.db.select().from(alexandrias).where(eq(alexandrias.id, assetId));
    Object.assign(created, { recordId: assetId, cid: assetCID, importId: row!.importId!, sourceId: row!.sourceId!, departmentId: row!.departmentId! });

    const [source] = await archive.db.select().from(sources).where(eq(sources.id, created.sourceId));
    const [department] = await archive.db.select().from(departments).where(eq(departments.id, created.departmentId));
    expect(source).toMatchObject({ name: SOURCE_NAME, reviewStatus: 'under_review' });
    expect(department).toMatchObject({ name: ISSUER_NAME, reviewStatus: 'under_review' });

    expect(await publicTraces()).toEqual(hidden);
    // The record itself stays public, under review, and says its source and institution wait.
    const record = await getRecord(archive.db, created.recordId);
    expect(record).toMatchObject({ status: 'under_review', source: null, department: null, underReview: { source: true, department: true } });
    expect(JSON.stringify(record)).not.toContain('portal-oficial-transparencia');
    // Not counted on the dashboard either.
    expect(await archiveTotals(archive.db)).toMatchObject({ sources: totalsBefore.sources, departments: totalsBefore.departments });
    // The moderators' queue lists both.
    expect((await sourcesUnderReview(archive.db)).map((entry) => entry.id)).toContain(created.sourceId);
    expect((await departmentsUnderReview(archive.db)).map((entry) => entry.id)).toContain(created.departmentId);
  });

  it('publishes them once a moderator accepts them, and the catalogue and export tags change', async () => {
    const before = await etags();
    await changeSourceStatus(archive.db, { id: created.sourceId, status: 'on_line', reason: '', actor: MODERATOR });
    await changeDepartmentStatus(archive.db, { id: created.departmentId, status: 'on_line', reason: '', actor: MODERATOR });
    const after = await etags();
    expect(after.catalog).not.toBe(before.catalog);
    expect(after.csv).not.toBe(before.csv);

    expect(await publicTraces()).toEqual({
      sourceListed: true,
      departmentListed: true,
      sourceFound: true,
      departmentFound: true,
      sourceByName: 2,
      departmentByName: 2,
      sourcePage: true,
      departmentPage: true,
      searchFindsRecord: true,
      searchFacetNames: true,
      recordNamesSource: true,
      recordNamesDepartment: true,
      turtleNamesDepartment: true,
      csvNamesSource: true,
      csvNamesDepartment: true,
      sitemapSource: true,
      sitemapDepartment: true,
      importNamesSource: true,
      sourceGrouped: true,
      departmentGrouped: true,
      recordsOfSource: 2,
      recordsOfDepartment: 2,
    });
    expect((await getRecord(archive.db, created.recordId))?.underReview).toEqual({ source: false, department: false });
  });

  it('hides them everywhere again when refused after having been accepted', async () => {
    const before = await etags();
    await changeSourceStatus(archive.db, { id: created.sourceId, status: 'refused', reason: 'Enlace de suplantación.', actor: MODERATOR });
    await changeDepartmentStatus(archive.db, { id: created.departmentId, status: 'refused', reason: 'No es una institución real.', actor: MODERATOR });
    const after = await etags();
    expect(after.catalog).not.toBe(before.catalog);
    expect(after.csv).not.toBe(before.csv);
    expect(await publicTraces()).toEqual(hidden);
    // Refused is not "pending": the record page says nothing of them.
    expect((await getRecord(archive.db, created.recordId))?.underReview).toEqual({ source: false, department: false });
  });

  it('never shows a source and institution refused straight from review, nor lets a contributor pick them by id', async () => {
    const result = await upload(
      asset({
        title: 'Otro documento con una fuente que nadie aceptará nunca',
        newSource: { name: 'Portal Zarzaparrilla', description: 'Otro portal', url: 'https://zarzaparrilla.example.net' },
        newIssuer: { name: 'Dirección Zarzamora', description: 'Otra institución', url: 'https://zarzamora.example.net' },
      }),
      8,
    );
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const [row] = await archive.db.select().from(alexandrias).where(eq(alexandrias.id, (result.body as { assetId: number }).assetId));
    await changeSourceStatus(archive.db, { id: row!.sourceId!, status: 'refused', reason: 'Sitio falso.', actor: MODERATOR });
    await changeDepartmentStatus(archive.db, { id: row!.departmentId!, status: 'refused', reason: 'Institución falsa.', actor: MODERATOR });
    expect(await searchGroups(archive.db, 'src', 'Zarzaparrilla')).toEqual([]);
    expect(await searchGroups(archive.db, 'dep', 'Zarzamora')).toEqual([]);
    const search = await searchArchive(archive.db, 'Zarzaparrilla or Zarzamora', { pageSize: 100 });
    expect(search.items.map((item) => item.id)).not.toContain(row!.id);
    expect(await getRecord(archive.db, row!.id)).toMatchObject({ source: null, department: null, underReview: { source: false, department: false } });

    // The wizard never offers them, and an id sent by hand is refused as unknown.
    const picked = await upload(asset({ title: 'Un tercer documento que apunta a la fuente rechazada', sourceId: row!.sourceId, issuerId: row!.departmentId }), 9);
    expect(picked).toEqual({ status: 400, body: expect.objectContaining({ message: 'Source is required' }) });
  });

  describe('POST /v2/ops/departments/{id}/status', () => {
    async function call(id: number, body: unknown, token?: string) {
      const request = new Request(`${ORIGIN}/v2/ops/departments/${id}/status`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const cookies = { get: () => undefined } as unknown as AstroCookies;
      // What the middleware puts in `locals`: the session's user, and whether they moderate.
      const user = await resolveSession(request, cookies, async () => archive.db);
      const locals = { user, moderator: isModerator(user, [MODERATOR]) };
      const response = await departmentStatus({ params: { id: String(id) }, request, cookies, locals } as unknown as Parameters<typeof departmentStatus>[0]);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    async function tokenOf(address: string): Promise<string> {
      return (await createSession(archive.db, await upsertUser(archive.db, address, 'metamask'))).token;
    }

    it('lets only a moderator accept or refuse an institution, with a reason to refuse', async () => {
      const [department] = await archive.db
        .insert(departments)
        .values({ name: 'Oficina creada por un contribuyente', website: 'https://oficina.example.net', reviewStatus: 'under_review' })
        .returning({ id: departments.id });
      const id = department!.id;

      expect((await call(id, { status: 'on_line' })).status).toBe(401);
      const forbidden = await call(id, { status: 'on_line' }, await tokenOf(MALLORY.address));
      expect(forbidden).toEqual({ status: 403, body: expect.objectContaining({ message: 'Solo los moderadores del archivo pueden hacer esto.' }) });

      const moderator = await tokenOf(ALICE.address);
      expect((await call(id, { status: 'refused' }, moderator)).status).toBe(400);
      expect((await call(2_000_000_000, { status: 'on_line' }, moderator)).status).toBe(404);
      const accepted = await call(id, { status: 'on_line', reason: 'Institución comprobada.' }, moderator);
      expect(accepted).toMatchObject({ status: 200 });
      expect(JSON.stringify(accepted.body)).toContain('on_line');
      expect((await findGroups(archive.db, 'dep', { id }, { limit: 1, start: 0 })).map((item) => item.id)).toEqual([id]);

      const reviews = await archive.db.select().from(departmentReviews).where(eq(departmentReviews.departmentId, id));
      expect(reviews).toMatchObject([{ fromStatus: 'under_review', toStatus: 'on_line', reason: 'Institución comprobada.', actor: MODERATOR }]);
    });
  });
});
