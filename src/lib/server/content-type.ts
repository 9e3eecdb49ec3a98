/**
 * What the server makes of a file's content: the media type it is served with, and a name safe to
 * keep and to send. What the content is, from its first bytes, is `domain/content-kind.ts` (shared
 * with the upload wizard), re-exported here for the server's modules.
 */
import { stripControls } from '../domain/text.ts';
import { ASSET_TYPES, type AssetType } from '../domain/constants.ts';
import type { ContentKind } from '../domain/content-kind.ts';

// Detection itself is shared with the upload wizard, which asks it before the signature.
export { detectContent, documentFormat, hasPdfHeader, HEAD_BYTES, type ContentKind } from '../domain/content-kind.ts';

const MIME_TYPES: Record<ContentKind, string> = {
  pdf: ASSET_TYPES.pdf.mediaType,
  xlsx: ASSET_TYPES.xlsx.mediaType,
  xls: ASSET_TYPES.xls.mediaType,
  ods: ASSET_TYPES.ods.mediaType,
  zip: 'application/zip',
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  // Markup is served as a download, never as a page (see the gateway).
  markup: 'application/octet-stream',
  text: 'text/plain',
  executable: 'application/octet-stream',
  binary: 'application/octet-stream',
};

/** The media type a stored file is served with: text is only a CSV when it was declared one. */
export function mediaType(kind: ContentKind, format: AssetType): string {
  if (format === 'csv') return ASSET_TYPES.csv.mediaType;
  return MIME_TYPES[kind];
}

/** Proofs are screenshots: PNG, JPEG or WebP. */
export const PROOF_KINDS: ReadonlySet<ContentKind> = new Set(['png', 'jpeg', 'webp']);

/** A file name safe to keep and to put in a header: no folders, no control characters, short. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // Bidi overrides and invisible characters would let `Presupuesto\u202Efdp.exe` read as a PDF's name.
  const visible = stripControls(base.toWellFormed().normalize('NFC'), { singleLine: true }).replace(/[\u0000-\u001f\u007f]/g, '');
  const cleaned = Array.from(visible.replace(/^\.+/, '').trim()).slice(-200).join('');
  return cleaned || 'archivo';
}

/** The extension of a cleaned file name, lower-cased (letters and digits only), or null. */
export function fileExtension(name: string): string | null {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return match?.[1] ? match[1].toLowerCase() : null;
}

/**
 * The extensions a file served as each media type may keep in its download name, the usual one
 * first: the archive's formats' own (`ASSET_TYPES`), then the other types the gateway serves; a
 * media type not listed is served as `application/octet-stream` and named `.bin`.
 * Text is not given the extensions Windows runs (.bat, .cmd, .vbs, .js, .ps1).
 */
const DOWNLOAD_EXTENSIONS: Record<string, readonly string[]> = {
  ...Object.fromEntries(Object.values(ASSET_TYPES).flatMap(({ mediaType, extensions }) => (mediaType ? [[mediaType, extensions]] : []))),
  'text/plain': ['txt', 'csv', 'tsv', 'json', 'geojson', 'md'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'application/zip': ['zip'],
  'application/vnd.ipld.car': ['car'],
  'application/octet-stream': ['bin'],
};

/** Invisible characters that reorder or hide what a name shows (`x\u202Efdp.exe` reads `xexe.pdf`). */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * The name a file served as `mediaType` is downloaded under: `name` cleaned (no folders, control,
 * bidi or zero-width characters, no trailing dots or spaces, which Windows drops), ending with an
 * extension of the type it really is. A name whose extension the type does not allow keeps it
 * and gains the right one (`informe.exe` as a PDF is `informe.exe.pdf`), so that what opens the
 * file is chosen by what it is, never by a name an uploader or a link chose.
 */
export function downloadName(name: string, mediaType: string): string {
  const allowed = DOWNLOAD_EXTENSIONS[mediaType] ?? DOWNLOAD_EXTENSIONS['application/octet-stream']!;
  const cleaned = cleanFileName(name.replace(FORMAT_CHARACTERS, '')).replace(/[.\s]+$/u, '') || 'archivo';
  const extension = fileExtension(cleaned);
  return extension && allowed.includes(extension) ? cleaned : `${cleaned}.${allowed[0]}`;
}
