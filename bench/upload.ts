/**
 * Contributing a large document through the built server (issue "Fast": a 1 GB upload keeps the
 * server's RSS under 200 MB, at a throughput of at least a third of this machine's raw SHA-256
 * speed, measured in the same run).
 *
 * The document is generated, never held in memory: one pseudo-random 1 MiB block, copied for each
 * MiB of the file with a counter stamped every 64 KiB, so no two 256 KiB leaves are equal and the
 * store cannot deduplicate its way to a flattering figure. Before the server starts, the same
 * stream is hashed twice in this process: with node:crypto's SHA-256 alone (the raw speed, and the
 * digest the wallet signs), and with `cidOf` (the archive's importer without a disk; skipped with
 * BENCH_UPLOAD_VERIFY=0), whose CID the server's answer must match.
 *
 * Then the built server starts on a fresh seeded archive, the benchmark signs in with a fixed test
 * wallet (SIWE), makes a 4 MiB warm-up contribution, and for the measured one takes an upload
 * nonce, signs the confirmation and streams the multipart body over `node:http` with its length
 * known in advance. The server's RSS is read from /proc every 50 ms, from a baseline taken once it
 * holds still (the embedded PGlite swells for a moment after opening, up to about 1 GB here).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { confirmationMessage } from '../src/lib/domain/upload.ts';
import { signInMessage } from '../src/lib/domain/siwe-message.ts';
import type { ArchiveConfig } from '../src/lib/server/config.ts';
import { migrateDatabase, openDatabase } from '../src/lib/server/db/index.ts';
import { departments, sources } from '../src/lib/server/db/schema.ts';
import { seedArchive } from '../src/lib/server/seed/index.ts';
import { cidOf, createContentStore, createStagingArea, databaseFileGuard } from '../src/lib/server/storage/index.ts';
import { SIGN_IN_STATEMENT } from '../src/lib/wallet/signin.ts';
import { childOf } from '../tests/helpers/processes.ts';
import { pngImage } from '../tests/helpers/upload.ts';
import { startServer } from './server.ts';
import { table } from './stats.ts';

/** The targets. */
export const UPLOAD_TARGETS = { peakRssMb: 200, throughputToHash: 1 / 3 } as const;

/** A fixed key, used only by the benchmark (the same as the tests' ALICE). */
const WALLET = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const SEPOLIA = 11155111;
const BLOCK = 1024 * 1024;
const STAMP_EVERY = 64 * 1024;
const SAMPLE_MS = 50;
const MB = 1_000_000;
/** The seed of the measured document; the warm-up upload's differs, so they share no block. */
const DOCUMENT_SEED = 0x9e3779b9;
const WARMUP = { bytes: 4 * BLOCK, seed: 0x2545f491 };

export interface UploadFigures {
  bytes: number;
  /** First byte sent to the `{ code: 200 }` answer read. */
  uploadSeconds: number;
  /** First byte sent to the last byte handed to the socket (the server reads as fast as it stores). */
  sendSeconds: number;
  throughputMBps: number;
  /** node:crypto SHA-256 over the same stream, in this process, before the server started. */
  rawSha256MBps: number;
  /** `throughputMBps / rawSha256MBps`; the target is at least a third. */
  ratio: number;
  /**
   * The same body received and appended to one file by a bare node:http server, with none of the
   * archive's work (see `measureFloor`): the most any upload could reach here, and its ratio.
   */
  floor: {
    MBps: number;
    ratio: number;
    /** The bare server's RSS before and at its peak: what receiving 1 GB costs Node itself here. */
    rss: { baselineMb: number; peakMb: number; growthMb: number };
  };
  /** `cidOf` over the same stream (importer, every block hashed, nothing written); null when skipped. */
  importerMBps: number | null;
  rss: {
    /** VmRSS just before the first byte, once the server has settled after sign-in. */
    baselineMb: number;
    /**
     * The peak while uploading: the largest VmRSS read every 50 ms, or VmHWM if it rose during the
     * upload (a peak between two readings). This is what the target is about.
     */
    peakMb: number;
    /** `peakMb - baselineMb`: what the upload itself adds. */
    growthMb: number;
    /** Largest VmRSS read every 50 ms during the upload. */
    peakSampledMb: number;
    /** VmHWM at the end: the process's peak since it started, before the upload too. */
    highWaterMb: number;
    /** VmHWM just before the upload (the database's start-up peak, with the embedded PGlite). */
    highWaterBeforeMb: number;
    targetMb: number;
    samples: number;
    /** The largest VmRSS of each half second of the upload. */
    series: number[];
  };
  /**
   * The embedded database's own process (`npm start` runs PGlite beside the server, see
   * scripts/embedded-db.ts): its RSS before and at its peak during the upload; null on PostgreSQL.
   */
  database: { baselineMb: number; peakMb: number } | null;
  /**
   * CPU seconds the server (user + system, and the system part alone: the kernel receiving the
   * body and writing the blocks) and this client spent during the upload.
   */
  cpuSeconds: { server: number; serverSystem: number; client: number };
  cid: string;
  /** The answer's CID against `cidOf` of the same stream; null when not computed. */
  cidMatches: boolean | null;
  /** Bytes in the store's block files afterwards (the document, its DAG nodes, the proof, the seed). */
  storedBytes: number;
  prepareSeconds: number;
  over: string[];
}

