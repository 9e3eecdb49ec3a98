import { describe, expect, it } from 'vitest';
import { firstCharacters, stripControls, visibleLength } from '../../src/lib/domain/text.ts';

describe('visible text (issue #16)', () => {
  it('counts zero-width, format, bidi and control characters as nothing', () => {
    expect(visibleLength('\u200B'.repeat(20))).toBe(0);
    expect(visibleLength('\u202E\u2066\u2069\uFEFF\u00AD\u0007\u3164')).toBe(0);
    expect(visibleLength(`abc${'\u200C\u200D\u2060'.repeat(50)}def`)).toBe(6);
  });

  it('counts what a reader sees: a letter with its accents once, a run of spaces once', () => {
    expect(visibleLength('Educación')).toBe(9);
    expect(visibleLength('e\u0301'.repeat(5))).toBe(5);
    expect(visibleLength(`a${'\u0301'.repeat(50)}`)).toBe(1);
    expect(visibleLength('uno    \n\t  dos')).toBe(7);
    expect(visibleLength('   ')).toBe(0);
  });

  it('strips bidi overrides and isolates, zero-width spaces and controls', () => {
    expect(stripControls('Informe \u202Efdp.exe\u202C final')).toBe('Informe fdp.exe final');
    expect(stripControls('\u2066Hoja\u2069 1\u200B\u0000\u001F\u007F\u0085')).toBe('Hoja 1');
    expect(stripControls('\uFEFFtítulo')).toBe('título');
  });

  it('keeps line breaks in long text, and folds them into one space in titles and names', () => {
    expect(stripControls('uno\r\ndos\n\ttres ')).toBe('uno\r\ndos\n\ttres');
    expect(stripControls('uno\r\ndos\n\ttres ', { singleLine: true })).toBe('uno dos tres');
  });

  it('keeps emoji sequences whole: joiners between pictographs, variation selectors, skin tones', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const coder = '\u{1F469}\u{1F3FD}\u200D\u{1F4BB}';
    const heart = '\u2764\uFE0F';
    expect(stripControls(`${family} ${coder} ${heart}`)).toBe(`${family} ${coder} ${heart}`);
    expect(visibleLength(`${family}${coder}${heart}`)).toBe(3);
    // A joiner between letters joins nothing: it goes.
    expect(stripControls('a\u200Db')).toBe('ab');
  });
});

describe('firstCharacters', () => {
  it('cuts at code points, never inside an emoji, and leaves a short text as it is', () => {
    expect(firstCharacters('📊📊📊', 2)).toBe('📊📊');
    expect(firstCharacters(`${'y'.repeat(99)}📊📊`, 100)).toBe(`${'y'.repeat(99)}📊`);
    // Four UTF-16 units, two characters: within a limit of 3.
    expect(firstCharacters('📊📊', 3)).toBe('📊📊');
    expect(firstCharacters('año', 10)).toBe('año');
  });
});
