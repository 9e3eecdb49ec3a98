/**
 * Turning a public CSV's bytes into text. Real Dominican files come as UTF-8 (with or without a
 * BOM), Windows-1252, or the old DOS code page 850 (the Hacienda minimum-wage file writes "AÑO"
 * with byte 0xA5). Browsers' TextDecoder has no code page 850, so its upper half is spelled out.
 */

// Code page 850, bytes 0x80 to 0xFF.
const CP850 =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00AD±‗¾¶§÷¸°¨·¹³²■\u00A0';

function decodeCp850(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte < 0x80 ? String.fromCharCode(byte) : CP850[byte - 0x80];
  return text;
}

/** Bytes that spell Spanish letters in each legacy code page: which one reads as Spanish wins. */
const SPANISH_IN_1252 = new Set([0xe1, 0xe9, 0xed, 0xf3, 0xfa, 0xf1, 0xd1, 0xc1, 0xc9, 0xcd, 0xd3, 0xda, 0xfc, 0xbf, 0xa1]);
const SPANISH_IN_850 = new Set([0xa0, 0x82, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xb5, 0x90, 0xd6, 0xe0, 0xe9, 0x81, 0xa8, 0xad]);

export type TextEncodingName = 'utf-8' | 'windows-1252' | 'cp850';

export function decodeText(bytes: Uint8Array): { text: string; encoding: TextEncodingName } {
  try {
    // `fatal` makes any byte sequence that is not UTF-8 an error; the BOM is dropped by default.
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    let score1252 = 0;
    let score850 = 0;
    for (const byte of bytes) {
      if (byte < 0x80) continue;
      if (SPANISH_IN_1252.has(byte)) score1252 += 1;
      if (SPANISH_IN_850.has(byte)) score850 += 1;
    }
    if (score850 > score1252) return { text: decodeCp850(bytes), encoding: 'cp850' };
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}
