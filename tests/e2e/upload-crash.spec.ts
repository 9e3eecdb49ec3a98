/**
 * A server killed in the middle of uploads (SIGKILL: no cleanup of any kind), then restarted on
 * the same data folder: the upload cut short left no record, no import in progress and no staged
 * blocks; an upload acknowledged just before the kill is there, and its bytes match its CID.
 * The built server (`npm start`) runs on its own port and embedded database; no browser is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { SERVER_NODE_FLAGS } from '../../scripts/node-flags.ts';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { childOf, childrenOf, waitForExit } from '../helpers/processes.ts';
import { ALICE, signedProof } from '../helpers/siwe.ts';
import { pngImage, signUpload } from '../helpers/upload.ts';

const PORT = Number(process.env.E2E_PORT ?? 4399) + 3;
const ORIGIN = `http://127.0.0.1:${PORT}`;

test.describe.configure({ timeout: 180_000 });

let dataDir: string;
let server: ChildProcess | undefined;

async function startServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'scripts/start.ts'], {
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', ARCHIVE_DATA_DIR: dataDir, DATABASE_URL: '', ARCHIVE_FIXTURES_DIR: FIXTURES_DIR },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let tries = 0; tries < 600; tries += 1) {
    const ready = await fetch(`${ORIGIN}/favicon.svg`).then((response) => response.ok, () => false);
    if (ready && (await fetch(`${ORIGIN}/dashboard`).then((response) => response.ok, () => false))) return child;
    if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('The server did not start');
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function signIn(): Promise<string> {
  const { nonce } = (await (await fetch(`${ORIGIN}/auth/nonce`)).json()) as { nonce: string };
  const proof = await signedProof(ALICE, { nonce, domain: `127.0.0.1:${PORT}`, uri: ORIGIN });
  const response = await fetch(`${ORIGIN}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: ORIGIN },
    body: JSON.stringify({ ...proof, provider: 'metamask' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function uploadNonce(token: string): Promise<string> {
  const response = await fetch(`${ORIGIN}/v2/ops/assets/nonce`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, Origin: ORIGIN } });
  return ((await response.json()) as { body: { nonce: string } }).body.nonce;
}

/**
 * Sends an upload as a stream of multipart pieces; `pause` is called once the first `sendFirst`
 * bytes of the document are out, and the rest is sent only if it resolves to true.
 */
