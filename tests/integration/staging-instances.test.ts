/**
 * Staging belongs to a server instance (issue #21), on both engines: two instances sharing one
 * staging folder (two servers on a shared volume) each sweep only what a dead lease left, never the
 * other's live upload, whatever pid either runs as; a journal of a dead instance is undone unless
 * its record was kept; what no instance row names waits out a grace period; a commit starts only
 * while its instance's lease holds; two sweeps never run at once. And the database's guard over
 * undos (`storage/file-guard.ts`): an undo never takes the blocks of a file that another upload of
 * the same bytes committed, or is committing, meanwhile.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { alexandrias } from '../../src/lib/server/db/schema.ts';
import { registerInstance, serverInstances, withLeasedLock, type ServerInstance } from '../../src/lib/server/instances/index.ts';
import { createContentStore, createStagingArea, databaseFileGuard, localBlockstore, type StagedUpload } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { gate, settled } from '../unit/storage/helpers.ts';

/** 1 MiB of one byte value: a leaf and a root, distinct per seed. */
const payload = (seed: number) => Buffer.alloc(1024 * 1024, seed);

async function files(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)).sort();
}

describe.each(testEngines())('staging per server instance on %s', (engine: Engine) => {
  let database: TestDatabase;
  let root: string;
  let storeDir: string;
  let stagingDir: string;
  const instances: ServerInstance[] = [];

  beforeEach(async () => {
    database = await createTestDatabase(engine);
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-instances-'));
    storeDir = path.join(root, 'blocks');
    stagingDir = path.join(root, 'staging');
  });
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((instance) => instance.stop()));
    await database.destroy();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** A server instance whose heartbeat the test drives (none runs on its own during a test). */
  async function instance(leaseMs = 60_000): Promise<ServerInstance> {
    const registered = await registerInstance(database.db, { leaseMs, heartbeatMs: 3_600_000 });
    instances.push(registered);
    return registered;
  }
  const stagingOf = (owner: ServerInstance, graceMs?: number) =>
    createStagingArea({ store: localBlockstore(storeDir), dir: stagingDir, owner, graceMs, guard: databaseFileGuard(database.db) });
  /**
   * Commits `upload` in a transaction that writes a record of `recordOf`, or that fails after the
   * move when it is null, and never settles nor discards it: a process that died right there.
   */
  async function commitAndDie(upload: StagedUpload, recordOf: string | null): Promise<void> {
    const committing = database.db.transaction(async (tx) => {
      await upload.commit(tx);
      if (recordOf === null) throw new Error('el registro no se pudo escribir');
      await tx.insert(alexandrias).values({ title: 'Registro de prueba', type: 'csv', cid: recordOf });
    });
    if (recordOf === null) await expect(committing).rejects.toThrow('el registro no se pudo escribir');
    else await committing;
  }
  /** What would happen if the instance's process died: its lease runs out (here, at once). */
  const expire = (owner: ServerInstance) =>
    database.db
      .update(serverInstances)
      .set({ leaseUntil: sql`now() - interval '1 second'` })
      .where(eq(serverInstances.id, owner.id));

  it('never sweeps a live instance\'s upload, and clears a dead one\'s even when its pid is alive', async () => {
    const a = await instance();
    const b = await instance();
    const upload = stagingOf(b).begin();
    const { cid } = await upload.add(payload(1));
    const staged = await fs.readdir(stagingDir);
    expect(staged).toHaveLength(1);
    expect(staged[0]!.startsWith(`${b.id}.`)).toBe(true);

    // A sweeps while B's upload is under way, B's lease alive: nothing of B's is touched.
    expect(await stagingOf(a).sweep()).toBe(0);
    expect(await fs.readdir(stagingDir)).toEqual(staged);
    await upload.add(payload(2)); // B goes on writing into its folder

    // B "dies" (its lease runs out), though a process with its pid and host still runs: this one.
    const rows = await database.db.select().from(serverInstances);
    expect(new Set(rows.map((row) => `${row.hostname}:${row.pid}`)).size).toBe(1);
    await expire(b);
    expect(await stagingOf(a).sweep()).toBe(1);
    expect(await fs.readdir(stagingDir)).toEqual([]);
    expect(await createContentStore({ dir: storeDir }).has(cid)).toBe(false);
  });

  it('undoes a dead instance\'s unsettled commit unless its record was kept', async () => {
    const a = await instance();
    const store = createContentStore({ dir: storeDir });
    for (const kept of [false, true]) {
      const b = await instance();
      const upload = stagingOf(b).begin();
      const { cid } = await upload.add(payload(kept ? 4 : 3));
      await commitAndDie(upload, kept ? cid : null);
      expect(await store.has(cid)).toBe(true);
      // Alive, its journal and folder are its own.
      expect(await stagingOf(a).sweep()).toBe(0);
      expect(await store.has(cid)).toBe(true);
      await expire(b);
      expect(await stagingOf(a).sweep()).toBe(2);
      expect(await store.has(cid)).toBe(kept);
      expect(await fs.readdir(stagingDir)).toEqual([]);
    }
    expect((await files(storeDir)).length).toBe(2); // the kept file's leaf and root, nothing else
  });

  it('clears what no instance names only once it has lain idle for the grace period', async () => {
    const a = await instance();
    // An instance forgotten long ago, and a folder of the pid-named staging of an earlier release
    // whose pid (this process's) is running: neither is known to be alive.
    const forgotten = path.join(stagingDir, `${randomUUID()}.${randomUUID()}`);
    const legacy = path.join(stagingDir, `${process.pid}-${randomUUID()}`);
    for (const folder of [forgotten, legacy]) {
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(path.join(folder, 'bloque.data'), 'x');
    }
    expect(await stagingOf(a, 60_000).sweep()).toBe(0);
    expect(await fs.readdir(stagingDir)).toHaveLength(2);
    const longAgo = new Date(Date.now() - 120_000);
    for (const folder of [forgotten, legacy]) await fs.utimes(folder, longAgo, longAgo);
    expect(await stagingOf(a, 60_000).sweep()).toBe(2);
    expect(await fs.readdir(stagingDir)).toEqual([]);
  });

  it('refuses to start a commit once its lease may have run out, and starts again under a new id', async () => {
    const b = await instance(400);
    const upload = stagingOf(b).begin();
    const { cid } = await upload.add(payload(5));
    // No heartbeat for more than half the lease: others may soon take the instance for dead.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(database.db.transaction((tx) => upload.commit(tx))).rejects.toThrow(/concesión/);
    expect(await createContentStore({ dir: storeDir }).has(cid)).toBe(false);
    await upload.discard();

    // Its lease runs out in the database; the next heartbeat finds it lost and takes a new id.
    const lost = b.id;
    await expire(b);
    const errors: unknown[] = [];
    const c = await registerInstance(database.db, { leaseMs: 60_000, heartbeatMs: 3_600_000, onError: (error) => errors.push(error) });
    instances.push(c);
    await expire(c);
    const before = c.id;
    await c.heartbeat();
    expect(c.id).not.toBe(before);
    expect(errors).toHaveLength(1);
    expect(c.leaseLeftMs(c.id)).toBeGreaterThan(30_000);
    expect(c.leaseLeftMs(before)).toBe(0);
    expect((await database.db.select().from(serverInstances).where(eq(serverInstances.id, lost))).length).toBe(1);
  });

  it('renews its lease again once the database answers after a heartbeat failed, or registers anew when it ran out meanwhile', async () => {
    // The database out of reach: every write fails while `down`.
    let down = false;
    const db = new Proxy(database.db, {
      get(target, property) {
        if (down && (property === 'update' || property === 'insert')) {
          return () => {
            throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const errors: unknown[] = [];
    const a = await registerInstance(db, { leaseMs: 60_000, heartbeatMs: 3_600_000, onError: (error) => errors.push(error) });
    instances.push(a);
    const first = a.id;
    down = true;
    await expect(a.heartbeat()).rejects.toThrow(/ECONNREFUSED/);
    down = false;
    // Before, the failed beat failed every later one: the lease ran out and commits were refused for good.
    await a.heartbeat();
    expect(a.id).toBe(first);
    expect(a.leaseLeftMs(a.id)).toBeGreaterThan(30_000);
    // An outage longer than the lease: the next beat registers the instance again, under a new id.
    down = true;
    await expect(a.heartbeat()).rejects.toThrow(/ECONNREFUSED/);
    await expire(a);
    down = false;
    await a.heartbeat();
    expect(a.id).not.toBe(first);
    expect(a.leaseLeftMs(a.id)).toBeGreaterThan(30_000);
    expect(errors.map(String)).toEqual([expect.stringContaining(`La concesión de la instancia ${first} venció`)]);
  });

  it('lets one sweep run at a time across instances, and removes an instance\'s row when it stops', async () => {
    const a = await instance();
    const b = await instance();
    let release = () => {};
    const held = withLeasedLock(database.db, 'staging-sweep', a.id, () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    let swept = false;
    const sweeping = stagingOf(b).sweep().then((removed) => {
      swept = true;
      return removed;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(swept).toBe(false);
    release();
    await held;
    expect(await sweeping).toBe(0);

    await b.stop();
    expect((await database.db.select().from(serverInstances)).map((row) => row.id)).toEqual([a.id]);
  });
  it('keeps the blocks of a file that another upload of the same bytes committed before the undo', async () => {
    const a = await instance();
    const store = createContentStore({ dir: storeDir });
    const first = stagingOf(a).begin();
    const { cid } = await first.add(payload(6));
    const second = stagingOf(a).begin();
    await second.add(payload(6));
    // The first moves the blocks in, and its record fails.
    await commitAndDie(first, null);
    // Before its undo, the second commits with its record: finding the blocks stored, it journals none.
    await commitAndDie(second, cid);
    await second.settle();
    await first.discard();
    expect(await store.has(cid)).toBe(true);
    const bytes: Uint8Array[] = [];
    for await (const chunk of store.cat(cid)) bytes.push(chunk);
    expect(Buffer.concat(bytes).equals(payload(6))).toBe(true);
    // Without a record, the same undo takes them back.
    const third = stagingOf(a).begin();
    const alone = await third.add(payload(7));
    await commitAndDie(third, null);
    await third.discard();
    expect(await store.has(alone.cid)).toBe(false);
    expect(await fs.readdir(stagingDir)).toEqual([]);
  });

  // On PostgreSQL by the locks, across connections; on the embedded database because it runs one
  // transaction at a time, and the undo is one.
  it('has a commit and an undo of the same file wait for each other', async () => {
    const a = await instance();
    const store = createContentStore({ dir: storeDir });
    const first = stagingOf(a).begin();
    const { cid } = await first.add(payload(8));
    const second = stagingOf(a).begin();
    await second.add(payload(8));
    const firstMoved = gate();
    const firstFails = gate();
    const secondMoved = gate();
    const secondWrites = gate();
    try {
      // The first's transaction has moved the blocks in and is still open.
      const firstTx = database.db.transaction(async (tx) => {
        await first.commit(tx);
        firstMoved.open();
        await firstFails.opened;
        throw new Error('el registro no se pudo escribir');
      });
      const firstOutcome = expect(firstTx).rejects.toThrow('el registro no se pudo escribir');
      await firstMoved.opened;
      // The second's commit of the same file waits for it, rather than finding the blocks and journalling none.
      const secondTx = database.db.transaction(async (tx) => {
        await second.commit(tx);
        secondMoved.open();
        await secondWrites.opened;
        await tx.insert(alexandrias).values({ title: 'Registro de prueba', type: 'csv', cid });
      });
      const secondCommit = settled(secondMoved.opened);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(secondCommit.done).toBe(false);
      // The first fails; the second moves on, and the first's undo now waits for the second's transaction.
      firstFails.open();
      await firstOutcome;
      await secondMoved.opened;
      const undoing = first.discard();
      const undone = settled(undoing);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(undone.done).toBe(false);
      secondWrites.open();
      await secondTx;
      await second.settle();
      await undoing;
    } finally {
      // A failed expectation must not leave either transaction waiting for the other.
      firstFails.open();
      secondWrites.open();
    }
    // The second's record has its file.
    expect(await store.has(cid)).toBe(true);
    const bytes: Uint8Array[] = [];
    for await (const chunk of store.cat(cid)) bytes.push(chunk);
    expect(Buffer.concat(bytes).equals(payload(8))).toBe(true);
  });
});
