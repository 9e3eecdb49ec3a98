/**
 * The streaming pieces of the CSV mini-search: a file read in chunks decodes and parses exactly as
 * the whole file does, wherever the chunks are cut (inside a multi-byte UTF-8 character, a BOM, a
 * quoted field, an escaped quote, a CRLF).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CsvParser, isBlankRow, sniffDialect, type Dialect } from '../../src/lib/tabular/csv.ts';
import { DETECTION_BYTES, StreamDecoder, completeUtf8Length, decodeText } from '../../src/lib/tabular/decode.ts';
import { TableBuilder, parseTable } from '../../src/lib/tabular/table.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const CSV = fixturePath('files/csv');
const FIXTURES = [
  'salario-minimo-hacienda-2000-2025.csv',
  'licencias-construccion-mivhed-2022-2025.csv',
  'empresas-servicios-turisticos-mitur-2018-2025.csv',
  'empleos-cotizantes-tss-2003-2026.csv',
  'zonas-francas-textil-2003-2023.csv',
];

/** `bytes` cut into chunks of the given sizes, cycling through them. */
function chunks(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i += 1) {
    const size = sizes[i % sizes.length]!;
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

function decodeInChunks(bytes: Uint8Array, sizes: number[]) {
  const decoder = new StreamDecoder();
  let text = '';
  for (const chunk of chunks(bytes, sizes)) text += decoder.push(chunk);
  text += decoder.end();
  return { text, encoding: decoder.encoding };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
/** Windows-1252 bytes for text whose characters are all Latin-1 letters. */
const latin1 = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

/** A CSV longer than the detection prefix, full of Spanish letters (2-byte in UTF-8) and a 4-byte one. */
const spanish = Array.from({ length: 2500 }, (_, row) => `${row};AÑO ${2000 + (row % 25)};TAMAÑO «grande»;Región Norte €;𝄞\n`).join('');

describe('StreamDecoder', () => {
  it('finds a UTF-8 character cut at the end of a chunk', () => {
    expect(completeUtf8Length(utf8('abÑ').subarray(0, 3))).toBe(2);
    expect(completeUtf8Length(utf8('ab€').subarray(0, 4))).toBe(2);
    expect(completeUtf8Length(utf8('ab𝄞').subarray(0, 5))).toBe(2);
    expect(completeUtf8Length(utf8('ab𝄞'))).toBe(6);
    expect(completeUtf8Length(utf8('abc'))).toBe(3);
  });

  it('decodes UTF-8 cut inside multi-byte characters, at any chunk size', () => {
    const bytes = utf8(spanish);
    expect(bytes.length).toBeGreaterThan(DETECTION_BYTES);
    for (const sizes of [[1], [2], [3], [7], [4093, 5], [65_535, 1, 2, 3], [100_000]]) {
      expect(decodeInChunks(bytes, sizes)).toEqual({ text: spanish, encoding: 'utf-8' });
    }
  });

  it('drops a BOM, even one arriving a byte at a time', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('AÑO;MES\n2024;Enero\n')]);
    expect(decodeInChunks(bytes, [1])).toEqual({ text: 'AÑO;MES\n2024;Enero\n', encoding: 'utf-8' });
    expect(decodeInChunks(bytes, [2, 1000])).toEqual({ text: 'AÑO;MES\n2024;Enero\n', encoding: 'utf-8' });
  });

  it('reads Windows-1252 in chunks', () => {
    const text = spanish.replaceAll('€', 'E').replaceAll('𝄞', 'G').replaceAll('«', '"').replaceAll('»', '"');
    expect(decodeInChunks(latin1(text), [3, 1000, 17])).toEqual({ text, encoding: 'windows-1252' });
  });

  it('switches to Windows-1252 when the first non-ASCII byte comes after the detection prefix', () => {
    const text = `${'MES;ANO;VALOR\n'.repeat(6000)}Diciembre;AÑO;Región\n`;
    expect(text.indexOf('Ñ')).toBeGreaterThan(DETECTION_BYTES);
    expect(decodeInChunks(latin1(text), [4096])).toEqual({ text, encoding: 'windows-1252' });
    // As the whole-file decision does.
    expect(decodeText(latin1(text))).toEqual({ text, encoding: 'windows-1252' });
  });

  it('keeps a UTF-8 file UTF-8 when a stray byte comes late, showing it as U+FFFD', () => {
    const head = utf8(spanish);
    const bytes = new Uint8Array([...head, 0x41, 0xff, 0x42]);
    const { text, encoding } = decodeInChunks(bytes, [8192]);
    expect(encoding).toBe('utf-8');
    expect(text).toBe(`${spanish}A\uFFFDB`);
  });

  it('reads every real fixture the same in chunks as whole', async () => {
    for (const name of FIXTURES) {
      const bytes = new Uint8Array(await fs.readFile(path.join(CSV, name)));
      const whole = decodeText(bytes);
      for (const sizes of [[1], [1000, 3], [65_536]]) expect(decodeInChunks(bytes, sizes), name).toEqual(whole);
    }
  });

  it('reads the accents of the code page 850 file', async () => {
    const bytes = new Uint8Array(await fs.readFile(path.join(CSV, 'salario-minimo-hacienda-2000-2025.csv')));
    const { text, encoding } = decodeInChunks(bytes, [999]);
    expect(encoding).toBe('cp850');
    expect(text.split('\n')[0]).toContain('TAMAÑO EMPRESA;AREAS;MES;AÑO');
  });
});

