/**
 * Addresses escaped in Windows-1252 (`/buscar?q=educaci%F3n`), as older sites, forms and mail
 * clients still write Spanish letters. The archive reads only UTF-8 escapes (as URLs are written
 * since RFC 3986), and answered such a link with a 400 that said its «%» formed no character;
 * `npm start` now sends it to the same address in UTF-8 (`educaci%C3%B3n`).
 */
const WINDOWS_1252 = new TextDecoder('windows-1252');
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `url` with each run of escapes that is not UTF-8 read as Windows-1252 bytes and escaped again in
 * UTF-8; the escapes of ASCII bytes (`%2F`, `%26`) stay as they were. Null when nothing needs it,
 * when a «%» is no escape at all (`100%`), or when a run looks like UTF-8 cut short: no guess is
 * made about what those meant.
 */
export function utf8Escapes(url: string): string | null {
  if (/%(?![0-9A-Fa-f]{2})/.test(url)) return null;
  let changed = false;
  const fixed = url.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16));
    try {
      STRICT_UTF8.decode(bytes);
      return run;
    } catch {
      // UTF-8 cut short or damaged, not Spanish letters in Windows-1252: a lead byte followed by a
      // continuation byte («%E0%A4»), which Spanish letters never pair into, or a lead byte of the
      // Latin letters' UTF-8 (Â, Ã: «%C3» is an «ó» cut in half), never a Spanish letter itself.
      // Refused as it is.
      if (bytes.some((byte, at) => byte === 0xc2 || byte === 0xc3 || (byte >= 0xc4 && byte <= 0xf4 && (bytes[at + 1] ?? 0) >= 0x80 && bytes[at + 1]! <= 0xbf))) return run;
      changed = true;
      return run.replace(/%([89A-Fa-f][0-9A-Fa-f])/g, (_, hex: string) => encodeURIComponent(WINDOWS_1252.decode(Uint8Array.of(Number.parseInt(hex, 16)))));
    }
  });
  return changed ? fixed : null;
}
