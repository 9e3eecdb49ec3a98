/**
 * What a file really is (issue #16, items 13 and 14): programs are never documents, not even as
 * 'other'; a PDF starts with its header and ends with a trailer that points at a cross-reference
 * section; a download is named with the extension of what it is.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectContent, documentFormat, downloadName } from '../../src/lib/server/content-type.ts';
import { PdfStructure } from '../../src/lib/server/uploads/pdf-structure.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => new TextEncoder().encode(value);

/** A Windows program's first bytes: `MZ`, a DOS stub and the PE header it points at. */
function windowsProgram(): Uint8Array {
  const head = new Uint8Array(512);
  head.set(text('MZ'));
  head[0x3c] = 0x80;
  head.set(text('PE\0\0'), 0x80);
  return head;
}

/** An OLE compound file whose root entry carries `classId`, as Windows Installer writes them. */
function compoundFile(classId: number[]): Uint8Array {
  const file = new Uint8Array(2048);
  file.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  file[0x1e] = 9; // 512-byte sectors
  file[0x30] = 0; // the directory starts at sector 0, just after the header
  file.set(classId, 512 + 0x50);
  return file;
}

/** A zip whose first entry is named `name`. */
function zipWith(name: string): Uint8Array {
  const file = new Uint8Array(30 + name.length + 4);
  file.set([0x50, 0x4b, 0x03, 0x04]);
  file[26] = name.length;
  file.set(text(name), 30);
  return file;
}

describe('programs', () => {
  it.each([
    ['a Windows program (MZ/PE)', windowsProgram()],
    ['an ELF program', bytes(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0)],
    ['a 64-bit Mach-O program', bytes(0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1)],
    ['a universal Mach-O program', bytes(0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2)],
    ['a shell script', text('#!/bin/sh\ncurl https://example.org/x | sh\n')],
    ['a Windows shortcut', bytes(0x4c, 0, 0, 0, 0x01, 0x14, 0x02, 0x00, 0, 0)],
    ['a Windows installer', compoundFile([0x84, 0x10, 0x0c, 0x00, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46])],
    ['a Java archive', zipWith('META-INF/MANIFEST.MF')],
    ['an Android package', zipWith('AndroidManifest.xml')],
  ])('refuses %s, even declared as "other"', (_, head) => {
    expect(detectContent(head)).toBe('executable');
    expect(documentFormat('other', 'executable')).toBeNull();
    expect(documentFormat('pdf', 'executable')).toBeNull();
  });

  it('leaves spreadsheets, archives and text that merely start like one alone', () => {
    expect(detectContent(compoundFile([0x20, 0x08, 0x02, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46]))).toBe('xls');
    expect(detectContent(zipWith('datos/enero.csv'))).toBe('zip');
    expect(detectContent(text('MZ;Monto\n1;2\n'))).toBe('text');
  });

  it('finds an entry name anywhere in the head, whole, and never a name the head cuts off', () => {
    // A workbook whose `xl/` parts come after other entries, and a program's dex deep in its zip.
    const later = (name: string, at: number) => {
      const file = zipWith('[Content_Types].xml');
      const head = new Uint8Array(at + name.length);
      head.set(file);
      head.fill(0x4d, file.length, at); // «M» and «x» again and again: first bytes that lead nowhere
      head.fill(0x78, file.length, file.length + 100);
      head.set(text(name), at);
      return head;
    };
    expect(detectContent(later('xl/workbook.xml', 60_000))).toBe('xlsx');
    expect(detectContent(later('classes.dex', 65_000))).toBe('executable');
    expect(detectContent(later('META-INF/MANIFEST.MF', 40_000))).toBe('executable');
    expect(detectContent(later('META-INF/MANIFEST.M', 40_000))).toBe('zip');
    expect(detectContent(later('x', 500))).toBe('zip');
  });
});

describe('markup', () => {
  const latin1 = (...parts: Array<string | number[]>) => Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...part].map((c) => c.charCodeAt(0)) : part)));

  it('is a tag at the start, past a byte order mark and blank space (tabs, line breaks, no-break spaces)', () => {
    expect(detectContent(latin1([0xef, 0xbb, 0xbf], ' \t\r\n', [0x0b, 0x0c, 0xa0], '<html>'))).toBe('markup');
    expect(detectContent(latin1('\n\n<?xml version="1.0"?><svg/>'))).toBe('markup');
    expect(detectContent(latin1('<'))).toBe('markup');
  });

  it('is not text that has a tag later, a mark other than the byte order one, or a tag past the first kilobyte', () => {
    expect(detectContent(latin1('fecha;monto\n<b>1</b>;2\n'))).toBe('text');
    expect(detectContent(latin1([0x85], '<html>'))).toBe('text');
    expect(detectContent(latin1([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '<html>'))).toBe('text');
    expect(detectContent(latin1(' '.repeat(1023), '<html>'))).toBe('markup');
    expect(detectContent(latin1(' '.repeat(1024), '<html>'))).toBe('text');
    expect(detectContent(latin1(''))).toBe('text');
  });
});