/** papaparse's rows for the whole text, blank ones dropped. */
const papaRows = (text: string, dialect: Dialect) =>
  Papa.parse<string[]>(text, { delimiter: dialect.delimiter, newline: dialect.newline, skipEmptyLines: 'greedy' }).data;

function parseInPieces(text: string, dialect: Dialect, cuts: number[]): string[][] {
  const parser = new CsvParser(dialect);
  const rows: string[][] = [];
  const keep = (fields: string[]) => {
    if (!isBlankRow(fields)) rows.push(fields);
  };
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    parser.push(text.slice(at, cut), keep);
    at = cut;
  }
  parser.end(keep);
  return rows;
}

const TRICKY = [
  'nombre,descripción,monto\r\n',
  '"Pérez, Juan","dice ""hola""\r\ny se va",100\r\n',
  'simple,sin comillas,200\r\n',
  '"comillas" ,"con espacio después"  ,300\r\n',
  'una "comilla" dentro,x,400\r\n',
  '"",vacío,\r\n',
  '\r\n',
  'última,"sin salto, al final",500',
].join('');

describe('CsvParser', () => {
  it('guesses the delimiter and line ending as papaparse does', () => {
    expect(sniffDialect('a;b;c\r\n1;2;3\r\n')).toEqual({ delimiter: ';', newline: '\r\n' });
    expect(sniffDialect('a\tb\n1\t2\n')).toEqual({ delimiter: '\t', newline: '\n' });
    expect(sniffDialect(',,,\nTitulo,,,\na,b,c,d\n1,2,3,4\n')).toEqual({ delimiter: ',', newline: '\n' });
  });

  it('cuts rows as papaparse does, wherever the text is split', () => {
    const dialect = sniffDialect(TRICKY);
    expect(dialect).toEqual({ delimiter: ',', newline: '\r\n' });
    const expected = papaRows(TRICKY, dialect);
    expect(expected[1]).toEqual(['Pérez, Juan', 'dice "hola"\r\ny se va', '100']);
    expect(parseInPieces(TRICKY, dialect, [])).toEqual(expected);
    // Every single cut: inside quotes, between the two quotes of `""`, between CR and LF.
    for (let cut = 1; cut < TRICKY.length; cut += 1) expect(parseInPieces(TRICKY, dialect, [cut]), `cut at ${cut}`).toEqual(expected);
    // One character at a time.
    expect(parseInPieces(TRICKY, dialect, Array.from({ length: TRICKY.length - 1 }, (_, i) => i + 1))).toEqual(expected);
  });

  it('treats a line break that is not the file’s own as text, as papaparse does', () => {
    const text = 'a;b\nc;d\re;f\n';
    const dialect: Dialect = { delimiter: ';', newline: '\n' };
    expect(parseInPieces(text, dialect, [6])).toEqual(papaRows(text, dialect));
    const crlf = 'a;b\r\nc\n;d\re\r\n';
    const crlfDialect: Dialect = { delimiter: ';', newline: '\r\n' };
    for (let cut = 1; cut < crlf.length; cut += 1) expect(parseInPieces(crlf, crlfDialect, [cut])).toEqual(papaRows(crlf, crlfDialect));
  });

  it('ends a row at CRLF in a LF file, quoted or not, wherever the text is split (rows appended by another tool)', () => {
    const text = 'a;b;c\n1;2;3\r\n"x";"y";"z"\r\n4;5;6\nlibre\rcomo texto;7;8\n';
    const dialect = sniffDialect(text);
    expect(dialect).toEqual({ delimiter: ';', newline: '\n' });
    const expected = [['a', 'b', 'c'], ['1', '2', '3'], ['x', 'y', 'z'], ['4', '5', '6'], ['libre\rcomo texto', '7', '8']];
    expect(parseInPieces(text, dialect, [])).toEqual(expected);
    for (let cut = 1; cut < text.length; cut += 1) expect(parseInPieces(text, dialect, [cut]), `cut at ${cut}`).toEqual(expected);
  });

  it('reads every real fixture in chunks as the whole-file table', async () => {
    for (const name of FIXTURES) {
      const bytes = new Uint8Array(await fs.readFile(path.join(CSV, name)));
      const whole = parseTable(decodeText(bytes).text);
      const decoder = new StreamDecoder();
      const rows: string[][] = [];
      const builder = new TableBuilder((cells) => rows.push(cells));
      let parser: CsvParser | null = null;
      const add = (fields: string[]) => builder.add(fields);
      const feed = (text: string) => {
        if (!text) return;
        parser ??= new CsvParser(sniffDialect(text));
        parser.push(text, add);
      };
      for (const chunk of chunks(bytes, [4099, 1, 65_536])) feed(decoder.push(chunk));
      feed(decoder.end());
      parser!.end(add);
      expect(builder.finish(), name).toBe(true);
      const shown = builder.visible();
      expect(shown.map((index) => builder.columns![index]), name).toEqual(whole?.columns);
      expect(rows.map((row) => shown.map((index) => row[index])), name).toEqual(whole?.rows);
    }
  });
});
