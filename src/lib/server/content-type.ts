/**
 * What a file really is, from its first bytes (its "magic"), never from the name or the type the
 * browser claimed: the record's format comes from here, and a declared doc type that the content
 * contradicts is refused (415).
 */
import type { AssetType } from '../domain/constants.ts';
import type { DocType } from '../domain/upload.ts';

/** How many leading bytes the checks look at. */
export const HEAD_BYTES = 64 * 1024;

export type ContentKind =
  | 'pdf'
  | 'xlsx'
  | 'xls'
  | 'ods'
  | 'zip'
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'webp'
  | 'markup'
  | 'text'
  | 'binary';

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
const startsWith = (head: Uint8Array, ...bytes: number[]) => bytes.every((byte, i) => head[i] === byte);

/** The kind of content that starts with `head` (up to `HEAD_BYTES` of it). */
export function detectContent(head: Uint8Array): ContentKind {
  // PDF readers accept the header anywhere in the first kilobyte.
  if (ascii(head, 0, 1024).includes('%PDF-')) return 'pdf';
  if (startsWith(head, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (startsWith(head, 0xff, 0xd8, 0xff)) return 'jpeg';
  if (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'webp';
  if (startsWith(head, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) return 'xls';
  if (startsWith(head, 0x50, 0x4b, 0x03, 0x04)) {
    // ODF puts an uncompressed `mimetype` entry first (ODF 1.2 §3.3); OOXML workbooks keep their
    // parts under `xl/`, whose names appear in the local headers near the start.
    if (ascii(head, 30, 38) === 'mimetype' && ascii(head, 38, 84).startsWith('application/vnd.oasis.opendocument.spreadsheet')) {
      return 'ods';
    }
    const names = ascii(head, 0, head.length);
    return names.includes('xl/') ? 'xlsx' : 'zip';
  }
  if (head.includes(0)) return 'binary';
  const text = new TextDecoder('latin1').decode(head.subarray(0, 1024)).replace(/^\uFEFF|^ï»¿/, '').trimStart().toLowerCase();
  // HTML, SVG and XML are text too, but a browser may run them: never a "CSV".
  if (text.startsWith('<')) return 'markup';
  return 'text';
}

/** Which content each declared doc type accepts, and the record format it becomes. */
const ACCEPTED: Record<Exclude<DocType, 'other'>, Partial<Record<ContentKind, AssetType>>> = {
  pdf: { pdf: 'pdf' },
  xlsx: { xlsx: 'xlsx', xls: 'xls' },
  csv: { text: 'csv' },
  ods: { ods: 'ods' },
};

/** For 'other', content the archive knows anyway keeps its own format. */
const OTHER_FORMATS: Partial<Record<ContentKind, AssetType>> = { pdf: 'pdf', xlsx: 'xlsx', xls: 'xls', ods: 'ods' };

/** The record format of a document declared as `docType`, or null when the content contradicts it. */
export function documentFormat(docType: DocType, kind: ContentKind): AssetType | null {
  if (docType === 'other') return OTHER_FORMATS[kind] ?? 'other';
  return ACCEPTED[docType][kind] ?? null;
}

const MIME_TYPES: Record<ContentKind, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  zip: 'application/zip',
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  // Markup is served as a download, never as a page (see the gateway).
  markup: 'application/octet-stream',
  text: 'text/plain',
  binary: 'application/octet-stream',
};

/** The media type a stored file is served with. */
export function mediaType(kind: ContentKind, format: AssetType): string {
  if (format === 'csv') return 'text/csv';
  return MIME_TYPES[kind];
}

/** Proofs are screenshots: PNG, JPEG or WebP. */
export const PROOF_KINDS: ReadonlySet<ContentKind> = new Set(['png', 'jpeg', 'webp']);

/** What a user would call each declared type, for the 415 message. */
export const DOC_TYPE_NAMES: Record<DocType, string> = {
  pdf: 'un PDF',
  xlsx: 'una hoja de Excel (.xlsx o .xls)',
  csv: 'un CSV (texto)',
  ods: 'una hoja ODS',
  other: 'un archivo',
};

/** A file name safe to keep and to put in a header: no folders, no control characters, short. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(-200);
  return cleaned || 'archivo';
}

/** The extension of a cleaned file name, lower-cased (letters and digits only), or null. */
export function fileExtension(name: string): string | null {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return match?.[1] ? match[1].toLowerCase() : null;
}
