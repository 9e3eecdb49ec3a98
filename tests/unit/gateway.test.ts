import { describe, expect, it } from 'vitest';
import { parseRange, sniffType } from '../../src/lib/server/gateway/index.ts';

describe('byte ranges', () => {
  it.each([
    [null, 100, null],
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=95-200', 100, { start: 95, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=10-5', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-1,5-6', 100, null],
    ['items=0-1', 100, null],
  ] as const)('%j of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('sniffing', () => {
  it('knows PDFs, images and zip containers, and nothing else', () => {
    expect(sniffType(new TextEncoder().encode('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffType(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d))).toBe('image/png');
    expect(sniffType(Uint8Array.of(0x50, 0x4b, 0x03, 0x04))).toBe('application/zip');
    expect(sniffType(new TextEncoder().encode('<html><script>alert(1)</script>'))).toBe('application/octet-stream');
  });
});
