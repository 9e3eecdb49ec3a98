/**
 * The built archive (`scripts/start.ts`: migrate, seed if empty, serve `dist/`) as a child
 * process on its own port, data folder and database. Everything it prints is kept, in memory and
 * in a log file, so a failing request can be matched with the server's own account of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../../scripts/node-flags.ts';
import { FIXTURES_DIR, ROOT, WORK_DIR } from './settings.ts';

export interface ServerOptions {
  /** Names the log file and the data folder. */
  name: string;
  port: number;
  databaseUrl: string;
  dataDir: string;
  env?: Record<string, string>;
}

/** Lines the server printed, numbered, so a test can take "everything since line N". */
export class ServerLog {
  readonly lines: string[] = [];
  readonly file: string;
  private partial = '';

  constructor(file: string) {
    this.file = file;
  }

  append(chunk: Buffer): void {
    fs.appendFileSync(this.file, chunk);
    // NUL bytes from hostile requests echoed in error messages would make the log look binary.
    const text = this.partial + chunk.toString('utf8').replaceAll('\u0000', '\\0');
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    this.lines.push(...lines);
  }

  get mark(): number {
    return this.lines.length;
  }

  since(mark: number): string[] {
    return this.lines.slice(mark);
  }

  /** The lines since `mark` that report an error (Astro's `[ERROR]`, console.error's first lines). */
  errorsSince(mark: number): string[] {
    return this.since(mark).filter((line) => /\[ERROR\]|\bERR\b|^\w*Error\b|Error:/.test(line) && !/^\s+at /.test(line));
  }
}

export interface RunningServer {
  origin: string;
  port: number;
  dataDir: string;
  log: ServerLog;
  pid: number;
  /** Whether the process is still running (a request may have brought it down). */
  alive(): boolean;
  /** SIGKILL: no cleanup of any kind, as a crash or an out-of-memory kill. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL if it has not ended `killAfterMs` later (5 s); how it ended. */
  stop(options?: { killAfterMs?: number }): Promise<ServerExit>;
  /** How it ended, once it has. */
  exited(): Promise<ServerExit>;
}

/** A server's exit code, or the signal that ended it. */
export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const exited = (child: ChildProcess): Promise<ServerExit> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

/** Starts the built archive and waits until it serves the dashboard. */
export async function startServer(options: ServerOptions, log?: ServerLog): Promise<RunningServer> {
  fs.mkdirSync(WORK_DIR, { recursive: true });
  const serverLog = log ?? new ServerLog(path.join(WORK_DIR, `${options.name}.log`));
  const origin = `http://127.0.0.1:${options.port}`;
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'scripts/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      ARCHIVE_DATA_DIR: options.dataDir,
      DATABASE_URL: options.databaseUrl,
      ARCHIVE_FIXTURES_DIR: FIXTURES_DIR,
      ARCHIVE_PUBLIC_URL: '',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => serverLog.append(chunk));
  child.stderr!.on('data', (chunk: Buffer) => serverLog.append(chunk));

  const server: RunningServer = {
    origin,
    port: options.port,
    dataDir: options.dataDir,
    log: serverLog,
    pid: child.pid ?? -1,
    alive: () => child.exitCode === null && child.signalCode === null,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop({ killAfterMs = 5000 } = {}) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      const exit = await exited(child);
      clearTimeout(timer);
      return exit;
    },
    exited: () => exited(child),
  };

  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`El servidor ${options.name} terminó al arrancar (código ${child.exitCode}); vea ${serverLog.file}`);
    }
    const ready = await fetch(`${origin}/dashboard`).then((response) => response.ok, () => false);
    if (ready) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await server.kill();
  throw new Error(`El servidor ${options.name} no arrancó en 120 s; vea ${serverLog.file}`);
}