export interface UploadOptions {
  config: ArchiveConfig;
  root: string;
  bytes: number;
  verify: boolean;
  /**
   * A disposable PostgreSQL database to use instead of a fresh embedded PGlite (which alone takes
   * about 300 MB of the server's RSS); it gets the seed and the benchmark's records.
   */
  databaseUrl?: string;
}

/**
 * The document: `size` bytes in chunks of 1 MiB, a fresh buffer each (the socket may still hold
 * the previous one). Deterministic: every run uploads the same file.
 */
export function* documentChunks(size: number, seed = DOCUMENT_SEED): Generator<Buffer> {
  const base = randomBlock(BLOCK, seed);
  for (let offset = 0; offset < size; offset += BLOCK) {
    const length = Math.min(BLOCK, size - offset);
    const chunk = Buffer.allocUnsafe(length);
    base.copy(chunk, 0, 0, length);
    for (let at = 0; at + 4 <= length; at += STAMP_EVERY) chunk.writeUInt32LE((offset + at) / STAMP_EVERY, at);
    yield chunk;
  }
}

/** xorshift32: fast, seeded, plenty for bytes nobody reads. */
function randomBlock(size: number, seed: number): Buffer {
  const words = new Uint32Array(size / 4);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return Buffer.from(words.buffer);
}

