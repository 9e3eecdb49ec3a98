/**
 * Whether a file that starts like a PDF is built like one (issue #16, item 14). The header at
 * byte 0 (`domain/content-kind.ts`) is checked as the first bytes arrive; the rest needs the whole file:
 *
 * - the trailer: `startxref`, the offset of the last cross-reference section, and `%%EOF`, within
 *   the last kilobyte (where readers look for them, ISO 32000-1 §7.5.5);
 * - that offset pointing at a cross-reference section: a classic table (a line `xref`) or a
 *   cross-reference stream (an object `N G obj` whose dictionary has `/Type /XRef`, §7.5.8).
 *
 * A page of HTML or any other text with a `%PDF-` line on top fails this, so it is not served as
 * a PDF. Readers can repair a broken PDF, but the archive keeps documents people can open
 * anywhere, so a truncated or damaged one is refused as a PDF.
 *
 * Memory stays bounded: the last `TAIL_BYTES` of the file and the offsets of `xref` lines.
 */

import { PDF_TRAILER, PDF_TRAILER_BYTES } from '../../domain/pdf-shape.ts';

/** How much of the end of the file is kept: where cross-reference streams and most tables sit. */
const TAIL_BYTES = 256 * 1024;
/** Offsets of `xref` lines kept at most: one per incremental update, so a few in real files. */
const MAX_XREF_LINES = 10_000;
/** Bytes of line end or space a writer may have left between the offset and the section. */
const OFFSET_SLACK = 8;

const XREF = Buffer.from('xref');
const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
const isLineEnd = (byte: number | undefined) => byte === 0x0a || byte === 0x0d;

export class PdfStructure {
  #size = 0;
  #tail: Buffer[] = [];
  #tailSize = 0;
  /** The last bytes of the previous chunk, so that a keyword cut in two is still found. */
  #carry = Buffer.alloc(0);
  readonly #xrefLines: number[] = [];

  /** Takes the file's next bytes, in order. */
  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#findXrefLines(bytes);
    this.#size += bytes.byteLength;
    this.#tail.push(bytes);
    this.#tailSize += bytes.byteLength;
    while (this.#tail.length > 1 && this.#tailSize - this.#tail[0]!.byteLength >= TAIL_BYTES) {
      this.#tailSize -= this.#tail.shift()!.byteLength;
    }
  }

  /** Whether the bytes pushed, `head` being their start, end and cross-reference like a PDF. */
  isPdf(head: Uint8Array): boolean {
    const tail = Buffer.concat(this.#tail, this.#tailSize).subarray(-TAIL_BYTES);
    const tailStart = this.#size - tail.byteLength;
    const trailer = tail.subarray(-PDF_TRAILER_BYTES).toString('latin1');
    const match = PDF_TRAILER.exec(trailer);
    if (!match) return false;
    const offset = Number(match[1]);
    // Past the header, and before the `startxref` that points at it.
    if (offset < 8 || offset >= this.#size - trailer.length + match.index) return false;
    if (this.#xrefLines.some((line) => line >= offset && line - offset <= OFFSET_SLACK)) return true;
    const at = offset >= tailStart ? tail.subarray(offset - tailStart) : offset < head.byteLength ? Buffer.from(head).subarray(offset) : null;
    return at !== null && isXrefStream(at.subarray(0, 2048).toString('latin1'));
  }

  #findXrefLines(bytes: Buffer): void {
    const carried = this.#carry.byteLength;
    const window = carried > 0 ? Buffer.concat([this.#carry, bytes]) : bytes;
    const start = this.#size - carried;
    for (let at = window.indexOf(XREF); at !== -1; at = window.indexOf(XREF, at + 1)) {
      const after = at + XREF.byteLength;
      // Judged once, when the byte after the keyword arrives; a match whose next byte was in the
      // carry was judged with the previous chunk.
      if (after >= window.byteLength || after < carried) continue;
      const before = at === 0 ? (start === 0 ? 0x0a : undefined) : window[at - 1];
      if (isLineEnd(before) && isSpace(window[after]) && this.#xrefLines.length < MAX_XREF_LINES) this.#xrefLines.push(start + at);
    }
    this.#carry = Buffer.from(window.subarray(-(XREF.byteLength + 1)));
  }
}

/** `N G obj` and a dictionary naming itself a cross-reference stream, after optional white space. */
function isXrefStream(text: string): boolean {
  const header = /^\s*\d+\s+\d+\s+obj\b/.exec(text);
  if (!header) return false;
  const dictionary = text.slice(header[0].length).split('stream')[0] ?? '';
  return /\/Type\s*\/XRef\b/.test(dictionary);
}
