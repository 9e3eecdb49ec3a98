import { describe, expect, it } from 'vitest';
import { SEARCH_TEXT_MAX } from '../../src/lib/domain/constants.ts';
import { boundedSearchText } from '../../src/lib/domain/search-text.ts';

describe('boundedSearchText', () => {
  it('keeps a text within the limit as typed, trimmed', () => {
    expect(boundedSearchText('  salud pública  ')).toBe('salud pública');
    const full = 'a'.repeat(SEARCH_TEXT_MAX);
    expect(boundedSearchText(full)).toBe(full);
  });

  it('cuts a longer text at a space, never inside a word', () => {
    // The limit falls inside the 34th «salud».
    expect(boundedSearchText('salud '.repeat(34))).toBe('salud '.repeat(33).trim());
    // The limit falls on a space: every word before it stays.
    const words = `${'x'.repeat(SEARCH_TEXT_MAX)} y`;
    expect(boundedSearchText(words)).toBe('x'.repeat(SEARCH_TEXT_MAX));
  });

  it('cuts a single word longer than the limit where the limit falls', () => {
    expect(boundedSearchText('q'.repeat(300))).toBe('q'.repeat(SEARCH_TEXT_MAX));
  });
});