export async function benchUpload({ config, root, bytes, verify, databaseUrl }: UploadOptions): Promise<UploadFigures> {
  console.log(`\nSubida de un documento de ${(bytes / MB).toLocaleString('es')} MB por POST /v2/ops/assets/add`);

  // The raw hashing speed: only `update` is timed, not making the chunks.
  const hash = createHash('sha256');
  let hashingMs = 0;
  for (const chunk of documentChunks(bytes)) {
    const begun = performance.now();
    hash.update(chunk);
    hashingMs += performance.now() - begun;
  }
  const documentSha256 = hash.digest('hex');
  const rawSha256MBps = bytes / MB / (hashingMs / 1000);
  console.log(`  SHA-256 en bruto (node:crypto, este proceso): ${rawSha256MBps.toFixed(0)} MB/s`);

  let expectedCid: string | undefined;
  let importerMBps: number | null = null;
  if (verify) {
    const begun = performance.now();
    expectedCid = (await cidOf(documentChunks(bytes))).cid;
    importerMBps = bytes / MB / ((performance.now() - begun) / 1000);
    console.log(`  CID esperado (cidOf, sin disco): ${importerMBps.toFixed(0)} MB/s, ${expectedCid}`);
  }

  const archive = await prepareArchive(config, databaseUrl);
  const engine = databaseUrl ? `PostgreSQL en ${new URL(databaseUrl).host}` : 'PGlite nuevo';
  console.log(`  archivo con la carga inicial real (${engine}): ${archive.seconds.toFixed(1)} s`);
  try {
    const floor = await measureFloor(archive.dataDir, bytes);
    console.log(
      `  suelo (el mismo cuerpo a un servidor node:http que solo lo escribe en un archivo): ${floor.MBps.toFixed(0)} MB/s = ` +
        `${((floor.MBps / rawSha256MBps) * 100).toFixed(0)} % del SHA-256 en bruto; su RSS ${floor.rss.baselineMb.toFixed(0)} → ` +
        `${floor.rss.peakMb.toFixed(0)} MB (+${floor.rss.growthMb.toFixed(0)})`,
    );
    const server = await startServer(root, archive.dataDir, {
      ARCHIVE_MAX_DOCUMENT_BYTES: String(Math.max(bytes, 200_000_000)),
      ARCHIVE_UPLOADS_PER_HOUR_WALLET: '1000',
      ARCHIVE_UPLOADS_PER_HOUR_IP: '1000',
      ARCHIVE_PUBLIC_URL: '',
      ARCHIVE_REQUIRE_LOGIN: 'false',
      ARCHIVE_PINNING_SERVICE_URL: '',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    console.log(`  servidor compilado en ${server.origin} (pid ${server.pid})`);
    try {
      const token = await signIn(server.origin);
      const proof = pngImage(120, 80, 7);
      const proofSha256 = createHash('sha256').update(proof).digest('hex');
      const contribute = async (document: { bytes: number; seed: number; sha256: string }) => {
        const nonce = await uploadNonce(server.origin, token);
        const signature = await WALLET.signMessage(confirmationMessage({ documentSha256: document.sha256, proofSha256, nonce }));
        const asset = {
          title: 'Documento sintético del banco de pruebas de subida',
          docType: 'other',
          description:
            'Un archivo generado por npm run bench para medir la subida de un documento grande: memoria del servidor y velocidad frente al hash en bruto.',
          categoryId: archive.categoryId,
          docSource: 'https://archivo.example/bench/documento',
          sourceId: archive.sourceId,
          issuerId: archive.issuerId,
          owner: WALLET.address,
        };
        const sent = await sendUpload(server.origin, server.pid, token, { asset, nonce, signature, proof, ...document });
        if (sent.status !== 200) throw new Error(`La subida respondió ${sent.status}: ${JSON.stringify(sent.answer).slice(0, 300)}`);
        return sent;
      };
      // A small contribution first loads the upload's code (multipart, importer, signature check),
      // so that the measured one shows what its bytes cost, not the first use of that code.
      const warmupSha256 = createHash('sha256');
      for (const chunk of documentChunks(WARMUP.bytes, WARMUP.seed)) warmupSha256.update(chunk);
      await contribute({ ...WARMUP, sha256: warmupSha256.digest('hex') });

      const upload = await contribute({ bytes, seed: DOCUMENT_SEED, sha256: documentSha256 });
      const cid = String((upload.answer as { body?: { assetCID?: string } }).body?.assetCID ?? '');
      const throughputMBps = bytes / MB / upload.seconds;
      const figures: UploadFigures = {
        bytes,
        uploadSeconds: upload.seconds,
        sendSeconds: upload.sendSeconds,
        throughputMBps,
        rawSha256MBps,
        ratio: throughputMBps / rawSha256MBps,
        floor: { MBps: floor.MBps, ratio: floor.MBps / rawSha256MBps, rss: floor.rss },
        importerMBps,
        rss: { ...upload.rss, targetMb: UPLOAD_TARGETS.peakRssMb },
        database: upload.database,
        cpuSeconds: upload.cpuSeconds,
        cid,
        cidMatches: expectedCid === undefined ? null : cid === expectedCid,
        storedBytes: await folderBytes(path.join(archive.dataDir, 'blocks')),
        prepareSeconds: archive.seconds,
        over: [],
      };
      if (figures.rss.peakMb > UPLOAD_TARGETS.peakRssMb) figures.over.push('OVER RSS');
      if (figures.ratio < UPLOAD_TARGETS.throughputToHash) figures.over.push('LENTO');
      if (figures.cidMatches === false) figures.over.push('CID distinto');
      printUpload(figures);
      return figures;
    } catch (error) {
      console.error(`\nÚltimas líneas del servidor:\n${server.output()}`);
      throw error;
    } finally {
      await server.stop();
    }
  } finally {
    await archive.remove();
  }
}

interface PreparedArchive {
  dataDir: string;
  categoryId: number;
  sourceId: number;
  issuerId: number;
  seconds: number;
  remove(): Promise<void>;
}

/**
 * A fresh data folder (for the blocks, and the PGlite database unless `databaseUrl` names one) with
 * the real seed: a category, a source and an issuer to cite.
 */
async function prepareArchive(config: ArchiveConfig, databaseUrl: string | undefined): Promise<PreparedArchive> {
  const started = performance.now();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-bench-upload-'));
  const forget = () => rmSync(dataDir, { recursive: true, force: true });
  // Interrupted (Ctrl-C ends the process without running `finally`), the gigabyte still goes.
  process.once('exit', forget);
  const remove = async () => {
    process.off('exit', forget);
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    const handle = await openDatabase(databaseUrl ? { url: databaseUrl } : { dataDir: path.join(dataDir, 'pgdata') });
    try {
      await migrateDatabase(handle, config.migrationsDir);
      await seedArchive({
        db: handle.db,
        store: createContentStore({ dir: path.join(dataDir, 'blocks') }),
        staging: createStagingArea({ storeDir: path.join(dataDir, 'blocks'), dir: path.join(dataDir, 'staging'), guard: databaseFileGuard(handle.db) }),
        fixturesDir: config.fixturesDir,
      });
      const category = await handle.db.query.categories.findFirst();
      const [source] = await handle.db.select({ id: sources.id }).from(sources).limit(1);
      const [issuer] = await handle.db.select({ id: departments.id }).from(departments).limit(1);
      if (!category || !source || !issuer) throw new Error('La carga inicial no dejó categoría, fuente o emisor');
      const seconds = (performance.now() - started) / 1000;
      return { dataDir, categoryId: category.id, sourceId: source.id, issuerId: issuer.id, seconds, remove };
    } finally {
      await handle.close();
    }
  } catch (error) {
    await remove();
    throw error;
  }
}

async function postJson(url: string, init: { token?: string; body?: unknown }): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { origin: new URL(url).origin };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url} respondió ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Sign-In with Ethereum as the browser does it, for the host the server is reached at. */
async function signIn(origin: string): Promise<string> {
  const response = await fetch(`${origin}/auth/nonce`);
  const { nonce } = (await response.json()) as { nonce: string };
  const now = new Date();
  const message = signInMessage({
    domain: new URL(origin).host,
    address: WALLET.address,
    statement: SIGN_IN_STATEMENT,
    uri: origin,
    chainId: SEPOLIA,
    nonce,
    issuedAt: now.toISOString(),
    expirationTime: new Date(now.getTime() + 10 * 60 * 1000).toISOString(),
  });
  const signature = await WALLET.signMessage(message);
  const login = await postJson(`${origin}/auth/login`, { body: { message, signature, provider: 'metamask' } });
  return String(login.accessToken);
}

async function uploadNonce(origin: string, token: string): Promise<string> {
  const answer = await postJson(`${origin}/v2/ops/assets/nonce`, { token });
  return String((answer.body as { nonce: string }).nonce);
}

interface SentUpload {
  status: number;
  answer: unknown;
  seconds: number;
  sendSeconds: number;
  rss: Omit<UploadFigures['rss'], 'targetMb'>;
  database: UploadFigures['database'];
  cpuSeconds: { server: number; serverSystem: number; client: number };
}

/**
 * Streams the multipart body the wizard sends (fields, proof, document) with its length known in
 * advance, waiting for the socket to drain, while sampling the server's memory.
 */
async function sendUpload(
  origin: string,
  pid: number,
  token: string,
  parts: { asset: object; nonce: string; signature: string; proof: Buffer; bytes: number; seed: number },
): Promise<SentUpload> {
  const boundary = `----archivo-bench-${randomUUID()}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fileHeader = (name: string, fileName: string, type: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`;
  const head = Buffer.concat([
    Buffer.from(field('asset', JSON.stringify(parts.asset)) + field('nonce', parts.nonce) + field('signature', parts.signature)),
    Buffer.from(fileHeader('proof', 'captura.png', 'image/png')),
    parts.proof,
    Buffer.from(`\r\n${fileHeader('fileUploaded', 'documento-bench.bin', 'application/octet-stream')}`),
  ]);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);

  const memory = new MemorySampler(pid);
  const databasePid = childOf(pid);
  const database = databasePid === null ? null : new MemorySampler(databasePid);
  const baselineMb = await memory.settled();
  const databaseBaselineMb = database?.read().rssMb;
  const highWaterBeforeMb = memory.read().highWaterMb;
  const serverCpuBefore = cpuSecondsOf(pid);
  const clientCpuBefore = process.cpuUsage();
  memory.start();
  database?.start();

  const { status, body, started, sent, answered } = await postStream(
    new URL('/v2/ops/assets/add', origin),
    {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      authorization: `Bearer ${token}`,
      origin,
    },
    { head, bytes: parts.bytes, seed: parts.seed, tail },
  );

  memory.stop();
  database?.stop();
  const { highWaterMb } = memory.read();
  const serverCpuAfter = cpuSecondsOf(pid);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  let answer: unknown = body;
  try {
    answer = JSON.parse(body);
  } catch {
    // not JSON: kept as text for the error message
  }
  const peakMb = highWaterMb > highWaterBeforeMb ? Math.max(memory.peakMb, highWaterMb) : memory.peakMb;
  return {
    status,
    answer,
    seconds: (answered - started) / 1000,
    sendSeconds: (sent - started) / 1000,
    rss: {
      baselineMb,
      peakMb,
      growthMb: peakMb - baselineMb,
      peakSampledMb: memory.peakMb,
      highWaterMb,
      highWaterBeforeMb,
      samples: memory.samples.length,
      series: memory.series(500),
    },
    database: database ? { baselineMb: databaseBaselineMb!, peakMb: database.peakMb } : null,
    cpuSeconds: {
      server: serverCpuAfter.total - serverCpuBefore.total,
      serverSystem: serverCpuAfter.system - serverCpuBefore.system,
      client: (clientCpu.user + clientCpu.system) / 1e6,
    },
  };
}

