/**
 * The built archive as a child process, run as `npm start` runs it (`scripts/start.ts`) but on the
 * benchmark's own data folder and a free port. The server opens its database on the first request,
 * so the first request's time is the cold start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../scripts/node-flags.ts';
import { childrenOf, waitForExit } from '../tests/helpers/processes.ts';

export interface RunningServer {
  origin: string;
  pid: number;
  /** The last lines the server printed, to explain a failure. */
  output(): string;
  stop(): Promise<void>;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Builds the archive when `dist/` has no server (a fresh clone) or when `force` is set. Answers
 * whether `src/` changed after the build, so the figures can say they describe an older build.
 */
export async function ensureBuild(root: string, force: boolean): Promise<{ built: boolean; stale: boolean }> {
  const entry = path.join(root, 'dist/server/entry.mjs');
  if (force || !fs.existsSync(entry)) {
    console.log('\nCompilando el archivo (npm run build) ...');
    await new Promise<void>((resolve, reject) => {
      const build = spawn('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
      build.on('error', reject);
      build.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build terminó con código ${code}`))));
    });
    return { built: true, stale: false };
  }
  return { built: false, stale: newestMtime(path.join(root, 'src')) > fs.statSync(entry).mtimeMs };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `BENCH_SERVER_PROFILE=<folder>` writes the server's V8 CPU profile there (open it in Chrome's
 * DevTools). Node writes it only on a normal exit, so SIGTERM is made to exit normally.
 */
function profiling(): string[] {
  const dir = process.env.BENCH_SERVER_PROFILE;
  if (!dir) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`, `--import=data:text/javascript,process.on('SIGTERM',()=>process.exit(0))`];
}

const running = new Set<ChildProcess>();
// Whatever happens to the benchmark, the server it started must not outlive it.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGKILL');
    process.exit(130);
  });
}

/**
 * Starts `scripts/start.ts` (which serves `dist/`) on `dataDir` and waits until it answers a static file. `env`
 * adds to or overrides the archive's settings (e.g. a larger upload limit).
 */
export async function startServer(root: string, dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // Node 24 from the project, not the system's: the pid is the server itself, not a wrapper.
  const child = spawn(path.join(root, 'node_modules/.bin/node'), [...SERVER_NODE_FLAGS, ...profiling(), 'scripts/start.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_SEED_ON_EMPTY: 'false',
      DATABASE_URL: '',
      ASTRO_TELEMETRY_DISABLED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    let children: number[] = [];
    if (child.exitCode === null && child.signalCode === null) {
      // Taken while they are still its children: once the server is gone they belong to init.
      if (child.pid !== undefined) children = childrenOf(child.pid);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    // The embedded database (scripts/embedded-db.ts, the server's child) outlives the server for a
    // moment: it notices the server is gone, then closes PGlite, which checkpoints into the data
    // folder. Callers remove that folder as soon as stop() returns, and removing it while it is
    // still being written fails (ENOTEMPTY on pgdata/pg_logical, in a benchmark smoke run of
    // `.ci/run`). So stop() returns once the server's children have ended too (closing takes
    // a second or two; one still running after 20 s is killed).
    const killed = await waitForExit(children, 20_000);
    if (killed.length) console.warn(`aviso: el proceso ${killed.join(', ')} del servidor no terminó en 20 s y se mató.`);
    running.delete(child);
  };
  const output = () => lines.join('\n');

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      running.delete(child);
      throw new Error(`El servidor terminó al arrancar (código ${child.exitCode}):\n${output()}`);
    }
    try {
      const response = await fetch(`${origin}/favicon.svg`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`El servidor no respondió en 60 s:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (child.pid === undefined) throw new Error('El servidor arrancó sin pid');
  return { origin, pid: child.pid, output, stop };
}
