/**
 * The embedded PGlite served over a Unix socket in PostgreSQL's wire protocol, so that the web
 * server reaches it as it reaches a PostgreSQL server (`pg`, the same driver and code path) while
 * the database lives in a process of its own. That keeps PGlite's memory (its shared buffers, its
 * WebAssembly heap, the swell of its first queries) out of the web server, and its queries (which
 * run on the thread that calls them) off the web server's event loop.
 *
 * PGlite is one backend. Connections take turns on it between transactions (`SessionQueue`), so
 * a client should keep to one connection (a pool of 1: two of its own would queue behind each
 * other's transactions), and another process may connect beside it; a session that ends inside a
 * transaction is rolled back before the next one runs. The socket lives in a private folder
 * (0700): the database has no password, and only this machine's user may reach it.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/** Messages that come before the startup packet and have no type byte: a length, then a code. */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const PROTOCOL_3 = 196608;

export interface PgliteSocketServer {
  /** A connection string for `pg` (socket folder as `host`). */
  url: string;
  /** Stops listening, ends the current session, and removes the socket folder. */
  close(): Promise<void>;
}

export interface ServeOptions {
  /**
   * How long a session may hold the backend (inside a transaction, or a query half-sent) without
   * sending anything while others wait, before it is cut off and its transaction rolled back
   * (60 s): a suspended process must not stop every other one.
   */
  ownerIdleMs?: number;
}

