/**
 * Server instances (issue #21): every process that opens the archive registers a row with a fresh
 * id and a lease in the database, pushes the lease forward while it runs, and removes its row when
 * it closes. What the process owns outside the database (its staging folder, named by the id) is
 * another server's to clear only once that lease has run out, whatever machine, container or pid
 * either runs on: a process id says nothing across machines, and a restarted container may get the
 * same one. Lease times are the database's clock, as the job queue's are.
 *
 * The process also keeps its own, conservative reckoning of the lease (from when it *sent* its last
 * renewal, which the database can only have dated later), so that it can refuse to start a commit
 * whose owner other servers might already take for dead.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tableExists, type Db } from '../db/index.ts';
import { milliseconds } from '../jobs/time.ts';
import { shutdownBegun } from '../shutdown.ts';
import { withLeasedLock } from './leased-lock.ts';

/** Migration 0024. */
export const serverInstances = pgTable(
  'server_instances',
  {
    id: uuid('id').primaryKey(),
    hostname: text('hostname').notNull(),
    pid: integer('pid').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).defaultNow().notNull(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).defaultNow().notNull(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull(),
    /** It runs the job queue's worker (migration 0035): `ServerInstance.markWorker`. */
    worker: boolean('worker').default(false).notNull(),
    /** The block store it writes files into (migration 0047, `storage/store-identity.ts`); null when unknown. */
    storeId: text('store_id'),
  },
  (t) => [index('server_instances_lease_idx').on(t.leaseUntil)],
);

/** An instance whose lease holds: a process at work on the database, as far as its row says. */
const LEASE_HOLDS = gt(serverInstances.leaseUntil, sql`now()`);

/** How many processes (servers, and commands such as `npm run harvest`) hold a lease on the database now. */
export async function liveInstanceCount(db: Db): Promise<number> {
  const [{ live = 0 } = {}] = await db.select({ live: count() }).from(serverInstances).where(LEASE_HOLDS);
  return Number(live);
}

/**
 * How many processes run the job queue's worker on the database now: servers started with
 * `ARCHIVE_WORKER=false`, and commands that only read or queue, are not counted.
 */
export async function liveWorkerCount(db: Db): Promise<number> {
  const [{ live = 0 } = {}] = await db.select({ live: count() }).from(serverInstances).where(and(LEASE_HOLDS, eq(serverInstances.worker, true)));
  return Number(live);
}

/** A live instance that writes its files into another block store than `storeId`. */
export interface InstanceElsewhere {
  hostname: string;
  pid: number;
  storeId: string;
}

/**
 * The live instances, other than `selfId`, whose block store is not `storeId`: each serves only the
 * files it stored itself, unless gateways or a shared bucket join them. Rows that name no store (an
 * older version's, or a process that could not tell its own) are not compared.
 */
export async function instancesOnOtherStores(db: Db, selfId: string, storeId: string): Promise<InstanceElsewhere[]> {
  const rows = await db
    .select({ hostname: serverInstances.hostname, pid: serverInstances.pid, storeId: serverInstances.storeId })
    .from(serverInstances)
    .where(and(LEASE_HOLDS, sql`${serverInstances.id} <> ${selfId}`, sql`${serverInstances.storeId} <> ${storeId}`))
    .orderBy(serverInstances.hostname, serverInstances.pid);
  return rows.map((row) => ({ ...row, storeId: row.storeId! }));
}

/** How another instance stands, as its row says: its lease holds, has run out, or no row names it. */
export type InstanceStanding = 'alive' | 'dead' | 'unknown';

/** The default lease (`ARCHIVE_INSTANCE_LEASE_MS`). */
export const DEFAULT_LEASE_MS = 60_000;

/** Rows of instances dead this long are forgotten: whatever they left is then judged by its age. */
const FORGET_AFTER_MS = 24 * 60 * 60_000;

export interface InstanceOptions {
  /** How long the lease lasts without a heartbeat (60 s). */
  leaseMs?: number;
  /** How often the lease is renewed (a quarter of the lease). */
  heartbeatMs?: number;
  /**
   * This process alone uses the database (the embedded one): every other instance is dead,
   * whatever its row says, as a server killed a moment ago has not yet lost its lease.
   */
  soleOwner?: boolean;
  /** The block store this process writes files into (`storeIdentity`), for the others to compare. */
  storeId?: string | null;
  onError?: (error: unknown) => void;
}