describe('a PDF', () => {
  const structure = (file: Uint8Array, chunkSize = 65_536) => {
    const check = new PdfStructure();
    for (let at = 0; at < file.length; at += chunkSize) check.push(file.subarray(at, at + chunkSize));
    return check.isPdf(file.subarray(0, 65_536));
  };

  /** A minimal PDF with a classic cross-reference table, offsets computed. */
  function classicPdf(): Uint8Array {
    const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>'];
    let body = '%PDF-1.4\n';
    const offsets: number[] = [];
    objects.forEach((object, i) => {
      offsets.push(body.length);
      body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    });
    const xref = body.length;
    body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
    for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
    body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    return text(body);
  }

  /** A PDF 1.5 whose last section is a cross-reference stream, not a table. */
  function streamPdf(): Uint8Array {
    let body = '%PDF-1.5\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n';
    const xref = body.length;
    body += '2 0 obj\n<< /DecodeParms << /Columns 4 >> /Type /XRef /Size 3 /W [1 2 1] /Length 0 >>\nstream\n\nendstream\nendobj\n';
    body += `startxref\n${xref}\n%%EOF`;
    return text(body);
  }

  it('starts with its header at byte 0: an HTML page that mentions %PDF- is markup', () => {
    const html = text('<!doctype html><html><!-- %PDF-1.4 --><body><script>alert(document.domain)</script></body></html>');
    expect(detectContent(html)).toBe('markup');
    expect(documentFormat('pdf', detectContent(html))).toBeNull();
    expect(detectContent(text('  %PDF-1.4\n'))).toBe('text');
    expect(detectContent(text('%PDF-1.7\n'))).toBe('pdf');
  });

  it('ends with a trailer that points at its cross-reference table or stream', () => {
    expect(structure(classicPdf())).toBe(true);
    expect(structure(classicPdf(), 7)).toBe(true); // the keyword cut across chunks
    expect(structure(streamPdf())).toBe(true);
  });

  it('accepts the real PDFs of the fixtures', async () => {
    for (const name of await fs.readdir(path.join(FIXTURES_DIR, 'files/pdf'))) {
      const file = await fs.readFile(path.join(FIXTURES_DIR, 'files/pdf', name));
      expect(structure(file), name).toBe(true);
    }
  });

  it('refuses a header with no PDF behind it, a truncated PDF, and a trailer that points nowhere', () => {
    expect(structure(text('%PDF-1.4\n<html><script>alert(1)</script></html>\n'))).toBe(false);
    const whole = classicPdf();
    expect(structure(whole.subarray(0, whole.length - 20))).toBe(false);
    const lying = new TextDecoder().decode(whole).replace(/startxref\n\d+/, 'startxref\n12');
    expect(structure(text(lying))).toBe(false);
  });
});

describe('download names', () => {
  it.each([
    ['evil.exe', 'text/csv', 'evil.exe.csv'],
    ['informe.csv', 'text/csv', 'informe.csv'],
    ['Presupuesto General 2026.pdf.exe', 'application/pdf', 'Presupuesto General 2026.pdf.exe.pdf'],
    ['ley.PDF', 'application/pdf', 'ley.PDF'],
    ['datos.json', 'text/plain', 'datos.json'],
    ['script.bat', 'text/plain', 'script.bat.txt'],
    ['pagina.html', 'application/octet-stream', 'pagina.html.bin'],
    ['raro', 'application/x-desconocido', 'raro.bin'],
    ['../../etc/passwd', 'text/plain', 'passwd.txt'],
    ['factura\u202Efdp.exe', 'application/pdf', 'facturafdp.exe.pdf'],
    ['programa.exe. . ', 'application/pdf', 'programa.exe.pdf'],
    ['...', 'text/csv', 'archivo.csv'],
  ])('%j served as %s downloads as %j', (name, type, expected) => {
    expect(downloadName(name, type)).toBe(expected);
  });
});
