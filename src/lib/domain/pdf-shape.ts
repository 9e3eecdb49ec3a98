/**
 * What a PDF looks like at its two ends (ISO 32000-1 §7.5.2 and §7.5.5): `%PDF-` and a version at
 * the very first byte, and a trailer, `startxref`, an offset and `%%EOF`, within its last kilobyte.
 * The server checks them on every uploaded PDF (`content-kind.ts`, `server/uploads/pdf-structure.ts`,
 * which also follows the offset to the cross-reference section); the upload wizard checks them on
 * the file picked, before the contributor is asked to sign for a document the server would refuse.
 * Shared so that both say the same about the same bytes.
 */

/** How much of a file's end the trailer must be within. */
export const PDF_TRAILER_BYTES = 1024;

/** The last `startxref`, its offset, and `%%EOF`, in a file's last `PDF_TRAILER_BYTES` read as latin1. */
export const PDF_TRAILER = /startxref\s+(\d{1,15})\s+%%EOF(?![\s\S]*startxref)/;

/** The header, in a file's first 8 bytes read as ASCII. */
export const PDF_HEADER = /^%PDF-\d\.\d/;

/** What the upload answers for a file that starts like a PDF and is not built like one. */
export const BROKEN_PDF_MESSAGE =
  'El archivo empieza como un PDF pero no está construido como uno (le falta el final con startxref y %%EOF, o su tabla de referencias): puede estar incompleto o dañado. Guárdelo de nuevo como PDF y vuelva a subirlo.';

/**
 * Bytes as one character each (latin1), for the patterns above and the content checks: spread
 * 8 KB at a time, as engines cap a call's arguments (Safari at 65,536, a whole 64 KB head).
 */
export function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 8192) text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  return text;
}