/**
 * POSTs `head`, then the generated document (`bytes` from `seed`), then `tail`, with the length
 * known in advance and waiting for the socket to drain. A refusal can arrive mid-body: writing
 * stops then, and the answer says why.
 */
async function postStream(
  url: URL,
  headers: Record<string, string>,
  body: { head: Buffer; bytes: number; seed: number; tail: Buffer },
): Promise<{ status: number; body: string; started: number; sent: number; answered: number }> {
  const started = performance.now();
  let sent = started;
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.head.length + body.bytes + body.tail.length) },
    });
    request.on('error', reject);
    let answered = false;
    request.on('response', (response) => {
      answered = true;
      const pieces: Buffer[] = [];
      response.on('data', (piece: Buffer) => pieces.push(piece));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(pieces).toString('utf8') }));
      response.on('error', reject);
    });
    (async () => {
      request.write(body.head);
      for (const chunk of documentChunks(body.bytes, body.seed)) {
        if (answered) return;
        if (!request.write(chunk)) await new Promise((drained) => request.once('drain', drained));
      }
      request.end(body.tail, () => (sent = performance.now()));
    })().catch(reject);
  });
  return { ...answer, started, sent, answered: performance.now() };
}

/**
 * What this machine allows before any of the archive's work: the same body, from this process,
 * over node:http to a bare server in another process that only appends the bytes to one file (no
 * multipart, no hashing, no blocks, no database). The upload's throughput can be read against it.
 */
