/** The real type of a file from its first bytes, on the real fixtures, and what each doc type accepts. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanFileName, detectContent, documentFormat, fileExtension, HEAD_BYTES } from '../../src/lib/server/content-type.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { pngImage } from '../helpers/upload.ts';

async function head(file: string): Promise<Uint8Array> {
  const bytes = await fs.readFile(path.join(FIXTURES_DIR, 'files', file));
  return bytes.subarray(0, HEAD_BYTES);
}

describe('detectContent', () => {
  it.each([
    ['pdf/sisalril-pespj-d1.pdf', 'pdf'],
    ['spreadsheets/cnss-recaudos-sfs-2003-2023.xlsx', 'xlsx'],
    ['spreadsheets/one-primas-netas-seguros-2015-2023.xlsx', 'xlsx'],
    ['spreadsheets/one-companias-aseguradoras-1995-2022.xls', 'xls'],
    ['spreadsheets/cnss-recaudos-sfs-2003-2023.ods', 'ods'],
    ['csv/salario-minimo-hacienda-2000-2025.csv', 'text'],
    ['csv/licencias-construccion-mivhed-2022-2025.csv', 'text'],
  ])('knows %s as %s', async (file, kind) => {
    expect(detectContent(await head(file))).toBe(kind);
  });

  it('knows images, markup and binary junk', () => {
    expect(detectContent(pngImage())).toBe('png');
    expect(detectContent(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0))).toBe('jpeg');
    expect(detectContent(new TextEncoder().encode('RIFF\x00\x00\x00\x00WEBPVP8 '))).toBe('webp');
    expect(detectContent(new TextEncoder().encode('\uFEFF  <!DOCTYPE html><p>hola</p>'))).toBe('markup');
    expect(detectContent(new TextEncoder().encode('<svg onload="alert(1)"/>'))).toBe('markup');
    expect(detectContent(Uint8Array.of(1, 2, 0, 4))).toBe('binary');
  });
});

describe('documentFormat', () => {
  it('accepts only the content each declared type names', () => {
    expect(documentFormat('pdf', 'pdf')).toBe('pdf');
    expect(documentFormat('csv', 'pdf')).toBeNull();
    expect(documentFormat('csv', 'markup')).toBeNull();
    expect(documentFormat('xlsx', 'xls')).toBe('xls');
    expect(documentFormat('xlsx', 'ods')).toBeNull();
    expect(documentFormat('ods', 'ods')).toBe('ods');
  });

  it('keeps a known format for "other", and calls the rest other', () => {
    expect(documentFormat('other', 'pdf')).toBe('pdf');
    expect(documentFormat('other', 'markup')).toBe('other');
    expect(documentFormat('other', 'zip')).toBe('other');
  });
});

describe('file names', () => {
  it('keeps the base name only, without control characters or leading dots', () => {
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('C:\\datos\\informe final.pdf')).toBe('informe final.pdf');
    expect(cleanFileName('..\u0000.env')).toBe('env');
    expect(cleanFileName('')).toBe('archivo');
    // A bidi override would make `Presupuesto\u202Efdp.exe` read as «Presupuestoexe.pdf» (issue #16).
    expect(cleanFileName('Presupuesto\u202Efdp.exe')).toBe('Presupuestofdp.exe');
    expect(cleanFileName(`${'a'.repeat(199)}😀b`)).toBe(`${'a'.repeat(198)}😀b`);
    expect(fileExtension('Informe.PDF')).toBe('pdf');
    expect(fileExtension('sin-extension')).toBeNull();
  });
});