/** Serves `db` on a new Unix socket in a private temporary folder. */
export async function servePglite(db: PGlite, options: ServeOptions = {}): Promise<PgliteSocketServer> {
  // Short on purpose: a Unix socket path must fit in 107 bytes, and the data folder may be deep.
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-db-'));
  const socketPath = path.join(folder, '.s.PGSQL.5432');
  const sessions = new SessionQueue(db, options.ownerIdleMs ?? 60_000);
  const server = net.createServer((socket) => sessions.add(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    url: `postgres://archivo@localhost/archivo?host=${encodeURIComponent(folder)}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        sessions.endAll();
      });
      await sessions.idle();
      await fs.rm(folder, { recursive: true, force: true });
    },
  };
}

/**
 * The one backend, shared by every connected session the way a transaction pooler shares a server
 * connection: a session holds the backend from its first message until PGlite reports itself
 * idle again (a ReadyForQuery with status `I`: the query, simple or extended, is over and no
 * transaction is open). Only then may another session's messages run. So the web server's one
 * connection and a second process (`npm run harvest` beside `npm start`) both get served, and a
 * transaction is never interleaved with another session's statements.
 *
 * What a session sets for itself with `SET` (pg_dump empties `search_path`, psql may change the
 * time zone or the role) would otherwise be seen by the others, as behind any transaction pooler:
 * an operator's client left the web server unable to find its tables until it restarted. So when
 * the backend passes to another session, the role and every setting are put back first, and
 * temporary tables dropped (`RESET_SESSION`). The other side of it: what a session sets lasts only
 * until another session takes a turn (use `SET LOCAL` inside a transaction); the archive sets
 * nothing outside one. Named prepared statements are not undone (the archive uses none), nor
 * advisory locks (their session still holds them).
 */
class SessionQueue {
  private readonly db: PGlite;
  private readonly sessions = new Set<Session>();
  /** Sessions with messages to run, in the order they asked. */
  private readonly ready: Session[] = [];
  /** The session whose transaction or query is open on the backend. */
  private owner: Session | undefined;
  /** The last session that had the backend: what it set stays until another one takes it. */
  private lastOwner: Session | undefined;
  /**
   * Whether `pump` is running, set and cleared synchronously: a message arriving as the pump
   * decides it has nothing left must start a new one, never find the old one "still running".
   */
  private pumping = false;
  private pumped: Promise<void> = Promise.resolve();
  private readonly ownerIdleMs: number;
  private ownerTimer: NodeJS.Timeout | undefined;

  constructor(db: PGlite, ownerIdleMs: number) {
    this.db = db;
    this.ownerIdleMs = ownerIdleMs;
  }

  add(socket: net.Socket): void {
    const session = new Session(socket);
    this.sessions.add(session);
    // A client that gives up must not leave an 'error' unhandled.
    socket.on('error', () => socket.destroy());
    socket.on('data', (data: Buffer) => {
      session.receive(data);
      this.wake(session);
    });
    socket.once('close', () => {
      session.closed = true;
      this.sessions.delete(session);
      this.wake(session);
    });
  }

  endAll(): void {
    for (const session of this.sessions) session.socket.destroy();
  }

  async idle(): Promise<void> {
    while (this.pumping) await this.pumped;
  }

  private wake(session: Session): void {
    if (session !== this.owner && !this.ready.includes(session)) this.ready.push(session);
    if (this.pumping) return;
    this.pumping = true;
    this.pumped = this.pump().finally(() => undefined);
  }

  /** Runs messages until none can run: the owner's first, then, once the backend is idle, the next session's. */
  private async pump(): Promise<void> {
    try {
      await this.runMessages();
    } finally {
      // Runs in the same turn as the last check that found nothing to do (see `pumping`).
      this.pumping = false;
    }
  }

  private async runMessages(): Promise<void> {
    for (;;) {
      if (this.owner?.closed) await this.release(this.owner);
      if (!this.owner) {
        const next = this.ready.shift();
        if (!next) return;
        if (next.closed || next.inbox.length === 0) continue;
        if (this.lastOwner && this.lastOwner !== next) {
          await this.db.exec(RESET_SESSION).catch((error: unknown) => console.error('Base embebida: no se pudieron restablecer los ajustes de la sesión anterior:', error));
        }
        this.owner = this.lastOwner = next;
      }
      const session = this.owner;
      const message = session.inbox.shift();
      if (!message) {
        // The owner is in the middle of a transaction or a query: wait for its next message.
        this.watchIdleOwner(session);
        return;
      }
      clearTimeout(this.ownerTimer);
      this.ownerTimer = undefined;
      const outcome = await answer(this.db, session, message).catch(() => {
        session.socket.destroy();
        return 'ended' as const;
      });
      if (outcome === 'ended') {
        // Gone (Terminate, or its socket destroyed) while it held the backend: what it left open is undone.
        session.closed = true;
        await this.release(session);
      } else if (outcome === 'idle') {
        this.owner = undefined;
        // Its other messages wait their turn behind the sessions that were already waiting.
        if (session.inbox.length > 0 && !session.closed) this.ready.push(session);
      }
    }
  }

  /** Cuts off an owner that holds the backend silently while others wait (see `ServeOptions`). */
  private watchIdleOwner(session: Session): void {
    if (this.ownerTimer) return;
    this.ownerTimer = setTimeout(() => {
      this.ownerTimer = undefined;
      if (this.owner !== session || session.inbox.length > 0) return;
      if (this.ready.length === 0) return this.watchIdleOwner(session);
      // Its close ends its ownership through `release` (an open transaction rolled back).
      session.socket.destroy();
    }, this.ownerIdleMs);
    this.ownerTimer.unref();
  }

  /**
   * A session gone while it held the backend: a query it left half-sent is closed (a Sync) and an
   * open transaction rolled back, so the next session starts clean, never inside what it left.
   */
  private async release(session: Session): Promise<void> {
    if (this.owner !== session) return;
    clearTimeout(this.ownerTimer);
    this.ownerTimer = undefined;
    await this.db.execProtocolRaw(SYNC).catch(() => undefined);
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
    this.owner = undefined;
  }
}

/** A message as cut from the stream, and whether it came before the startup packet was done. */
interface Message {
  bytes: Buffer;
  /** Sent before startup: a length and a code, no type byte (SSL, GSS, cancel, the startup itself). */
  untyped: boolean;
}

/** One client connection: the messages it sent that have not run yet. */
class Session {
  readonly socket: net.Socket;
  readonly inbox: Message[] = [];
  closed = false;
  private started = false;
  private pending: Buffer = Buffer.alloc(0);

  constructor(socket: net.Socket) {
    this.socket = socket;
  }

  /** Cuts the complete messages out of what arrived. */
  receive(data: Buffer): void {
    this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data]);
    for (;;) {
      const length = messageLength(this.pending, this.started);
      if (length === 0 || this.pending.length < length) break;
      const bytes = this.pending.subarray(0, length);
      this.inbox.push({ bytes, untyped: !this.started });
      this.started ||= codeOf(bytes) === PROTOCOL_3;
      this.pending = this.pending.subarray(length);
    }
  }
}

/**
 * The length of the message at the head of `buffer`, 0 when not enough of it has arrived to
 * tell. Until the startup packet, a message is a 4-byte length and then a 4-byte code; after it,
 * a type byte and then a 4-byte length.
 */
function messageLength(buffer: Buffer, started: boolean): number {
  if (started) return buffer.length >= 5 ? 1 + buffer.readUInt32BE(1) : 0;
  return buffer.length >= 8 ? buffer.readUInt32BE(0) : 0;
}

/** The code of an untyped message (its second 4 bytes). */
const codeOf = (bytes: Buffer) => (bytes.length >= 8 ? bytes.readInt32BE(4) : 0);

/** Messages after which PostgreSQL reports it is ready again: the end of a query, simple or extended. */
const ENDS_QUERY = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0)]);

const TERMINATE = 'X'.charCodeAt(0);
const READY_FOR_QUERY = 'Z'.charCodeAt(0);
const IDLE = 'I'.charCodeAt(0);

/**
 * What a session may have changed of the one backend: its role, every run-time setting, and its
 * temporary tables (one named like the archive's would hide it from the next session).
 */
const RESET_SESSION = 'SET SESSION AUTHORIZATION DEFAULT; RESET ROLE; RESET ALL; DISCARD TEMP';

/** A Sync message: ends an extended query a client left half-sent. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Runs one message of `session` and sends the reply. Returns `idle` when the backend is free again
 * for another session (the reply ended with ReadyForQuery `I`: no transaction open), `busy` while
 * the session's query or transaction goes on, and `ended` when the session is gone (its goodbye,
 * or its socket closed): what it left open must then be undone.
 */
async function answer(db: PGlite, session: Session, { bytes, untyped }: Message): Promise<'idle' | 'busy' | 'ended'> {
  const { socket } = session;
  if (socket.destroyed) return 'ended';
  if (untyped) {
    const code = codeOf(bytes);
    // No encryption over a local socket: "N", and the client goes on in the clear (or gives up).
    if (code === SSL_REQUEST || code === GSS_REQUEST) {
      socket.write('N');
      return 'idle';
    }
    if (code !== PROTOCOL_3) {
      // A CancelRequest (there is no other backend to cancel) or something that is not
      // PostgreSQL: PostgreSQL too closes such a connection without an answer.
      socket.destroy();
      return 'ended';
    }
  } else if (bytes[0] === TERMINATE) {
    // The client's goodbye ends its connection, not the backend the others share.
    socket.end();
    return 'ended';
  }
  const reply = await db.execProtocolRaw(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    syncToFs: !untyped && ENDS_QUERY.has(bytes[0]!),
  });
  if (reply.length > 0) socket.write(reply);
  // ReadyForQuery is the last message of a reply: 'Z', length 5, status.
  const tail = reply.length >= 6 ? reply.length - 6 : -1;
  return tail >= 0 && reply[tail] === READY_FOR_QUERY && reply[tail + 5] === IDLE ? 'idle' : 'busy';
}