async function measureFloor(dir: string, bytes: number): Promise<{ MBps: number; rss: UploadFigures['floor']['rss'] }> {
  const file = path.join(dir, 'suelo.bin');
  const script = `
    import fs from 'node:fs';
    import http from 'node:http';
    const server = http.createServer((request, response) => {
      const out = fs.createWriteStream(process.env.FLOOR_FILE);
      request.pipe(out);
      out.on('finish', () => { response.end('{"code":200}'); server.close(); });
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, FLOOR_FILE: file },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (line: Buffer) => resolve(Number(line.toString().trim())));
      child.once('exit', (code) => reject(new Error(`El servidor del suelo terminó (código ${code})`)));
    });
    const memory = new MemorySampler(child.pid!);
    const baselineMb = await memory.settled();
    memory.start();
    const sent = await postStream(new URL(`http://127.0.0.1:${port}/`), {}, { head: Buffer.alloc(0), bytes, seed: DOCUMENT_SEED, tail: Buffer.alloc(0) });
    memory.stop();
    if (sent.status !== 200) throw new Error(`El servidor del suelo respondió ${sent.status}`);
    const seconds = (sent.answered - sent.started) / 1000;
    return { MBps: bytes / MB / seconds, rss: { baselineMb, peakMb: memory.peakMb, growthMb: memory.peakMb - baselineMb } };
  } finally {
    child.kill();
    await fs.rm(file, { force: true });
  }
}

/** A process's resident memory from /proc, read every `SAMPLE_MS`. */
class MemorySampler {
  readonly pid: number;
  readonly samples: Array<{ at: number; rssMb: number }> = [];
  peakMb = 0;
  private timer: NodeJS.Timeout | undefined;
  private started = 0;

  constructor(pid: number) {
    this.pid = pid;
  }

