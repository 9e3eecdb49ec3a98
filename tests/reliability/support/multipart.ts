/**
 * multipart/form-data written by hand, byte for byte, so a test can send exactly the upload the
 * browser sends, or a deliberately broken one (wrong boundary, no end, raw header lines).
 */
import { randomBytes } from 'node:crypto';

export interface FormPart {
  name: string;
  value: string | Buffer;
  /** Makes the part a file. */
  fileName?: string;
  /** The file's declared type (`application/octet-stream` by default). */
  type?: string;
  /** Replaces the part's header lines entirely (without the blank line that ends them). */
  rawHeaders?: string;
}

export interface FormOptions {
  boundary?: string;
  /** The closing `--boundary--` (true by default). */
  close?: boolean;
}

export interface Form {
  contentType: string;
  boundary: string;
  /** Each part as its own piece, then the closing delimiter: a streamed upload can pause between them. */
  pieces: Buffer[];
  body: Buffer;
}

/** Quotes and line breaks in a name, escaped as browsers escape them (WHATWG multipart/form-data). */
const escapeName = (name: string) => name.replaceAll('"', '%22').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

function partHead(boundary: string, part: FormPart): string {
  const name = escapeName(part.name);
  const headers =
    part.rawHeaders ??
    (part.fileName === undefined
      ? `Content-Disposition: form-data; name="${name}"`
      : `Content-Disposition: form-data; name="${name}"; filename="${escapeName(part.fileName)}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`);
  return `--${boundary}\r\n${headers}\r\n\r\n`;
}

/** Builds the body; each part's head and bytes are separate pieces. */
export function multipart(parts: FormPart[], { boundary = `----archivo${randomBytes(8).toString('hex')}`, close = true }: FormOptions = {}): Form {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(partHead(boundary, part), 'utf8'));
    pieces.push(Buffer.concat([typeof part.value === 'string' ? Buffer.from(part.value, 'utf8') : part.value, Buffer.from('\r\n')]));
  }
  if (close) pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, boundary, pieces, body: Buffer.concat(pieces) };
}
