/**
 * What the gateway asks the database for a file this server lacks: one lookup, whose answer (held
 * by a record, not withdrawn) the read-through's admission takes (`gateway/catalogue-files.ts`),
 * rather than a second query asking the same. The other copy is a plain trustless gateway on
 * 127.0.0.1 answering raw blocks from its own folder, so every query counted is the gateway's.
 */
import { once } from 'node:events';
import fs from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { alexandrias } from '../../src/lib/server/db/schema.ts';
import { withTrustlessGateways } from '../../src/lib/server/gateway/catalogue-files.ts';
import { readGatewayRequest, serveFile } from '../../src/lib/server/gateway/index.ts';
import { handle } from '../../src/lib/server/http/errors.ts';
import { localBlockstore } from '../../src/lib/server/storage/blockstores.ts';
import { createContentStore, parseCid, type ContentStore } from '../../src/lib/server/storage/index.ts';
import { RAW_BLOCK_MEDIA_TYPE } from '../../src/lib/server/storage/read-through.ts';
import { createTestDatabase, testEngines } from '../helpers/database.ts';
import { collect, pseudoRandom } from '../unit/storage/helpers.ts';

describe.each(testEngines())('the gateway reading a missing file through, on %s', (engine: Engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let root: string;
  let elsewhere: ContentStore;
  let server: Server;
  const asked: string[] = [];
  let here: ContentStore;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-gateway-lookups-'));
    const otherBlocks = localBlockstore(path.join(root, 'elsewhere'));
    elsewhere = createContentStore({ blockstore: otherBlocks });
    // The other copy: raw blocks from its own folder, no database of its own to count.
    server = createServer((request, response) => {
      asked.push(request.url ?? '');
      const cid = parseCid(decodeURIComponent(new URL(request.url ?? '/', 'http://copia.test').pathname.replace(/^\/ipfs\//, '')));
      (async () => {
        if (!(await otherBlocks.has(cid))) return response.writeHead(404).end();
        const bytes = await collect(otherBlocks.get(cid) as AsyncIterable<Uint8Array>);
        response.writeHead(200, { 'Content-Type': RAW_BLOCK_MEDIA_TYPE }).end(bytes);
      })().catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // This server's store as the archive opens it: its own folder, reading through from the other copy.
    here = createContentStore({ blockstore: withTrustlessGateways(localBlockstore(path.join(root, 'here')), [url], database.db) });
  }, 120_000);
  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await database?.destroy();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    asked.length = 0;
  });

  const get = (cid: string) => {
    const url = new URL(`http://archivo.test/ipfs/${cid}`);
    return handle(() => serveFile(database.db, here, readGatewayRequest(cid, new Request(url), url)));
  };

  it('asks the database once for a recorded file it lacks, and serves it from the other copy', async () => {
    const bytes = await collect(pseudoRandom(600_000, 41));
    const { cid } = await elsewhere.add(bytes);
    await database.db.insert(alexandrias).values({ title: 'Presupuesto', type: 'csv', status: 'on_line', cid, mimeType: 'text/csv', fileName: 'presupuesto.csv' });

    const queries = vi.spyOn(database.db, 'execute');
    const response = await get(cid);
    expect(response.status).toBe(200);
    expect(await collect(response.body!)).toEqual(bytes);
    // The gateway's lookup (withdrawn? type? name?) is also what admitted the missing root.
    expect(queries).toHaveBeenCalledTimes(1);
    expect(asked).toContain(`/ipfs/${cid}?format=raw`);
  });

  it('asks the database once for a file no record holds, and asks no other copy for it', async () => {
    const { cid } = await elsewhere.add(await collect(pseudoRandom(100_000, 42)));
    const queries = vi.spyOn(database.db, 'execute');
    expect((await get(cid)).status).toBe(404);
    expect(queries).toHaveBeenCalledTimes(1);
    expect(asked).toEqual([]);
  });
});