  read(): { rssMb: number; highWaterMb: number } {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssMb: (kib('VmRSS') * 1024) / MB, highWaterMb: (kib('VmHWM') * 1024) / MB };
  }

  /**
   * Waits until VmRSS holds still (within 2 MB for a second, at most 15 s) and answers it: the
   * embedded database swells for a moment after it opens, which is not the upload's doing.
   */
  async settled(): Promise<number> {
    const deadline = performance.now() + 15_000;
    const window: number[] = [];
    for (;;) {
      window.push(this.read().rssMb);
      if (window.length > 10) window.shift();
      if (window.length === 10 && Math.max(...window) - Math.min(...window) < 2) break;
      if (performance.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return window[window.length - 1]!;
  }

  start(): void {
    this.started = performance.now();
    const sample = () => {
      const { rssMb } = this.read();
      // An exiting process's status no longer has VmRSS.
      if (Number.isNaN(rssMb)) return;
      this.samples.push({ at: performance.now() - this.started, rssMb });
      this.peakMb = Math.max(this.peakMb, rssMb);
    };
    sample();
    this.timer = setInterval(sample, SAMPLE_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The largest sample of each `bucketMs`, rounded to 0.1 MB. */
  series(bucketMs: number): number[] {
    const buckets: number[] = [];
    for (const { at, rssMb } of this.samples) {
      const index = Math.floor(at / bucketMs);
      buckets[index] = Math.max(buckets[index] ?? 0, rssMb);
    }
    return Array.from(buckets, (value) => Math.round((value ?? 0) * 10) / 10);
  }
}

let clockTicks: number | undefined;

/** CPU seconds of a process so far: user plus system, and system alone (/proc/<pid>/stat fields 14 and 15). */
function cpuSecondsOf(pid: number): { total: number; system: number } {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]) / clockTicks;
  const system = Number(fields[12]) / clockTicks;
  return { total: user + system, system };
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

function printUpload(figures: UploadFigures): void {
  const { rss } = figures;
  console.log(
    `  subida: ${figures.uploadSeconds.toFixed(2)} s (último byte enviado a ${figures.sendSeconds.toFixed(2)} s), ` +
      `${figures.throughputMBps.toFixed(0)} MB/s = ${(figures.ratio * 100).toFixed(0)} % del SHA-256 en bruto ` +
      `(${figures.rawSha256MBps.toFixed(0)} MB/s; objetivo >= 33 %)`,
  );
  console.log(
    `  RSS del servidor: ${rss.baselineMb.toFixed(0)} MB antes, pico ${rss.peakMb.toFixed(0)} MB durante la subida ` +
      `(+${rss.growthMb.toFixed(0)} MB; ${rss.samples} lecturas; objetivo < ${rss.targetMb} MB); ` +
      `VmHWM ${rss.highWaterMb.toFixed(0)} MB, ${rss.highWaterBeforeMb.toFixed(0)} MB ya antes de subir`,
  );
  if (figures.database) {
    console.log(
      `  base de datos embebida, en su propio proceso: RSS ${figures.database.baselineMb.toFixed(0)} MB antes, ` +
        `pico ${figures.database.peakMb.toFixed(0)} MB durante la subida (no cuenta para el objetivo del servidor)`,
    );
  }
  console.log(
    `  CPU durante la subida: servidor ${figures.cpuSeconds.server.toFixed(1)} s (${figures.cpuSeconds.serverSystem.toFixed(1)} s de sistema), cliente ${figures.cpuSeconds.client.toFixed(1)} s; ` +
      `CID ${figures.cid} ${figures.cidMatches === null ? '(sin comprobar: BENCH_UPLOAD_VERIFY=0)' : figures.cidMatches ? '= cidOf' : '≠ cidOf'}`,
  );
}

/** The summary's upload line, in the style of the routes' table. */
export function uploadSummary(figures: UploadFigures): string {
  return table([
    ['subida', 'MB', 's', 'MB/s', 'sha256 MB/s', 'proporción', 'obj.', 'suelo', 'RSS antes', 'RSS pico', '+MB', 'obj. MB', 'CID', 'estado'],
    [
      'POST /v2/ops/assets/add',
      (figures.bytes / MB).toFixed(0),
      figures.uploadSeconds.toFixed(2),
      figures.throughputMBps.toFixed(0),
      figures.rawSha256MBps.toFixed(0),
      figures.ratio.toFixed(2),
      '>= 0.33',
      figures.floor.ratio.toFixed(2),
      figures.rss.baselineMb.toFixed(0),
      figures.rss.peakMb.toFixed(0),
      figures.rss.growthMb.toFixed(0),
      `< ${figures.rss.targetMb}`,
      figures.cidMatches === null ? '-' : figures.cidMatches ? 'ok' : 'distinto',
      figures.over.length ? figures.over.join(', ') : 'ok',
    ],
  ]);
}
