import { describe, expect, it } from 'vitest';
import { utf8Escapes } from '../../src/lib/server/http/legacy-escapes.ts';

describe('utf8Escapes', () => {
  it('writes Windows-1252 escapes as UTF-8, keeping every other escape and character as it was', () => {
    expect(utf8Escapes('/buscar?q=educaci%F3n')).toBe('/buscar?q=educaci%C3%B3n');
    expect(utf8Escapes('/buscar?q=A%D1O%202024&formato=csv')).toBe('/buscar?q=A%C3%91O%202024&formato=csv');
    // Windows-1252's own letters (€, “ ”), beyond Latin-1.
    expect(utf8Escapes('/buscar?q=%80%20%93hola%94')).toBe('/buscar?q=%E2%82%AC%20%E2%80%9Chola%E2%80%9D');
    expect(decodeURIComponent(utf8Escapes('/x?q=Ma%F1ana%2C%20s%ED')!)).toBe('/x?q=Mañana, sí');
    // A run that is UTF-8 stays as it is, beside one that is not.
    expect(utf8Escapes('/x?a=%C3%B3&b=%F3')).toBe('/x?a=%C3%B3&b=%C3%B3');
  });

  it('leaves UTF-8 addresses alone, and guesses nothing about a «%» that is no escape', () => {
    for (const url of ['/buscar?q=educaci%C3%B3n', '/buscar?q=salud', '/']) expect(utf8Escapes(url), url).toBeNull();
    for (const url of ['/buscar?q=100%', '/buscar?q=%F3%', '/buscar?q=%G1']) expect(utf8Escapes(url), url).toBeNull();
    // UTF-8 cut short is not read as Windows-1252: «%E0%A4» of a three-byte letter is no «à¤»,
    // an emoji cut short no «ðŸ˜», and «%C3», the first half of an «ó», no «Ã».
    for (const url of ['/buscar?q=%E0%A4', '/x?q=%F0%9F%98', '/buscar?q=educaci%C3', '/buscar?q=educaci%C3n', '/x?q=%C2']) expect(utf8Escapes(url), url).toBeNull();
  });
});
