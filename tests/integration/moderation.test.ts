/**
 * Moderation on a real database: a moderator moves a record with a public reason and the history
 * keeps it; everyone else is refused; sources are reviewed the same way; the ranking follows.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, ne } from 'drizzle-orm';
import type { APIContext } from 'astro';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toUser, type User } from '../../src/lib/domain/user.ts';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { aletheias, alexandrias, sourceReviews, sources, statusHistory } from '../../src/lib/server/db/schema.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { createContentStore, type ContentStore } from '../../src/lib/server/storage/index.ts';
import { toResponse } from '../../src/lib/server/http/errors.ts';
import {
  changeRecordStatus,
  changeSourceStatus,
  isModerator,
  recordStatusChange,
  requireModerator,
} from '../../src/lib/server/moderation/index.ts';
import { contributorRanking, notificationsOf, recordHistory, reviewQueue, reviewQueueIds } from '../../src/lib/server/queries/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { ALICE, MALLORY } from '../helpers/siwe.ts';

// The route reads the running archive; here it is the test's database.
const running = vi.hoisted(() => ({ archive: undefined as unknown }));
vi.mock('../../src/lib/server/archive.ts', () => ({ getArchive: async () => running.archive }));
const notificationsRoute = await import('../../src/pages/v2/account/notifications.ts');

const MODERATORS = [ALICE.address.toLowerCase()];
const CONTRIBUTOR = '0x1111111111111111111111111111111111111111';

/** What the middleware puts in `locals` for `user`: the user, and whether they moderate. */
function localsOf(user: User | null): Pick<App.Locals, 'user' | 'moderator'> {
  return { user, moderator: isModerator(user, MODERATORS) };
}

async function statusOf(error: unknown): Promise<{ status: number; message: string }> {
  const response = toResponse(error);
  return { status: response.status, message: ((await response.json()) as { message: string }).message };
}

