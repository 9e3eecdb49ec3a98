/**
 * Withdrawal reaches a file's blocks (issue #16, item 10): once its record is blocked, a 700 KB
 * CSV is refused by its root and by each of its 256 KiB blocks' own CIDs, as bytes, as a CAR and
 * as a named download; a block that a file still served is made of too stays served.
 * A file two records hold is named, at the gateway, after the more public one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { alexandrias } from '../../src/lib/server/db/schema.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { toResponse } from '../../src/lib/server/http/errors.ts';
import { changeRecordStatus } from '../../src/lib/server/moderation/index.ts';
import { CHUNK_SIZE } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines } from '../helpers/database.ts';
import { MiB, pseudoRandom } from '../unit/storage/helpers.ts';

const MODERATOR = '0x2222222222222222222222222222222222222222';

/** `rows` lines of a CSV, each different, starting at row `from`. */
function csvRows(from: number, rows: number): string {
  let out = '';
  for (let i = from; i < from + rows; i += 1) out += `${i};Provincia ${i % 32};${(i * 7919) % 100_003};Municipio ${i % 155}\n`;
  return out;
}

describe.each(testEngines())('withdrawn blocks on %s', (engine: Engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    blocks = await createTestStore();
  }, 120_000);
  afterAll(async () => {
    await database?.destroy();
    await blocks?.destroy();
  });

  async function fetchFile(cid: string, query = '') {
    const url = new URL(`http://archivo.test/ipfs/${cid}${query}`);
    try {
      const response = await serveFile(database.db, blocks.store, readGatewayRequest(cid, new Request(url), url));
      await response.body?.cancel();
      return { status: response.status, disposition: response.headers.get('content-disposition'), message: null };
    } catch (error) {
      const response = toResponse(error);
      const { message, recordPage } = (await response.json()) as { message: string; recordPage?: string };
      return { status: response.status, disposition: null, message, recordPage };
    }
  }

  async function blockCids(root: string): Promise<string[]> {
    const cids: string[] = [];
    for await (const block of blocks.store.blocks(root)) cids.push(block.cid.toString());
    return cids;
  }

  async function record(title: string, cid: string): Promise<number> {
    const [row] = await database.db
      .insert(alexandrias)
      .values({ title, type: 'csv', status: 'on_line', cid, mimeType: 'text/csv', fileName: `${title}.csv` })
      .returning({ id: alexandrias.id });
    return row!.id;
  }

  it('finds a file\'s blocks from its interior nodes alone, the same ones a CAR sends', async () => {
    for (const size of [700_000, 44 * MiB]) {
      const { cid } = await blocks.store.add(pseudoRandom(size, size));
      expect(new Set((await blocks.store.blockIds(cid)).map(String))).toEqual(new Set(await blockCids(cid)));
    }
  });

  it('refuses every block of a withdrawn 700 KB CSV, as bytes, as a CAR and as a download, but those a served file shares', async () => {
    const header = 'anio;provincia;casos;municipio\n';
    const withdrawnCsv = new TextEncoder().encode(header + csvRows(0, 20_000)).subarray(0, 700_000);
    // Another record's CSV: the same first 256 KiB (an earlier cut of the same table), then its own rows.
    const sharedPrefix = withdrawnCsv.subarray(0, CHUNK_SIZE);
    const servedCsv = Buffer.concat([sharedPrefix, new TextEncoder().encode(csvRows(90_000, 8_000))]);

    const withdrawn = await blocks.store.add(withdrawnCsv);
    const served = await blocks.store.add(servedCsv);
    const [root, shared, ...own] = await blockCids(withdrawn.cid);
    expect(own).toHaveLength(2); // three 256 KiB leaves under one root
    expect(await blockCids(served.cid)).toContain(shared);

    const withdrawnId = await record('casos-por-provincia', withdrawn.cid);
    const servedId = await record('casos-por-provincia-corte-anterior', served.cid);
    for (const block of own) expect((await fetchFile(block!)).status).toBe(200);

    await changeRecordStatus(database.db, { id: withdrawnId, status: 'blocked', reason: 'Contiene datos personales.', actor: MODERATOR });
    expect((await fetchFile(root!)).status).toBe(410);
    for (const block of own) {
      const refused = await fetchFile(block!);
      expect(refused.status).toBe(410);
      expect(refused.message).toMatch(/bloque es parte de un archivo retirado/);
      expect(refused.message).toContain(`?assetId=${withdrawnId}`);
      expect(refused.recordPage).toMatch(new RegExp(`^/single/src/\\w+\\?assetId=${withdrawnId}$`));
      expect((await fetchFile(block!, '?format=car')).status).toBe(410);
      expect((await fetchFile(block!, '?download=retirado.csv')).status).toBe(410);
    }
    // The first block is also the served file's: its bytes are public through it anyway.
    expect(await fetchFile(shared!, '?download=retirado.csv')).toMatchObject({ status: 200, disposition: expect.stringMatching(/^attachment; filename="retirado\.csv/) });
    expect((await fetchFile(served.cid)).status).toBe(200);

    // Once the other record is blocked too, nothing of either is served.
    await changeRecordStatus(database.db, { id: servedId, status: 'blocked', reason: 'Mismos datos personales.', actor: MODERATOR });
    expect((await fetchFile(shared!)).status).toBe(410);
    expect((await fetchFile(shared!, '?format=car')).status).toBe(410);

    // Back online, the withdrawn file's blocks are served again.
    await changeRecordStatus(database.db, { id: withdrawnId, status: 'on_line', reason: 'Datos anonimizados por la fuente.', actor: MODERATOR });
    for (const block of [shared, ...own]) expect((await fetchFile(block!)).status).toBe(200);
  });

  it('names a shared file after its published record, not after an older one a moderator blocked', async () => {
    const { cid } = await blocks.store.add(new TextEncoder().encode(header() + csvRows(500_000, 40)));
    // The first upload, blocked for its name; the same bytes again, published under a proper one.
    const blockedId = await record('nombre-ofensivo', cid);
    await changeRecordStatus(database.db, { id: blockedId, status: 'blocked', reason: 'Nombre ofensivo.', actor: MODERATOR });
    await record('casos-2024', cid);
    expect(await fetchFile(cid)).toMatchObject({ status: 200, disposition: 'inline; filename="casos-2024.csv"; filename*=UTF-8\'\'casos-2024.csv' });
  });
});

function header(): string {
  return 'anio;provincia;casos;municipio\n';
}
