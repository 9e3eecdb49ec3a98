import { describe, expect, it } from 'vitest';
import {
  countBadge,
  formatBytes,
  formatDate,
  formatPercent,
  readableUrl,
  shortenWallet,
  truncate,
  truncateUrl,
  TRUNCATE,
} from '../../src/lib/format.ts';

describe('dates', () => {
  it('are DD/MM/YYYY', () => {
    expect(formatDate(new Date('2026-09-24T15:30:00Z'))).toBe('24/09/2026');
    expect(formatDate('2003-06-01T12:00:00Z')).toBe('01/06/2003');
  });

  it('fall on the Dominican calendar day (UTC-4), whatever the server zone', () => {
    // 02:00 UTC on 1 March is still 28 February in Santo Domingo.
    expect(formatDate(new Date('2026-03-01T02:00:00Z'))).toBe('28/02/2026');
  });
});

describe('percentages', () => {
  it('have two decimals', () => {
    expect(formatPercent(2, 3)).toBe('66.67%');
    expect(formatPercent(5, 5)).toBe('100.00%');
    expect(formatPercent(1, 1068)).toBe('0.09%');
  });
  it('of nothing are zero, not NaN', () => {
    expect(formatPercent(0, 0)).toBe('0.00%');
  });
});

describe('count badges', () => {
  it.each([
    [0, '0', 'red'],
    [1, '1', 'red'],
    [4, '4', 'red'],
    [5, '5', 'yellow'],
    [10, '10', 'yellow'],
    [11, '11', 'blue'],
    [99, '99', 'blue'],
    [100, '+100', 'blue'],
    [1065, '+100', 'blue'],
  ] as const)('%i shows %s in %s', (count, text, colour) => {
    expect(countBadge(count)).toEqual({ text, colour });
  });
});

describe('truncation', () => {
  it('cuts names at 50 and descriptions at 120, with an ellipsis', () => {
    const name = 'Dirección General de Información y Defensa de los Afiliados a la Seguridad Social';
    expect(truncate(name, TRUNCATE.name)).toHaveLength(50);
    expect(truncate(name, TRUNCATE.name).endsWith('…')).toBe(true);
    expect(truncate('Salud', TRUNCATE.name)).toBe('Salud');
    expect(truncate('x'.repeat(200), TRUNCATE.description)).toHaveLength(120);
  });

  it('cuts URLs to 20 characters without the scheme', () => {
    expect(truncateUrl('https://datos.gob.do/dataset/edesur-abastecimiento-de-la-demanda')).toBe('datos.gob.do/datase…');
    expect(truncateUrl('https://one.gob.do/')).toBe('one.gob.do');
  });

  it('shortens a wallet address to 15 characters, keeping both ends', () => {
    const short = shortenWallet('0x71C7656EC7ab88b098defB751B7401B5f6d8976F');
    expect(short).toHaveLength(15);
    expect(short).toBe('0x71C765…d8976F');
    expect(shortenWallet('0xabc')).toBe('0xabc');
  });
});

describe('sizes', () => {
  it('use Spanish-readable units', () => {
    expect(formatBytes(708)).toBe('708 B');
    expect(formatBytes(509_003)).toMatch(/^509 KB$/);
    expect(formatBytes(5 * 1024 * 1024)).toMatch(/^5[.,]2 MB$/);
  });
});

describe('readableUrl', () => {
  it('shows escaped letters as letters, as an address bar does', () => {
    expect(readableUrl('http://127.0.0.1:8080/files/r1/N%C3%B3mina-2018-csv.csv')).toBe('http://127.0.0.1:8080/files/r1/Nómina-2018-csv.csv');
  });

  it('keeps the escapes of reserved characters, spaces and invisible or direction-changing characters', () => {
    expect(readableUrl('https://datos.example.org/a%2Fb?x=1%26y%3D2')).toBe('https://datos.example.org/a%2Fb?x=1%26y%3D2');
    expect(readableUrl('https://datos.example.org/informe%20final.pdf')).toBe('https://datos.example.org/informe%20final.pdf');
    // U+202E would show «fdp.exe» as «exe.pdf»; U+200B is invisible.
    expect(readableUrl('https://datos.example.org/%E2%80%AEfdp.exe')).toBe('https://datos.example.org/%E2%80%AEfdp.exe');
    expect(readableUrl('https://datos.example.org/a%E2%80%8Bb')).toBe('https://datos.example.org/a%E2%80%8Bb');
  });

  it('decodes only what follows the host: a name and password stay escaped, and cannot pose as another site', () => {
    // U+2215 looks like a slash: decoded, this would read as an address at datos.gob.do.
    expect(readableUrl('https://datos.gob.do%E2%88%95x@otro.example/f%C3%B3.csv')).toBe('https://datos.gob.do%E2%88%95x@otro.example/fó.csv');
    expect(readableUrl('https://datos.gob.do∕x@otro.example/f.csv')).toBe('https://datos.gob.do%E2%88%95x@otro.example/f.csv');
    // A host in another script is shown as the parser writes it.
    expect(readableUrl('https://dátos.example/a')).toBe('https://xn--dtos-5na.example/a');
  });

  it('keeps the escapes of characters that show nothing (Hangul filler, grapheme joiner, variation selector)', () => {
    for (const escaped of ['%E3%85%A4', '%CD%8F', '%EF%B8%8F']) expect(readableUrl(`https://datos.example.org/a${escaped}b`)).toBe(`https://datos.example.org/a${escaped}b`);
  });

  it('leaves an escape that is not UTF-8 as it came', () => {
    expect(readableUrl('https://datos.example.org/a%E9.csv')).toBe('https://datos.example.org/a%E9.csv');
  });
});
