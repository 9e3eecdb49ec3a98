/**
 * The embedded PGlite served over a Unix socket in PostgreSQL's wire protocol, so that the web
 * server reaches it as it reaches a PostgreSQL server (`pg`, the same driver and code path) while
 * the database lives in a process of its own. That keeps PGlite's memory (its shared buffers, its
 * WebAssembly heap, the swell of its first queries) out of the web server, and its queries (which
 * run on the thread that calls them) off the web server's event loop.
 *
 * PGlite is one backend: one session at a time. Connections are served in turn, each until it
 * closes, so the client must keep to one (a pool of 1); a session that ends inside a transaction
 * is rolled back before the next one starts. The socket lives in a private folder (0700): the
 * database has no password, and only this machine's user may reach it.
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

/** Serves `db` on a new Unix socket in a private temporary folder. */
export async function servePglite(db: PGlite): Promise<PgliteSocketServer> {
  // Short on purpose: a Unix socket path must fit in 107 bytes, and the data folder may be deep.
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-db-'));
  const socketPath = path.join(folder, '.s.PGSQL.5432');
  const sessions = new SessionQueue(db);
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

/** Sockets waiting for the one backend, served first come, first served. */
class SessionQueue {
  private readonly waiting: net.Socket[] = [];
  private current: Promise<void> | undefined;
  private readonly open = new Set<net.Socket>();
  private readonly db: PGlite;

  constructor(db: PGlite) {
    this.db = db;
  }

  add(socket: net.Socket): void {
    this.open.add(socket);
    socket.on('close', () => this.open.delete(socket));
    // A waiting client that gives up must not leave an 'error' unhandled.
    socket.on('error', () => socket.destroy());
    this.waiting.push(socket);
    this.next();
  }

  endAll(): void {
    for (const socket of this.open) socket.destroy();
  }

  async idle(): Promise<void> {
    while (this.current) await this.current;
  }

  private next(): void {
    if (this.current) return;
    const socket = this.waiting.shift();
    if (!socket) return;
    this.current = serveSession(this.db, socket).finally(() => {
      this.current = undefined;
      this.next();
    });
  }
}

/** A message as cut from the stream, and whether it came before the startup packet was done. */
interface Message {
  bytes: Buffer;
  /** Sent before startup: a length and a code, no type byte (SSL, GSS, cancel, the startup itself). */
  untyped: boolean;
}

/** One client's session, message by message, until its socket closes. */
async function serveSession(db: PGlite, socket: net.Socket): Promise<void> {
  if (socket.destroyed) return;
  let started = false;
  let pending: Buffer = Buffer.alloc(0);
  let work = Promise.resolve();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  socket.on('data', (data: Buffer) => {
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    const messages: Message[] = [];
    for (;;) {
      const length = messageLength(pending, started);
      if (length === 0 || pending.length < length) break;
      const bytes = pending.subarray(0, length);
      messages.push({ bytes, untyped: !started });
      started ||= codeOf(bytes) === PROTOCOL_3;
      pending = pending.subarray(length);
    }
    // Messages are answered in order, each after the one before it has run.
    work = work.then(() => answer(db, socket, messages)).catch(() => {
      socket.destroy();
    });
  });
  await closed;
  await work;
  // A client gone in the middle of a transaction must not leave it open for the next one.
  if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
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

async function answer(db: PGlite, socket: net.Socket, messages: Message[]): Promise<void> {
  for (const { bytes, untyped } of messages) {
    if (socket.destroyed) return;
    if (untyped) {
      const code = codeOf(bytes);
      // No encryption over a local socket: "N", and the client goes on in the clear (or gives up).
      if (code === SSL_REQUEST || code === GSS_REQUEST) {
        socket.write('N');
        continue;
      }
      if (code !== PROTOCOL_3) {
        // A CancelRequest (there is no other backend to cancel) or something that is not
        // PostgreSQL: PostgreSQL too closes such a connection without an answer.
        socket.destroy();
        return;
      }
    }
    const reply = await db.execProtocolRaw(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      syncToFs: !untyped && ENDS_QUERY.has(bytes[0]!),
    });
    if (reply.length > 0) socket.write(reply);
  }
}
