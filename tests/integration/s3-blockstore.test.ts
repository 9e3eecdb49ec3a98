/**
 * The S3 blockstore (issue #21) against a real S3-protocol server (s3rver on 127.0.0.1): the same
 * files give the same CIDs and bytes as on disk; cat, ranges, blocks and stat read from the bucket;
 * a damaged object is refused, a missing one reported; an upload through the real upload path lands
 * in the bucket; a commit cut short before its roots leaves no readable half file and the sweep takes
 * back what it added; and two archives opened on one PostgreSQL, one bucket and one data folder each
 * keep their staging from the other while alive.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toUser } from '../../src/lib/domain/user.ts';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { issueNonce } from '../../src/lib/server/auth/nonces.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { departments, sources } from '../../src/lib/server/db/schema.ts';
import { toResponse } from '../../src/lib/server/http/errors.ts';
import { serverInstances } from '../../src/lib/server/instances/index.ts';
import {
  cidOf,
  CorruptBlockError,
  createContentStore,
  createStagingArea,
  databaseFileGuard,
  MissingBlockError,
  NotInStoreError,
  openBlockstore,
  parseCid,
  s3Blockstore,
  type ContentStore,
  type OpenedBlockstore,
} from '../../src/lib/server/storage/index.ts';
import { addAsset } from '../../src/lib/server/uploads/index.ts';
import { createSeededDatabase, MIGRATIONS_DIR, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { ALICE } from '../helpers/siwe.ts';
import { pngImage, signUpload, uploadForm, uploadRequest } from '../helpers/upload.ts';
import { adminQuery, databaseUrl } from '../setup/database-templates.ts';
import { collect, guardHolding, NO_TRANSACTION, pseudoRandom } from '../unit/storage/helpers.ts';

const fixture = (name: string) => fs.readFile(path.join(FIXTURES_DIR, 'files', name));

let s3: TestS3;
const dirs: string[] = [];
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3?.stop();
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-s3-test-'));
  dirs.push(dir);
  return dir;
}
/** A blockstore of its own in the bucket, and the keys it has written. */
function bucketStore(): { blockstore: OpenedBlockstore; store: ContentStore; prefix: string; keys(): Promise<string[]> } {
  const prefix = `${randomUUID()}/`;
  const blockstore = s3Blockstore(s3.settings(prefix));
  return { blockstore, store: createContentStore({ blockstore }), prefix, keys: () => s3.keys(prefix) };
}