export interface ServerInstance {
  /** This instance's id. A new one if the lease was ever lost (the old one's staging may be gone). */
  readonly id: string;
  readonly leaseMs: number;
  /** How long the lease of `id` surely holds still; 0 when `id` is not this instance's live id. */
  leaseLeftMs(id: string): number;
  /** Renews the lease now (a timer also does, every `heartbeatMs`). */
  heartbeat(): Promise<void>;
  /** How each of `ids` stands; this instance is always alive. */
  standing(ids: readonly string[]): Promise<Map<string, InstanceStanding>>;
  /** Says in its row, for good (a new id included), that this process runs the job queue's worker. */
  markWorker(): Promise<void>;
  /** Runs `work` under the lease lock `name`, alone among the instances on this database. */
  alone<T>(name: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Stops the heartbeat and removes the row: what the instance left is anyone's to clear. */
  stop(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Registers this process as a new server instance on `db` and keeps its lease alive. */
export async function registerInstance(db: Db, options: InstanceOptions = {}): Promise<ServerInstance> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 4));
  const onError = options.onError ?? ((error: unknown) => console.error('Instancia del servidor:', error));
  const lease = sql`now() + ${milliseconds(leaseMs)}`;
  let id = '';
  /** performance.now() until which the lease surely holds. */
  let validUntil = 0;
  let stopped = false;
  let worker = false;

  async function register(): Promise<void> {
    const fresh = randomUUID();
    const sentAt = performance.now();
    await db.insert(serverInstances).values({ id: fresh, hostname: os.hostname(), pid: process.pid, leaseUntil: lease, worker, storeId: options.storeId ?? null });
    id = fresh;
    validUntil = sentAt + leaseMs;
  }

  async function renew(): Promise<void> {
    const sentAt = performance.now();
    const renewed = await db
      .update(serverInstances)
      .set({ heartbeatAt: sql`now()`, leaseUntil: lease, worker })
      .where(and(eq(serverInstances.id, id), LEASE_HOLDS))
      .returning({ id: serverInstances.id });
    if (renewed.length > 0) {
      validUntil = sentAt + leaseMs;
      return;
    }
    // The lease ran out (a stalled process, the database out of reach too long): other servers may
    // be clearing what this one staged. Uploads under way fail at their commit; new ones start
    // under a new id, in folders nobody is clearing.
    validUntil = 0;
    const lost = id;
    await register();
    onError(new Error(`La concesión de la instancia ${lost} venció; sigue como ${id}.`));
  }

  let beating: Promise<void> = Promise.resolve();
  // One beat at a time, each tried whatever became of the one before: a beat that failed (the
  // database out of reach a moment) must not fail every later one too, or the lease would never
  // be renewed again and the server would refuse every commit until restarted.
  const heartbeat = (): Promise<void> => {
    beating = beating.catch(() => undefined).then(() => (stopped ? undefined : renew()));
    return beating;
  };

  await db.delete(serverInstances).where(lt(serverInstances.leaseUntil, sql`now() - ${milliseconds(FORGET_AFTER_MS)}`));
  await register();
  const timer = setInterval(() => heartbeat().catch(onError), heartbeatMs);
  // The heartbeat alone must not keep a process alive (a script that opened the archive and is done).
  timer.unref();

  return {
    get id() {
      return id;
    },
    leaseMs,
    leaseLeftMs(of) {
      return of === id && !stopped ? Math.max(0, validUntil - performance.now()) : 0;
    },
    heartbeat,
    async standing(ids) {
      if (options.soleOwner) return new Map(ids.map((other) => [other, other === id ? 'alive' : 'dead']));
      const verdicts = new Map<string, InstanceStanding>(ids.map((other) => [other, other === id ? 'alive' : 'unknown']));
      const asked = ids.filter((other) => other !== id && UUID.test(other));
      if (asked.length > 0) {
        const rows = await db
          .select({ id: serverInstances.id, alive: sql<boolean>`${serverInstances.leaseUntil} > now()` })
          .from(serverInstances)
          .where(inArray(serverInstances.id, asked));
        for (const row of rows) verdicts.set(row.id, row.alive ? 'alive' : 'dead');
      }
      return verdicts;
    },
    markWorker() {
      // Kept for the heartbeats too, which write it again should this update fail; in their line,
      // so that a beat sent before it cannot write the old value after it.
      worker = true;
      beating = beating
        .catch(() => undefined)
        .then(async () => {
          if (!stopped) await db.update(serverInstances).set({ worker: true }).where(eq(serverInstances.id, id));
        });
      return beating;
    },
    alone: (name, work) => withLeasedLock(db, name, id, work, { holdMs: Math.max(5 * 60_000, leaseMs) }),
    async stop() {
      if (stopped) return;
      clearInterval(timer);
      await beating.catch(() => undefined);
      stopped = true;
      await db.delete(serverInstances).where(eq(serverInstances.id, id));
    },
  };
}

