/**
 * What a file really is, from its first bytes (its "magic"), never from the name or the type the
 * browser claimed, and whether that is what its uploader declared. The server decides with it
 * (`server/content-type.ts`: a contradicted doc type is a 415), and the upload wizard asks the same
 * of the file picked, before the contributor is asked to sign for a document that would be refused.
 */
import { latin1, PDF_HEADER } from './pdf-shape.ts';
import { ASSET_TYPES, type AssetType } from './constants.ts';
import type { DocType } from './upload.ts';

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
  | 'executable'
  | 'binary';

const ascii = (bytes: Uint8Array, from: number, to: number) => latin1(bytes.subarray(from, to));
const startsWithAt = (head: Uint8Array, at: number, ...bytes: number[]) => bytes.every((byte, i) => head[at + i] === byte);
const startsWith = (head: Uint8Array, ...bytes: number[]) => startsWithAt(head, 0, ...bytes);

/**
 * A PDF header: `%PDF-` and a version, at the very first byte. Readers tolerate up to a kilobyte
 * of junk before it, but the archive does not: that tolerance is what let an HTML page holding
 * `<!-- %PDF-1.4 -->` pass for a PDF, and a real PDF starts at its header. The rest of the
 * structure (its trailer) is checked once the whole file has arrived (`uploads/pdf-structure.ts`).
 */
export function hasPdfHeader(head: Uint8Array): boolean {
  return PDF_HEADER.test(ascii(head, 0, 8));
}

const readU16 = (head: Uint8Array, at: number) => (head[at] ?? 0) | ((head[at + 1] ?? 0) << 8);
const readU32 = (head: Uint8Array, at: number) => (readU16(head, at) | (readU16(head, at + 2) << 16)) >>> 0;

/**
 * Windows Installer files (.msi, .msp, .mst) are OLE compound files like an .xls: told apart by
 * the class id of the root directory entry (`000C1084`/`6`/`2-0000-0000-C000-000000000046`), when
 * the first directory sector lies within the head, as it does in the files Windows writes.
 */
function isInstaller(head: Uint8Array): boolean {
  const sectorShift = readU16(head, 0x1e);
  if (sectorShift !== 9 && sectorShift !== 12) return false;
  const rootEntry = (readU32(head, 0x30) + 1) * 2 ** sectorShift;
  const classId = rootEntry + 0x50;
  if (classId + 16 > head.length) return false;
  return (
    [0x82, 0x84, 0x86].includes(head[classId]!) &&
    startsWithAt(head, classId + 1, 0x10, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46)
  );
}

/**
 * Programs, by their content whatever their name: Windows executables (MZ, so .exe, .dll, .scr,
 * .com with a header), Windows installers, shortcuts (.lnk), ELF (Linux), Mach-O and universal
 * binaries (macOS, whose magic Java class files share), Android dex, and scripts that name their
 * interpreter (`#!`). A text file starting with `MZ` has no NUL bytes, and stays text.
 */
function isExecutable(head: Uint8Array): boolean {
  if (ascii(head, 0, 2) === 'MZ' && head.includes(0)) return true;
  if (startsWith(head, 0x7f, 0x45, 0x4c, 0x46)) return true;
  const magic = readU32(head, 0);
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xbebafeca].includes(magic)) return true;
  if (ascii(head, 0, 4) === 'dex\n') return true;
  if (startsWith(head, 0x4c, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00)) return true;
  if (ascii(head, 0, 2) === '#!') return true;
  return startsWith(head, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1) && isInstaller(head);
}

/** The kind of content that starts with `head` (up to `HEAD_BYTES` of it). */
export function detectContent(head: Uint8Array): ContentKind {
  if (hasPdfHeader(head)) return 'pdf';
  if (isExecutable(head)) return 'executable';
  if (startsWith(head, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (startsWith(head, 0xff, 0xd8, 0xff)) return 'jpeg';
  if (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'webp';
  if (startsWith(head, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) return 'xls';
  if (startsWith(head, 0x50, 0x4b, 0x03, 0x04)) {
    // ODF puts an uncompressed `mimetype` entry first (ODF 1.2 §3.3); OOXML workbooks keep their
    // parts under `xl/`, whose names appear in the local headers near the start.
    if (ascii(head, 30, 38) === 'mimetype' && ascii(head, 38, 84).startsWith(ASSET_TYPES.ods.mediaType)) {
      return 'ods';
    }
    // Java archives and Android packages are zips too: a manifest of their own gives them away.
    if (holdsAscii(head, 'META-INF/MANIFEST.MF') || holdsAscii(head, 'AndroidManifest.xml') || holdsAscii(head, 'classes.dex')) return 'executable';
    return holdsAscii(head, 'xl/') ? 'xlsx' : 'zip';
  }
  if (head.includes(0)) return 'binary';
  // HTML, SVG and XML are text too, but a browser may run them: never a "CSV".
  return startsWithMarkup(head) ? 'markup' : 'text';
}

/**
 * Whether `bytes` hold the ASCII `text` anywhere: a zip's entry names, looked for in the bytes. A
 * string of the whole head (64 KB, built 8 KB at a time) cost over a millisecond per workbook, more
 * than the rest of its capture.
 */
function holdsAscii(bytes: Uint8Array, text: string): boolean {
  const first = text.charCodeAt(0);
  for (let at = bytes.indexOf(first); at >= 0 && at + text.length <= bytes.length; at = bytes.indexOf(first, at + 1)) {
    let matched = 1;
    while (matched < text.length && bytes[at + matched] === text.charCodeAt(matched)) matched += 1;
    if (matched === text.length) return true;
  }
  return false;
}

/** Bytes that `trimStart` removes from a windows-1252 reading: tab, line breaks, vertical tab, form feed, space, no-break space. */
const LEADING_SPACE: ReadonlySet<number> = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]);

/** Whether the first kilobyte, past a UTF-8 byte order mark and blank space, opens a tag (`<`). */
function startsWithMarkup(head: Uint8Array): boolean {
  const end = Math.min(head.length, 1024);
  let at = startsWith(head, 0xef, 0xbb, 0xbf) ? 3 : 0;
  while (at < end && LEADING_SPACE.has(head[at]!)) at += 1;
  return at < end && head[at] === 0x3c;
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

/**
 * The record format of a document declared as `docType`, or null when the content contradicts it.
 * A program is never a document, not even as 'other': the archive would hand it out under the
 * name its uploader chose (`Presupuesto General 2026.pdf.exe`).
 */
export function documentFormat(docType: DocType, kind: ContentKind): AssetType | null {
  if (kind === 'executable') return null;
  if (docType === 'other') return OTHER_FORMATS[kind] ?? 'other';
  return ACCEPTED[docType][kind] ?? null;
}

/** What the upload answers for a program, whatever type it was declared as (item 13 of issue #16). */
export const EXECUTABLE_REFUSED_MESSAGE =
  'El archivo es un programa (ejecutable, instalador o script), y el archivo solo guarda documentos y datos: súbalo en un formato de documento o de datos.';