describe('the S3 blockstore', () => {
  it('tells the health check a bucket that is not there, which a missing block does not', async () => {
    await expect(bucketStore().blockstore.probe()).resolves.toBeUndefined();
    const missing = s3Blockstore({ ...s3.settings('x/'), bucket: 'un-cubo-que-no-existe' });
    await expect(missing.probe()).rejects.toThrow();
    // HeadObject answers a missing bucket as it answers a missing block: the probe is what tells them apart.
    expect(await missing.has(CID.parse((await cidOf(Buffer.from('hola'))).cid))).toBe(false);
  });

  it('gives every file the CID, bytes, blocks, ranges and size it has on disk', async () => {
    const onDisk = createContentStore({ dir: await tempDir() });
    const { store: inBucket, prefix, keys } = bucketStore();
    const files = [
      await fixture('pdf/sisalril-pespj-d1.pdf'),
      await fixture('csv/licencias-construccion-mivhed-2022-2025.csv'),
      await fixture('spreadsheets/one-primas-netas-seguros-2015-2023.xlsx'),
      await collect(pseudoRandom(3 * 1024 * 1024 + 17, 21)),
    ];
    for (const bytes of files) {
      const local = await onDisk.add(bytes);
      const remote = await inBucket.add(bytes);
      expect(remote).toEqual(local);
      expect(remote.cid).toBe((await cidOf(bytes)).cid);
      expect((await collect(inBucket.cat(remote.cid))).equals(bytes)).toBe(true);
      expect(await inBucket.stat(remote.cid)).toEqual(await onDisk.stat(local.cid));
      const range = { offset: Math.floor(bytes.length / 3), length: 300_000 };
      expect((await collect(inBucket.cat(remote.cid, range))).equals(await collect(onDisk.cat(local.cid, range)))).toBe(true);
      const blocksOf = async (store: ContentStore) => {
        const found: string[] = [];
        for await (const block of store.blocks(remote.cid)) found.push(`${block.cid.toString()}:${Buffer.from(block.bytes).toString('base64')}`);
        return found;
      };
      expect(await blocksOf(inBucket)).toEqual(await blocksOf(onDisk));
      // Each block is one object named by its CID, the root's among them.
      expect(await keys()).toContain(`${prefix}${remote.cid}`);
    }
    const ids = (await Promise.all(files.map(async (bytes) => (await inBucket.blockIds((await cidOf(bytes)).cid)).map(String)))).flat();
    expect((await keys()).sort()).toEqual([...new Set(ids)].map((id) => `${prefix}${id}`).sort());
  });

  it('refuses a damaged object and reports a missing one', async () => {
    const { blockstore, store, prefix } = bucketStore();
    const { cid } = await store.add(pseudoRandom(700 * 1024, 22)); // three leaves and a root
    const leaves = (await store.blockIds(cid)).filter((block) => block.toString() !== cid);
    expect(leaves).toHaveLength(3);

    await s3.overwrite(`${prefix}${leaves[1]!.toString()}`, new Uint8Array(256 * 1024).fill(7));
    await expect(collect(store.cat(cid))).rejects.toBeInstanceOf(CorruptBlockError);
    await expect((async () => {
      for await (const block of store.blocks(cid)) void block;
    })()).rejects.toBeInstanceOf(CorruptBlockError);
    // A range that does not reach the damaged leaf still reads.
    expect((await collect(store.cat(cid, { offset: 0, length: 1000 }))).length).toBe(1000);

    await blockstore.delete(leaves[2]!);
    await expect(collect(store.cat(cid, { offset: 600 * 1024 }))).rejects.toBeInstanceOf(MissingBlockError);

    const single = await store.add(new TextEncoder().encode('un solo bloque'));
    await s3.overwrite(`${prefix}${single.cid}`, new TextEncoder().encode('otro contenido'));
    await expect(store.stat(single.cid)).rejects.toBeInstanceOf(CorruptBlockError);
    await blockstore.delete(parseCid(single.cid));
    expect(await store.has(single.cid)).toBe(false);
    await expect(store.stat(single.cid)).rejects.toBeInstanceOf(NotInStoreError);
  });

  it('leaves no readable half file when a commit stops before its roots, and the sweep takes back what it added', async () => {
    const { blockstore, store, keys } = bucketStore();
    const stagingDir = path.join(await tempDir(), 'staging');
    const kept = await store.add(pseudoRandom(600 * 1024, 23));
    const before = await keys();
    // The process dies as the first root is about to go up (every other block already has).
    let died = false;
    const dying: OpenedBlockstore = {
      ...blockstore,
      async adopt(cid, file) {
        if (cid.code === 0x70) {
          died = true;
          throw new Error('el proceso murió');
        }
        await blockstore.adopt(cid, file);
      },
    };
    const upload = createStagingArea({ store: dying, dir: stagingDir, guard: guardHolding() }).begin();
    const document = await upload.add(pseudoRandom(2 * 1024 * 1024, 24));
    await upload.add(pseudoRandom(600 * 1024, 23)); // the same bytes as the stored file: its blocks stay
    await expect(upload.commit(NO_TRANSACTION)).rejects.toThrow('el proceso murió');
    expect(died).toBe(true);
    expect((await keys()).length).toBeGreaterThan(before.length);
    expect(await store.has(document.cid)).toBe(false);
    await expect(collect(store.cat(document.cid))).rejects.toBeInstanceOf(NotInStoreError);

    // The next owner of the staging folder (a restart) sweeps: the record never committed.
    expect(await createStagingArea({ store: blockstore, dir: stagingDir, guard: guardHolding() }).sweep()).toBe(2);
    expect(await keys()).toEqual(before);
    expect(await fs.readdir(stagingDir)).toEqual([]);
    // The file that was stored before, whose blocks the upload shared, is whole.
    expect((await collect(store.cat(kept.cid))).equals(await collect(pseudoRandom(600 * 1024, 23)))).toBe(true);
  });

  it('keeps a commit that finished when its record made it, and puts the local copies away on settle', async () => {
    const { blockstore, store } = bucketStore();
    const stagingDir = path.join(await tempDir(), 'staging');
    const upload = createStagingArea({ store: blockstore, dir: stagingDir, guard: guardHolding() }).begin();
    const bytes = await collect(pseudoRandom(1024 * 1024 + 3, 25));
    const { cid } = await upload.add(bytes);
    await upload.commit(NO_TRANSACTION); // the process dies before settle, its record committed
    expect(await createStagingArea({ store: blockstore, dir: stagingDir, guard: guardHolding(new Set([cid])) }).sweep()).toBe(2);
    expect((await collect(store.cat(cid))).equals(bytes)).toBe(true);

    const next = createStagingArea({ store: blockstore, dir: stagingDir, guard: guardHolding() }).begin();
    const again = await next.add(pseudoRandom(300 * 1024, 26));
    await next.commit(NO_TRANSACTION);
    await next.settle();
    expect(await fs.readdir(stagingDir)).toEqual([]);
    expect(await store.has(again.cid)).toBe(true);
  });

  it('is chosen by configuration, and a bucket is required', () => {
    const config = readConfig({ ...s3.env('archivo'), ARCHIVE_S3_FORCE_PATH_STYLE: '' });
    expect(config.blockstore).toMatchObject({ kind: 's3', bucket: s3.bucket, prefix: 'archivo/', endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1' });
    expect(readConfig({}).blockstore).toEqual({ kind: 'fs' });
    expect(() => readConfig({ ARCHIVE_BLOCKSTORE: 's3' })).toThrow(/ARCHIVE_S3_BUCKET/);
    expect(() => readConfig({ ARCHIVE_BLOCKSTORE: 'ftp' })).toThrow(/ARCHIVE_BLOCKSTORE/);
    expect(() => readConfig({ ARCHIVE_BLOCKSTORE: 's3', ARCHIVE_S3_BUCKET: 'b', ARCHIVE_S3_ACCESS_KEY_ID: 'x' })).toThrow(/ARCHIVE_S3_SECRET_ACCESS_KEY/);
  });
});

describe.each(testEngines())('an upload to an S3 blockstore on %s', (engine: Engine) => {
  let archive: Awaited<ReturnType<typeof createSeededDatabase>>;
  beforeAll(async () => {
    archive = await createSeededDatabase(engine);
  }, 120_000);
  afterAll(() => archive?.destroy());

  it('lands its blocks in the bucket, readable, and leaves nothing staged or on the local disk', async () => {
    const dataDir = await tempDir();
    const prefix = `${randomUUID()}/`;
    const config = readConfig({ ...s3.env(prefix), ARCHIVE_DATA_DIR: dataDir });
    const blockstore = openBlockstore(config.blockstore, config.dataDir);
    const store = createContentStore({ blockstore });
    const staging = createStagingArea({ store: blockstore, dir: path.join(dataDir, 'staging'), guard: databaseFileGuard(archive.db) });
    const [source] = await archive.db.select().from(sources).limit(1);
    const [issuer] = await archive.db.select().from(departments).limit(1);
    const category = await archive.db.query.categories.findFirst();
    const document = await fixture('csv/licencias-construccion-mivhed-2022-2025.csv');
    const proof = pngImage(120, 80, 3);
    const nonce = (await issueNonce(archive.db, new Date(), { purpose: 'upload', account: ALICE.address })).nonce;
    const asset = {
      title: 'Licencias de construcción aprobadas, 2022 a 2025',
      docType: 'csv',
      description: 'Serie oficial de licencias de construcción aprobadas por el ministerio, por provincia y tipo de obra, para el periodo indicado.',
      categoryId: category!.id,
      docSource: 'https://www.mivhed.gob.do/transparencia/licencias',
      sourceId: source!.id,
      issuerId: issuer!.id,
      owner: ALICE.address,
    };
    const form = uploadForm({
      asset,
      document: { name: 'licencias.csv', bytes: document },
      proof: { name: 'captura.png', bytes: proof },
      nonce,
      signature: await signUpload(ALICE, document, proof, nonce),
    });
    let added;
    try {
      added = await addAsset({
        db: archive.db,
        store,
        staging,
        config: { maxDocumentBytes: 200_000_000, maxProofBytes: 10_000_000, uploadsPerHour: { wallet: 1000, ip: 1000 } },
        user: toUser(ALICE.address, 'metamask'),
        clientAddress: '127.0.0.1',
        request: uploadRequest(form),
      });
    } catch (error) {
      throw new Error(`upload refused: ${JSON.stringify(await toResponse(error).json())}`, { cause: error });
    }
    expect(added.assetCID).toBe((await cidOf(document)).cid);
    const keys = await s3.keys(prefix);
    expect(keys).toContain(`${prefix}${added.assetCID}`);
    expect(keys).toContain(`${prefix}${(await cidOf(proof)).cid}`);
    expect((await collect(store.cat(added.assetCID))).equals(document)).toBe(true);
    // Read by another server's store on the same bucket.
    expect((await collect(createContentStore({ blockstore: s3Blockstore(s3.settings(prefix)) }).cat(added.assetCID))).equals(document)).toBe(true);
    expect(await fs.readdir(path.join(dataDir, 'staging'))).toEqual([]);
    await expect(fs.access(path.join(dataDir, 'blocks'))).rejects.toThrow();
    await store.close();
  });
});

describe.runIf(testEngines().includes('postgres'))('two archives on one PostgreSQL, one bucket and one data folder', () => {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `archivo_instances_${randomUUID().replaceAll('-', '')}`;
  const archives: Archive[] = [];
  afterAll(async () => {
    await Promise.all(archives.map((archive) => archive.close()));
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name}`);
  });

  it('serve each other\'s files, and sweep each other\'s staging only once its lease is lost', async () => {
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    const dataDir = await tempDir();
    const prefix = `${randomUUID()}/`;
    const config = readConfig({
      ...s3.env(prefix),
      DATABASE_URL: databaseUrl(serverUrl, name),
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_MIGRATIONS_DIR: MIGRATIONS_DIR,
      // A short lease: the periodic sweep runs once per lease, the heartbeat four times.
      ARCHIVE_INSTANCE_LEASE_MS: '800',
    });
    const a = await openArchive({ config });
    archives.push(a);
    const b = await openArchive({ config });
    archives.push(b);
    const instances = await a.db.select().from(serverInstances);
    expect(instances).toHaveLength(2);
    // Both can work: their database, their leases and the bucket (the health check says so).
    expect([await a.unready(), await b.unready()]).toEqual([null, null]);

    const shared = await a.store.add(pseudoRandom(400 * 1024, 27));
    expect((await collect(b.store.cat(shared.cid))).equals(await collect(pseudoRandom(400 * 1024, 27)))).toBe(true);

    // B's upload is under way while both sweep every 800 ms, for three rounds.
    const upload = b.staging.begin();
    const { cid } = await upload.add(pseudoRandom(300 * 1024, 28));
    const staged = await fs.readdir(path.join(dataDir, 'staging'));
    expect(staged).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await fs.readdir(path.join(dataDir, 'staging'))).toEqual(staged);

    // B stalls past its lease (made so here): A's sweep clears its folder, B's commit refuses.
    const owner = staged[0]!.split('.')[0]!;
    await a.db.update(serverInstances).set({ leaseUntil: sql`now() - interval '1 second'` }).where(eq(serverInstances.id, owner));
    const deadline = Date.now() + 10_000;
    while ((await fs.readdir(path.join(dataDir, 'staging'))).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await fs.readdir(path.join(dataDir, 'staging'))).toEqual([]);
    await expect(b.db.transaction((tx) => upload.commit(tx))).rejects.toThrow(/concesión/);
    expect(await a.store.has(cid)).toBe(false);
    // B goes on under a new id, with a lease of its own again.
    const rows = await a.db.select({ id: serverInstances.id }).from(serverInstances).where(sql`${serverInstances.leaseUntil} > now()`);
    expect(rows).toHaveLength(2);
    expect(rows.map((row) => row.id)).not.toContain(owner);
  }, 60_000);
});