describe.each(testEngines())('moderation on %s', (engine: Engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  let recordId: number;

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    const [record] = await seeded.db
      .insert(alexandrias)
      .values({ title: 'Contribución de prueba para moderar', type: 'pdf', status: 'under_review', cid: 'bafkreimoderacion', walletAddress: CONTRIBUTOR })
      .returning({ id: alexandrias.id });
    recordId = record!.id;
  }, 120_000);
  afterAll(() => seeded?.destroy());

  it('lets a moderator publish a record, and keeps who, when, from, to and why', async () => {
    const actor = requireModerator(localsOf(toUser(ALICE.address, 'metamask')));
    const change = recordStatusChange.parse({ status: 'on_line', reason: 'Captura y fuente comprobadas.' });
    await changeRecordStatus(seeded.db, { id: recordId, ...change, actor });

    const [record] = await seeded.db.select({ status: alexandrias.status }).from(alexandrias).where(eq(alexandrias.id, recordId));
    expect(record?.status).toBe('on_line');
    const history = await recordHistory(seeded.db, recordId);
    expect(history.at(-1)).toMatchObject({ from: 'under_review', to: 'on_line', reason: 'Captura y fuente comprobadas.', actor: ALICE.address.toLowerCase() });
    expect(history.at(-1)?.at).toBeInstanceOf(Date);
    // Published, the contribution counts in the 'Achievements' ranking.
    expect(await contributorRanking(seeded.db)).toContainEqual({ walletAddress: CONTRIBUTOR, count: 1 });
  });

  it('requires a reason to block or mark broken', async () => {
    const missing = recordStatusChange.safeParse({ status: 'blocked', reason: '  ' });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.message).toMatch(/Indique el motivo/);
    expect(recordStatusChange.safeParse({ status: 'broken', reason: 'El enlace de la fuente ya no existe.' }).success).toBe(true);
    expect(recordStatusChange.safeParse({ status: 'desconocido' }).success).toBe(false);
  });

  it('blocks a record with a reason; it leaves the ranking and its history grows', async () => {
    await changeRecordStatus(seeded.db, { id: recordId, status: 'blocked', reason: 'Contiene datos personales.', actor: MODERATORS[0]! });
    const history = await recordHistory(seeded.db, recordId);
    expect(history.map((entry) => [entry.from, entry.to])).toEqual([
      ['under_review', 'on_line'],
      ['on_line', 'blocked'],
    ]);
    expect(await contributorRanking(seeded.db)).not.toContainEqual(expect.objectContaining({ walletAddress: CONTRIBUTOR }));
    // Setting the same status again is refused, and adds nothing.
    const same = await changeRecordStatus(seeded.db, { id: recordId, status: 'blocked', reason: 'otra vez', actor: MODERATORS[0]! }).catch(statusOf);
    expect(same).toEqual({ status: 400, message: 'El registro ya tiene ese estado.' });
    expect(await recordHistory(seeded.db, recordId)).toHaveLength(2);
  });

  it("tells the contributor the moderators' decisions on their uploads, newest first, through GET /v2/account/notifications", async () => {
    // The archive's own entry (an upload starting under review) is no news, and another wallet's uploads are not theirs.
    const [own] = await seeded.db
      .insert(alexandrias)
      .values({ title: 'Otra contribución del mismo contribuidor', type: 'csv', status: 'under_review', walletAddress: CONTRIBUTOR })
      .returning({ id: alexandrias.id });
    await seeded.db.insert(statusHistory).values({ alexandriaId: own!.id, toStatus: 'under_review', actor: null });
    const told = await notificationsOf(seeded.db, CONTRIBUTOR);
    expect(told.map((item) => [item.recordId, item.status, item.reason])).toEqual([
      [recordId, 'blocked', 'Contiene datos personales.'],
      [recordId, 'on_line', 'Captura y fuente comprobadas.'],
    ]);
    expect(told[0]).toMatchObject({ title: 'Contribución de prueba para moderar', path: `/single/src/bafkreimoderacion?assetId=${recordId}`, at: expect.any(Date) });
    expect(await notificationsOf(seeded.db, MALLORY.address)).toEqual([]);
    expect(await notificationsOf(seeded.db, CONTRIBUTOR, 1)).toHaveLength(1);
    // A wallet is one whatever the case it is written in (a checksummed address).
    const mixed = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
    const [lettered] = await seeded.db
      .insert(alexandrias)
      .values({ title: 'Contribución de una cartera con letras', type: 'pdf', status: 'on_line', walletAddress: mixed.toLowerCase() })
      .returning({ id: alexandrias.id });
    await seeded.db.insert(statusHistory).values({ alexandriaId: lettered!.id, fromStatus: 'under_review', toStatus: 'on_line', actor: MODERATORS[0]! });
    expect((await notificationsOf(seeded.db, mixed)).map((item) => item.recordId)).toEqual([lettered!.id]);
    await seeded.db.delete(alexandrias).where(eq(alexandrias.id, lettered!.id));

    // The route answers the session's wallet only, and nobody signed out.
    running.archive = { db: seeded.db };
    const call = async (user: User | null) => {
      const response = await notificationsRoute.GET({ locals: localsOf(user) } as unknown as APIContext);
      return { status: response.status, cache: response.headers.get('cache-control'), body: (await response.json()) as { body?: unknown[] } };
    };
    expect((await call(null)).status).toBe(401);
    const answer = await call(toUser(CONTRIBUTOR, 'metamask'));
    expect(answer).toMatchObject({ status: 200, cache: 'private, no-store' });
    expect(answer.body.body).toHaveLength(2);
    expect((await call(toUser(MALLORY.address, 'metamask'))).body.body).toEqual([]);
    await seeded.db.delete(alexandrias).where(eq(alexandrias.id, own!.id));
  });

  it('refuses anyone who is not a moderator (403), and nobody signed in (401)', async () => {
    expect(await statusOf((() => { try { requireModerator(localsOf(toUser(MALLORY.address, 'metamask'))); } catch (error) { return error; } })())).toEqual({
      status: 403,
      message: 'Solo los moderadores del archivo pueden hacer esto.',
    });
    expect((await statusOf((() => { try { requireModerator(localsOf(null)); } catch (error) { return error; } })())).status).toBe(401);
    const unknown = await changeRecordStatus(seeded.db, { id: 2_000_000, status: 'on_line', reason: '', actor: MODERATORS[0]! }).catch(statusOf);
    expect(unknown.status).toBe(404);
  });

  it('reviews sources the same way', async () => {
    const [source] = await seeded.db
      .insert(sources)
      .values({ name: 'Portal nuevo', url: 'https://nuevo.example.do', reviewStatus: 'under_review' })
      .returning({ id: sources.id });
    await changeSourceStatus(seeded.db, { id: source!.id, status: 'refused', reason: 'No es una fuente pública.', actor: MODERATORS[0]! });
    const [after] = await seeded.db.select({ status: sources.reviewStatus }).from(sources).where(eq(sources.id, source!.id));
    expect(after?.status).toBe('refused');
    const reviews = await seeded.db.select().from(sourceReviews).where(eq(sourceReviews.sourceId, source!.id));
    expect(reviews).toMatchObject([{ fromStatus: 'under_review', toStatus: 'refused', reason: 'No es una fuente pública.', actor: MODERATORS[0] }]);
    // The harvested sources were accepted from the start.
    const harvested = await seeded.db.select({ status: sources.reviewStatus }).from(sources).where(ne(sources.id, source!.id));
    expect(harvested.length).toBeGreaterThan(5);
    expect(new Set(harvested.map((row) => row.status))).toEqual(new Set(['on_line']));
  });

  it('queues contributions under review, oldest first', async () => {
    const rows = await seeded.db
      .insert(alexandrias)
      .values([
        { title: 'Primera en llegar', type: 'csv', status: 'under_review', walletAddress: CONTRIBUTOR, createdAt: new Date('2026-01-01') },
        { title: 'Segunda en llegar', type: 'csv', status: 'under_review', walletAddress: CONTRIBUTOR, createdAt: new Date('2026-02-01') },
      ])
      .returning({ id: alexandrias.id });
    const queue = await reviewQueueIds(seeded.db, 10, 0);
    expect(queue.ids.slice(0, 2)).toEqual(rows.map((row) => row.id));
    // Harvested metadata waiting for a file is not a contribution to review.
    expect(queue.total).toBe(2);
  });

  it('shows a moderator the other records of a queued file: the same document sent twice, or one the archive holds already', async () => {
    const [held, again, twice, alone] = await seeded.db
      .insert(alexandrias)
      .values([
        { title: 'Presupuesto capturado del portal', type: 'pdf', status: 'on_line', cid: 'bafkreimismoarchivo', createdAt: new Date('2026-02-15') },
        { title: 'Presupuesto enviado otra vez', type: 'pdf', status: 'under_review', cid: 'bafkreimismoarchivo', walletAddress: CONTRIBUTOR, createdAt: new Date('2026-03-01') },
        { title: 'Presupuesto enviado una tercera vez', type: 'pdf', status: 'under_review', cid: 'bafkreimismoarchivo', walletAddress: MALLORY.address, createdAt: new Date('2026-03-02') },
        { title: 'Un documento que nadie más tiene', type: 'pdf', status: 'under_review', cid: 'bafkreiunicoenelarchivo', walletAddress: CONTRIBUTOR, createdAt: new Date('2026-03-03') },
      ])
      .returning({ id: alexandrias.id });
    const { items } = await reviewQueue(seeded.db, 1);
    const sameFileOf = (id: number) => items.find((record) => record.id === id)?.sameFile.map(({ id, title, status }) => ({ id, title, status }));
    expect(sameFileOf(again!.id)).toEqual([
      { id: held!.id, title: 'Presupuesto capturado del portal', status: 'on_line' },
      { id: twice!.id, title: 'Presupuesto enviado una tercera vez', status: 'under_review' },
    ]);
    expect(sameFileOf(twice!.id)).toEqual([
      { id: held!.id, title: 'Presupuesto capturado del portal', status: 'on_line' },
      { id: again!.id, title: 'Presupuesto enviado otra vez', status: 'under_review' },
    ]);
    expect(sameFileOf(alone!.id)).toEqual([]);
    expect(items.find((record) => record.id === again!.id)?.sameFileTotal).toBe(2);
  });

  describe('a blocked record’s files', () => {
    const stored: { dir?: string } = {};
    afterAll(() => (stored.dir ? fs.rm(stored.dir, { recursive: true, force: true }) : undefined));

    async function fetchFile(store: ContentStore, cid: string, query = '') {
      try {
        const url = new URL(`http://archivo.test/ipfs/${cid}${query}`);
        const response = await serveFile(seeded.db, store, readGatewayRequest(cid, new Request(url), url));
        return { status: response.status, cacheControl: response.headers.get('cache-control'), body: Buffer.from(await response.arrayBuffer()).toString('utf8') };
      } catch (error) {
        const response = toResponse(error);
        return { status: response.status, cacheControl: response.headers.get('cache-control'), body: ((await response.json()) as { message: string }).message };
      }
    }

    it('are withdrawn from the gateway too, unless another record that is not blocked holds the same bytes', async () => {
      stored.dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-moderacion-'));
      const store = createContentStore({ dir: stored.dir });
      const document = await store.add(new TextEncoder().encode('año;provincia;casos\n2024;Santiago;12\n'));
      const proof = await store.add(new TextEncoder().encode('captura de la página de origen'));
      const [record] = await seeded.db
        .insert(alexandrias)
        .values({ title: 'Casos por provincia, contribución bloqueable', type: 'csv', status: 'on_line', cid: document.cid, walletAddress: CONTRIBUTOR })
        .returning({ id: alexandrias.id });
      await seeded.db.insert(aletheias).values({ alexandriaId: record!.id, cid: proof.cid, walletAddress: CONTRIBUTOR });
      expect(await fetchFile(store, document.cid)).toMatchObject({ status: 200, body: 'año;provincia;casos\n2024;Santiago;12\n' });

      await changeRecordStatus(seeded.db, { id: record!.id, status: 'blocked', reason: 'Contiene datos personales.', actor: MODERATORS[0]! });
      const refused = await fetchFile(store, document.cid);
      expect(refused).toMatchObject({ status: 410, cacheControl: 'no-store' });
      expect(refused.body).toMatch(/retirado por la moderación/);
      expect(refused.body).toContain(`/single/src/${document.cid}?assetId=${record!.id}`);
      // Nor as a CAR; and the proof screenshot goes with it.
      expect((await fetchFile(store, document.cid, '?format=car')).status).toBe(410);
      expect((await fetchFile(store, proof.cid)).status).toBe(410);
      // A CID no record holds is served as before.
      const loose = await store.add(new TextEncoder().encode('sin registro'));
      expect((await fetchFile(store, loose.cid)).status).toBe(200);

      // The same bytes, contributed again in a record that is online: they are served.
      await seeded.db
        .insert(alexandrias)
        .values({ title: 'Casos por provincia, otra contribución', type: 'csv', status: 'on_line', cid: document.cid, walletAddress: CONTRIBUTOR });
      expect((await fetchFile(store, document.cid)).status).toBe(200);
      expect((await fetchFile(store, proof.cid)).status).toBe(410);

      // Back online, the first record's proof is served again.
      await changeRecordStatus(seeded.db, { id: record!.id, status: 'on_line', reason: 'Datos anonimizados por la fuente.', actor: MODERATORS[0]! });
      expect((await fetchFile(store, proof.cid)).status).toBe(200);
    });
  });
});