/** A process of an older version still works on the database an upgrade was about to migrate. */
export class OlderVersionRunningError extends Error {
  override name = 'OlderVersionRunningError';
}

export interface OlderInstancesOptions {
  /** Longest wait for the leases of processes that ended without deregistering (5 min). */
  maxWaitMs?: number;
  /** How often the rows are read again meanwhile (1 s). */
  pollMs?: number;
}

/**
 * Before an upgrade migrates `db`: waits until no instance registered on it is alive. Each one
 * runs an older version (one of this version would have found nothing to migrate), and would go
 * on working on a schema it does not know. A process that ended without deregistering (killed, or
 * cut off at the end of its shutdown's time) keeps its row until its lease runs out, and that is
 * waited for; a process stopped in order deregisters as it ends (scripts/start.ts). One that renews its lease meanwhile is running: the upgrade stops,
 * naming it, rather than wait for it to be stopped.
 *
 * @throws {OlderVersionRunningError} when a registered process renews its lease, or some lease
 *   still holds after `maxWaitMs`.
 */
export async function waitForOlderInstances(db: Db, { maxWaitMs = 5 * 60_000, pollMs = 1000 }: OlderInstancesOptions = {}): Promise<void> {
  // A database older than the registry (migration 0024) has no instances to wait for.
  if (!(await tableExists(db, 'public.server_instances'))) return;
  const alive = () =>
    db
      .select({
        id: serverInstances.id,
        hostname: serverInstances.hostname,
        pid: serverInstances.pid,
        heartbeatAt: serverInstances.heartbeatAt,
        leftMs: sql<number>`extract(epoch from ${serverInstances.leaseUntil} - now()) * 1000`.mapWith(Number),
      })
      .from(serverInstances)
      .where(LEASE_HOLDS)
      .orderBy(serverInstances.hostname, serverInstances.pid);
  const named = (rows: Array<{ hostname: string; pid: number }>) => `${rows.length}: ${rows.map((row) => `${row.hostname}, pid ${row.pid}`).join('; ')}`;

  let rows = await alive();
  if (rows.length === 0) return;
  const firstBeat = new Map(rows.map((row) => [row.id, row.heartbeatAt.getTime()]));
  const waitMs = Math.min(maxWaitMs, Math.max(...rows.map((row) => row.leftMs)));
  console.warn(
    `Hay procesos del archivo de una versión anterior registrados en la base de datos (${named(rows)}): ` +
      `se espera hasta ${Math.ceil(waitMs / 1000)} s a que caduque su latido antes de migrarla.`,
  );
  const giveUpAt = performance.now() + maxWaitMs;
  for (;;) {
    await sleep(pollMs);
    // This process is being stopped: waiting on would only hold its shutdown up.
    if (shutdownBegun()) throw new Error('El servidor se detiene: no se actualiza la base de datos.');
    rows = await alive();
    if (rows.length === 0) return;
    const running = rows.filter((row) => row.heartbeatAt.getTime() > (firstBeat.get(row.id) ?? -Infinity));
    if (running.length > 0 || performance.now() >= giveUpAt) {
      throw new OlderVersionRunningError(
        `No se actualiza la base de datos: siguen en marcha sobre ella procesos del archivo de una versión anterior (${named(running.length > 0 ? running : rows)}). ` +
          'Deténgalos y vuelva a arrancar este servidor: una versión vieja y una nueva no trabajan a la vez sobre la misma base.',
      );
    }
  }
}
