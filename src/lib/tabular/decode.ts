/**
 * Turning a public CSV's bytes into text, all at once or as they arrive. Real Dominican files come
 * as UTF-8 (with or without a BOM), Windows-1252, or the old DOS code page 850 (the Hacienda
 * minimum-wage file writes "AÑO" with byte 0xA5). Browsers' TextDecoder has no code page 850, so
 * its upper half is spelled out.
 *
 * The encoding is decided on the first `DETECTION_BYTES`: UTF-8 if they decode strictly (a
 * multi-byte character cut at the end of the prefix is fine), else the legacy code page whose
 * bytes spell more Spanish letters. A file that looked like UTF-8 but turns out not to be later
 * on is handled without going back: if everything before was ASCII (the same in every candidate)
 * the rest is read in the legacy code page, exactly as a whole-file decision would have; if real
 * UTF-8 characters came before, the file is UTF-8 with a damaged byte, shown as U+FFFD.
 */

// Code page 850, bytes 0x80 to 0xFF.
const CP850 =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00AD±‗¾¶§÷¸°¨·¹³²■\u00A0';
const CP850_UNITS = Uint16Array.from({ length: 256 }, (_, byte) => (byte < 0x80 ? byte : CP850.charCodeAt(byte - 0x80)));
const UTF16 = new TextDecoder('utf-16le');

function decodeCp850(bytes: Uint8Array): string {
  const units = new Uint16Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 1) units[i] = CP850_UNITS[bytes[i]!]!;
  return UTF16.decode(units);
}

/** Bytes that spell Spanish letters in each legacy code page: which one reads as Spanish wins. */
const SPANISH_IN_1252 = [0xe1, 0xe9, 0xed, 0xf3, 0xfa, 0xf1, 0xd1, 0xc1, 0xc9, 0xcd, 0xd3, 0xda, 0xfc, 0xbf, 0xa1];
const SPANISH_IN_850 = [0xa0, 0x82, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xb5, 0x90, 0xd6, 0xe0, 0xe9, 0x81, 0xa8, 0xad];
/** Per byte: +1 when it is a Spanish letter in Windows-1252, -1 when in code page 850 (both: 0). */
const LEANING = new Int8Array(256);
for (const byte of SPANISH_IN_1252) LEANING[byte]! += 1;
for (const byte of SPANISH_IN_850) LEANING[byte]! -= 1;

export type TextEncodingName = 'utf-8' | 'windows-1252' | 'cp850';

/** How much of a file the encoding is decided on: a header and a few hundred rows. */
export const DETECTION_BYTES = 64 * 1024;

function legacyEncoding(bytes: Uint8Array): 'windows-1252' | 'cp850' {
  let leaning = 0;
  for (let i = 0; i < bytes.length; i += 1) leaning += LEANING[bytes[i]!]!;
  return leaning < 0 ? 'cp850' : 'windows-1252';
}

/** The length of `bytes` without a UTF-8 sequence cut short at its end. */
export function completeUtf8Length(bytes: Uint8Array): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && (bytes[lead]! & 0xc0) === 0x80) lead -= 1;
  if (lead < 0) return bytes.length;
  const byte = bytes[lead]!;
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + needed > bytes.length ? lead : bytes.length;
}

const hasBom = (bytes: Uint8Array) => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/**
 * The encoding of a text whose first bytes are `prefix` (its first `DETECTION_BYTES`, or fewer
 * when `whole`, the file entire): UTF-8 if they decode strictly (a BOM says so at once; a character
 * cut at the end of a prefix is fine), else the legacy code page whose bytes spell more Spanish
 * letters. What `StreamDecoder` decides on, before it reads on.
 */
export function detectEncoding(prefix: Uint8Array, whole: boolean): TextEncodingName {
  if (hasBom(prefix)) return 'utf-8';
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(prefix.subarray(0, whole ? prefix.length : completeUtf8Length(prefix)));
    return 'utf-8';
  } catch {
    return legacyEncoding(prefix);
  }
}

/** Whether `bytes` hold anything beyond ASCII: plain ASCII reads the same in every candidate encoding. */
export const hasHighByte = (bytes: Uint8Array) => {
  for (let i = 0; i < bytes.length; i += 1) if (bytes[i]! >= 0x80) return true;
  return false;
};

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const all = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/**
 * Decodes a byte stream chunk by chunk: `push` each chunk and use the text it answers (empty
 * until the first `DETECTION_BYTES` are in), then `end`. `encoding` is known after the first text.
 */
export class StreamDecoder {
  encoding: TextEncodingName | null = null;
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** Strict UTF-8, one complete chunk at a time (so a failure loses nothing); null once lenient. */
  #strict: TextDecoder | null = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  #lenient: TextDecoder | null = null;
  #windows1252: TextDecoder | null = null;
  /** The start of a UTF-8 character cut by the end of the previous chunk. */
  #tail: Uint8Array = new Uint8Array(0);
  #asciiSoFar = true;

  push(bytes: Uint8Array): string {
    if (this.encoding) return this.#decode(bytes, false);
    this.#held.push(bytes);
    this.#heldBytes += bytes.length;
    return this.#heldBytes >= DETECTION_BYTES ? this.#decide(false) : '';
  }

  end(): string {
    return this.encoding ? this.#decode(new Uint8Array(0), true) : this.#decide(true);
  }

  #decide(last: boolean): string {
    let prefix = concat(this.#held, this.#heldBytes);
    this.#held = [];
    // A BOM says UTF-8; it is not text, and does not count as a sign of either encoding.
    if (hasBom(prefix)) prefix = prefix.subarray(3);
    this.encoding = detectEncoding(prefix, last);
    if (this.encoding !== 'utf-8') this.#strict = null;
    return this.#decode(prefix, last);
  }

  #decode(bytes: Uint8Array, last: boolean): string {
    if (this.encoding === 'cp850') return decodeCp850(bytes);
    if (this.encoding === 'windows-1252') return (this.#windows1252 ??= new TextDecoder('windows-1252')).decode(bytes);
    if (this.#lenient) return this.#lenient.decode(bytes, { stream: !last });
    let all = bytes;
    if (this.#tail.length) {
      all = new Uint8Array(this.#tail.length + bytes.length);
      all.set(this.#tail);
      all.set(bytes, this.#tail.length);
    }
    const complete = last ? all.length : completeUtf8Length(all);
    try {
      const text = this.#strict!.decode(all.subarray(0, complete));
      this.#tail = all.slice(complete);
      if (this.#asciiSoFar && hasHighByte(all.subarray(0, complete))) this.#asciiSoFar = false;
      return text;
    } catch {
      // Not UTF-8 after all: see the note at the top of this file.
      this.#strict = null;
      this.#tail = new Uint8Array(0);
      if (this.#asciiSoFar) {
        this.encoding = legacyEncoding(all);
      } else {
        this.#lenient = new TextDecoder('utf-8', { ignoreBOM: true });
      }
      return this.#decode(all, last);
    }
  }
}

/** The whole file at once, with the same decisions as the stream. */
export function decodeText(bytes: Uint8Array): { text: string; encoding: TextEncodingName } {
  const decoder = new StreamDecoder();
  const text = decoder.push(bytes) + decoder.end();
  return { text, encoding: decoder.encoding ?? 'utf-8' };
}
