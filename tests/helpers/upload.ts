/**
 * Building real contributions for tests: a PNG "screenshot" made from scratch, the multipart
 * request the wizard sends, and the wallet's real signature of the confirmation message.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { Wallet } from 'ethers';
import { confirmationMessage } from '../../src/lib/domain/upload.ts';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGB PNG of one colour; `seed` changes the colour, so two images differ. */
export function pngImage(width = 64, height = 40, seed = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x += 1) row.set([(seed * 53) & 0xff, (x * 4) & 0xff, 160], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', new Uint8Array()),
  ]);
}

export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface UploadParts {
  asset: Record<string, unknown>;
  document: { name: string; bytes: Uint8Array; type?: string };
  proof: { name: string; bytes: Uint8Array; type?: string };
  nonce: string;
  signature: string;
}

/** The wallet's signature of the confirmation message for these files and this nonce. */
export function signUpload(wallet: Wallet, document: Uint8Array, proof: Uint8Array, nonce: string): Promise<string> {
  return wallet.signMessage(
    confirmationMessage({ documentSha256: sha256Hex(document), proofSha256: sha256Hex(proof), nonce }),
  );
}

/** The multipart body the wizard sends: fields first, then the proof and the document. */
export function uploadForm(parts: UploadParts): FormData {
  const form = new FormData();
  form.append('asset', JSON.stringify(parts.asset));
  form.append('nonce', parts.nonce);
  form.append('signature', parts.signature);
  form.append('proof', new Blob([new Uint8Array(parts.proof.bytes)], { type: parts.proof.type ?? 'image/png' }), parts.proof.name);
  form.append(
    'fileUploaded',
    new Blob([new Uint8Array(parts.document.bytes)], { type: parts.document.type ?? 'application/octet-stream' }),
    parts.document.name,
  );
  return form;
}

export function uploadRequest(body: FormData | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
  return new Request('http://archivo.test/v2/ops/assets/add', {
    method: 'POST',
    body,
    headers,
    // @ts-expect-error: Node's fetch needs this for a stream body; the DOM typings lack it.
    duplex: 'half',
  });
}

/** The bytes and content type a FormData serialises to, to cut them short or alter them. */
export async function serializedForm(form: FormData): Promise<{ bytes: Uint8Array; contentType: string }> {
  const response = new Response(form);
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    contentType: response.headers.get('content-type') ?? '',
  };
}