function sendUpload(
  token: string,
  parts: { asset: object; nonce: string; signature: string; document: Buffer; proof: Buffer },
  pause?: { sendFirst: number; then: () => Promise<boolean> },
): Promise<{ status: number; body: { code: number; body?: { assetCID: string; assetId: number }; message?: string } }> {
  const boundary = `----archivo${randomBytes(8).toString('hex')}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fileHead = (name: string, fileName: string, type: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`;
  const head = Buffer.from(
    field('asset', JSON.stringify(parts.asset)) +
      field('nonce', parts.nonce) +
      field('signature', parts.signature) +
      fileHead('proof', 'captura.png', 'image/png'),
  );
  const middle = Buffer.from(`\r\n${fileHead('fileUploaded', 'datos.csv', 'text/csv')}`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + parts.proof.length + middle.length + parts.document.length + tail.length;

  return new Promise((resolve, reject) => {
    const request = http.request(`${ORIGIN}/v2/ops/assets/add`, {
      method: 'POST',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(length),
        Authorization: `Bearer ${token}`,
        Origin: ORIGIN,
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
    });
    request.on('error', reject);
    void (async () => {
      request.write(head);
      request.write(parts.proof);
      request.write(middle);
      const first = pause ? pause.sendFirst : parts.document.length;
      request.write(parts.document.subarray(0, first));
      if (pause && !(await pause.then())) return;
      request.write(parts.document.subarray(first));
      request.end(tail);
    })();
  });
}

/** A CSV of `rows` lines, different on every call: no block of it is already stored. */
function generatedCsv(rows: number): Buffer {
  const salt = randomBytes(4).toString('hex');
  const lines = ['AÑO;MES;PROVINCIA;EMPLEOS'];
  for (let row = 0; row < rows; row += 1) lines.push(`${2000 + (row % 25)};${(row % 12) + 1};Provincia ${salt}-${row};${(row * 7919) % 100_000}`);
  return Buffer.from(lines.join('\n'), 'latin1');
}

async function filesUnder(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}

async function importsInProgress(): Promise<number> {
  const response = await fetch(`${ORIGIN}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ importsConnection(where: { status: "in_progress" }) { aggregate { count } } }' }),
  });
  const body = (await response.json()) as { data: { importsConnection: { aggregate: { count: number } } } };
  return body.data.importsConnection.aggregate.count;
}

test.beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-crash-'));
});

test.afterAll(async () => {
  // A child that a signal ended keeps exitCode null, and will not emit exit again: kill() would wait forever.
  if (server && server.exitCode === null && server.signalCode === null) {
    // The embedded database's process outlives a SIGKILLed server by a moment, still writing into
    // the data folder: removing the folder under it fails with ENOTEMPTY. Wait for it to end.
    const database = childrenOf(server.pid!);
    await kill(server);
    await waitForExit(database, 10_000);
  }
  await fs.rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

test('a server killed mid-upload restarts consistent; an acknowledged upload survives the kill', async () => {
  server = await startServer();
  const token = await signIn();
  const categories = JSON.parse(((await (await fetch(`${ORIGIN}/v2/open-data/categories/getAll`)).json()) as { body: string }).body) as Array<{ id: number }>;
  const asset = {
    title: 'Empleos por provincia y mes, serie de prueba de caída',
    docType: 'csv',
    description: 'Serie generada para comprobar que una subida interrumpida por la caída del servidor no deja nada a medias en el archivo.',
    categoryId: categories[0]!.id,
    docSource: 'https://datos.gob.do/dataset/empleos',
    newSource: { name: 'Portal de prueba de caídas', description: 'Fuente de la prueba', url: 'https://caidas.example.do' },
    newIssuer: { name: 'Institución de prueba de caídas', description: 'Emisor de la prueba', url: 'https://emisor-caidas.example.do' },
    owner: ALICE.address,
  };
  const proof = pngImage(200, 120, 7);

  // 1. The server dies while a 40 MB document is half-way through.
  const cut = generatedCsv(900_000);
  const cutNonce = await uploadNonce(token);
  const cutUpload = sendUpload(
    token,
    { asset, nonce: cutNonce, signature: await signUpload(ALICE, cut, proof, cutNonce), document: cut, proof },
    {
      sendFirst: Math.floor(cut.length / 2),
      then: async () => {
        // Let the server stage what arrived, and see the upload's import under way.
        await expect.poll(importsInProgress, { timeout: 10_000 }).toBe(1);
        await kill(server!);
        return false;
      },
    },
  );
  await expect(cutUpload).rejects.toThrow();
  expect(await filesUnder(path.join(dataDir, 'staging'))).toBeGreaterThan(0);
  // The embedded database's own process ends with the server, letting go of its folder.
  const lockHeld = () => fs.access(path.join(dataDir, 'pgdata.lock')).then(() => true, () => false);
  await expect.poll(lockHeld, { timeout: 10_000 }).toBe(false);

  server = await startServer();
  expect(await importsInProgress()).toBe(0);
  expect(await filesUnder(path.join(dataDir, 'staging'))).toBe(0);
  const mine = (await (await fetch(`${ORIGIN}/alexandrias?wallet_address=${ALICE.address.toLowerCase()}`)).json()) as unknown[];
  expect(mine).toHaveLength(0);

  // 2. An upload is acknowledged, then the server is killed at once: it is there after restart.
  const kept = generatedCsv(200_000);
  const token2 = await signIn();
  const keptNonce = await uploadNonce(token2);
  const answer = await sendUpload(token2, { asset, nonce: keptNonce, signature: await signUpload(ALICE, kept, proof, keptNonce), document: kept, proof });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  await kill(server);

  server = await startServer();
  const cid = answer.body.body!.assetCID;
  expect(cid).toBe((await cidOf(kept)).cid);
  const download = await fetch(`${ORIGIN}/ipfs/${cid}`);
  expect(download.status).toBe(200);
  expect(Buffer.from(await download.arrayBuffer()).equals(kept)).toBe(true);
  const after = (await (await fetch(`${ORIGIN}/alexandrias?wallet_address=${ALICE.address.toLowerCase()}`)).json()) as Array<{ cid: string; status: string }>;
  expect(after.map((record) => [record.cid, record.status])).toEqual([[cid, 'under_review']]);
  expect(await importsInProgress()).toBe(0);
});

test('a killed embedded database stops the server, and both come back on the same data', async () => {
  // Runs after the test above, on its data folder: its acknowledged upload must still be there.
  if (!server || server.exitCode !== null) server = await startServer();
  const database = childOf(server.pid!);
  expect(database, 'the embedded database runs in a child process').not.toBeNull();
  const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
  process.kill(database!, 'SIGKILL');
  // Without its database the server cannot answer: it stops, for a supervisor to restart it.
  expect(await exited).toBe(1);

  server = await startServer();
  const records = (await (await fetch(`${ORIGIN}/alexandrias?wallet_address=${ALICE.address.toLowerCase()}`)).json()) as unknown[];
  expect(records).toHaveLength(1);
  expect(await importsInProgress()).toBe(0);
});
