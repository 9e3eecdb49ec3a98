/**
 * What a contributor's client does, over plain HTTP: sign in with a real SIWE signature, ask for
 * an upload nonce, sign the confirmation of the exact bytes, send the multipart upload. Shared by
 * the load, crash and hostile-input parts (and shaped after tests/e2e/upload-crash.spec.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Wallet, id as keccakText } from 'ethers';
import { signedProof } from '../../helpers/siwe.ts';
import { pngImage, signUpload } from '../../helpers/upload.ts';
import { multipart, type Form, type FormPart } from './multipart.ts';
import { request, type HttpResult } from './http.ts';
import { FIXTURES_DIR } from './settings.ts';

export { pngImage };

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A fixed test wallet per name: the same keys on every run, none of them ever used for real. */
export function testWallet(name: string): Wallet {
  return new Wallet(keccakText(`archivo-abierto reliability ${name}`));
}

/** A loopback address of its own for visitor `n` of `group` (127.group.x.y). */
export function visitorAddress(group: number, n: number): string {
  return `127.${group}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

export interface Session {
  wallet: Wallet;
  token: string;
  /** The address this contributor connects from. */
  address: string;
}

function json<T>(result: HttpResult): T {
  return JSON.parse(result.body.toString('utf8')) as T;
}

/** Signs in with a real Sign-In with Ethereum proof; throws unless the archive opens a session. */
export async function signIn(origin: string, wallet: Wallet, address?: string): Promise<Session> {
  const issued = await request(origin, '/auth/nonce', { localAddress: address });
  if (issued.status !== 200) throw new Error(`GET /auth/nonce → ${issued.status} ${issued.body}`);
  const { nonce } = json<{ nonce: string }>(issued);
  const proof = await signedProof(wallet, { nonce, domain: new URL(origin).host, uri: origin });
  const answer = await request(origin, '/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify({ ...proof, provider: 'metamask' }),
    localAddress: address,
  });
  if (answer.status !== 200) throw new Error(`POST /auth/login → ${answer.status} ${answer.body}`);
  return { wallet, token: json<{ accessToken: string }>(answer).accessToken, address: address ?? '127.0.0.1' };
}

/** A fresh single-use upload nonce for the session's wallet. */
export async function uploadNonce(origin: string, session: Pick<Session, 'token'>, address?: string): Promise<string> {
  const answer = await request(origin, '/v2/ops/assets/nonce', {
    method: 'POST',
    headers: { Authorization: `Bearer ${session.token}`, Origin: origin },
    localAddress: address,
  });
  if (answer.status !== 200) throw new Error(`POST /v2/ops/assets/nonce → ${answer.status} ${answer.body}`);
  return json<{ body: { nonce: string } }>(answer).body.nonce;
}

/** A valid `asset` field, with a new source and issuer unless ids are given in `overrides`. */
export function validAsset(owner: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Salario mínimo por sector y tamaño de empresa, serie de fiabilidad',
    docType: 'csv',
    description:
      'Serie publicada por el Ministerio de Hacienda con el salario mínimo por sector, subida por las pruebas de fiabilidad del archivo para comprobar que nada se pierde.',
    categoryId: 3,
    docSource: 'https://datos.gob.do/dataset/salario-minimo',
    newSource: { name: 'Portal de pruebas de fiabilidad', description: 'Fuente creada por las pruebas de fiabilidad', url: 'https://fiabilidad.example.do' },
    newIssuer: { name: 'Institución de pruebas de fiabilidad', description: 'Emisor creado por las pruebas de fiabilidad', url: 'https://emisor-fiabilidad.example.do' },
    owner,
    ...overrides,
  };
}

export interface UploadFiles {
  document: Buffer;
  proof: Buffer;
  documentName?: string;
  documentType?: string;
  proofName?: string;
}

/** The multipart body the wizard sends: fields first, then the proof and the document. */
export function uploadForm(asset: Record<string, unknown> | string, nonce: string, signature: string, files: UploadFiles): Form {
  const parts: FormPart[] = [
    { name: 'asset', value: typeof asset === 'string' ? asset : JSON.stringify(asset) },
    { name: 'nonce', value: nonce },
    { name: 'signature', value: signature },
    { name: 'proof', value: files.proof, fileName: files.proofName ?? 'captura.png', type: 'image/png' },
    { name: 'fileUploaded', value: files.document, fileName: files.documentName ?? 'datos.csv', type: files.documentType ?? 'text/csv' },
  ];
  return multipart(parts);
}

export function uploadHeaders(origin: string, token: string, form: Pick<Form, 'contentType'>): Record<string, string> {
  return { 'Content-Type': form.contentType, Authorization: `Bearer ${token}`, Origin: origin };
}

export interface UploadOutcome {
  result: HttpResult;
  assetId?: number;
  cid?: string;
}

/** Nonce (a fresh one unless given), signature, upload: one whole contribution. */
export async function upload(
  origin: string,
  session: Session,
  files: UploadFiles,
  asset: Record<string, unknown> = validAsset(session.wallet.address),
  address = session.address,
  givenNonce?: string,
): Promise<UploadOutcome> {
  const nonce = givenNonce ?? (await uploadNonce(origin, session, address));
  const signature = await signUpload(session.wallet, files.document, files.proof, nonce);
  const form = uploadForm(asset, nonce, signature, files);
  const result = await request(origin, '/v2/ops/assets/add', {
    method: 'POST',
    headers: uploadHeaders(origin, session.token, form),
    body: form.body,
    localAddress: address,
  });
  if (result.status !== 200) return { result };
  const { body } = json<{ body: { assetId: number; assetCID: string } }>(result);
  return { result, assetId: body.assetId, cid: body.assetCID };
}

/** A GraphQL read; the parsed answer (`data` and `errors`) with its HTTP result. */
export async function graphql<T = Record<string, unknown>>(
  origin: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ result: HttpResult; data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> }> {
  const result = await request(origin, '/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const parsed = JSON.parse(result.body.toString('utf8') || '{}') as { data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> };
  return { result, ...parsed };
}

/** The real published files small enough to upload many times, by document type. */
export const FIXTURE_FILES = [
  { file: 'csv/salario-minimo-hacienda-2000-2025.csv', docType: 'csv', type: 'text/csv' },
  { file: 'csv/empleos-cotizantes-tss-2003-2026.csv', docType: 'csv', type: 'text/csv' },
  { file: 'csv/empresas-servicios-turisticos-mitur-2018-2025.csv', docType: 'csv', type: 'text/csv' },
  { file: 'csv/zonas-francas-textil-2003-2023.csv', docType: 'csv', type: 'text/csv' },
  { file: 'pdf/prodominicana-estructura-organica-2023.pdf', docType: 'pdf', type: 'application/pdf' },
  { file: 'pdf/sisalril-pespj-d1.pdf', docType: 'pdf', type: 'application/pdf' },
] as const;

const fixtureCache = new Map<string, Buffer>();

export function fixture(file: string): Buffer {
  let bytes = fixtureCache.get(file);
  if (!bytes) {
    bytes = fs.readFileSync(path.join(FIXTURES_DIR, 'files', file));
    fixtureCache.set(file, bytes);
  }
  return bytes;
}

/**
 * A real fixture made unique, so that every upload is new content: a CSV gains a last row, a PDF
 * a comment after its end (both still the same kind of file, from the same first bytes).
 */
export function fixtureVariant(n: number): { document: Buffer; docType: string; type: string; name: string } {
  const chosen = FIXTURE_FILES[n % FIXTURE_FILES.length]!;
  const original = fixture(chosen.file);
  const salt = `${n}-${randomBytes(6).toString('hex')}`;
  const extra = chosen.docType === 'csv' ? `\n${salt};fiabilidad;${n}\n` : `\n%fiabilidad ${salt}\n`;
  return { document: Buffer.concat([original, Buffer.from(extra, 'latin1')]), docType: chosen.docType, type: chosen.type, name: path.basename(chosen.file) };
}

/** A CSV of `rows` lines, different on every call: no block of it is already stored. */
export function generatedCsv(rows: number): Buffer {
  const salt = randomBytes(4).toString('hex');
  const lines = ['AÑO;MES;PROVINCIA;EMPLEOS'];
  for (let row = 0; row < rows; row += 1) lines.push(`${2000 + (row % 25)};${(row % 12) + 1};Provincia ${salt}-${row};${(row * 7919) % 100_000}`);
  return Buffer.from(lines.join('\n'), 'latin1');
}

/** A unique proof screenshot (a real PNG). */
export function proofImage(n: number): Buffer {
  return pngImage(64 + (n % 50), 40 + (n % 30), n);
}
