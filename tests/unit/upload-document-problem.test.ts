/**
 * What the upload wizard says of the document picked, before the contributor signs
 * (`documentProblem`): the server's own refusals, read with the server's own rules
 * (`domain/content-kind.ts`, `domain/pdf-shape.ts`), from the real files of the fixtures.
 */
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EXECUTABLE_REFUSED_MESSAGE } from '../../src/lib/domain/content-kind.ts';
import { BROKEN_PDF_MESSAGE } from '../../src/lib/domain/pdf-shape.ts';
import { notDeclaredTypeMessage } from '../../src/lib/domain/upload.ts';
import { documentProblem } from '../../src/islands/upload/form.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const fileOf = async (name: string, bytes?: Uint8Array) => new File([Uint8Array.from(bytes ?? (await fs.readFile(fixturePath(name))))], name.split('/').pop()!);

describe('the document picked in the upload wizard', () => {
  it('passes when it is what its type says, for every type the archive takes', async () => {
    expect(await documentProblem(await fileOf('files/pdf/sisalril-pespj-d1.pdf'), 'pdf')).toBeNull();
    // Code page 850 with «;», as the government exports it.
    expect(await documentProblem(await fileOf('files/csv/salario-minimo-hacienda-2000-2025.csv'), 'csv')).toBeNull();
    expect(await documentProblem(await fileOf('files/spreadsheets/one-primas-netas-seguros-2015-2023.xlsx'), 'xlsx')).toBeNull();
    expect(await documentProblem(await fileOf('files/spreadsheets/one-companias-aseguradoras-1995-2022.xls'), 'xlsx')).toBeNull();
    expect(await documentProblem(await fileOf('files/spreadsheets/cnss-recaudos-sfs-2003-2023.ods'), 'ods')).toBeNull();
    expect(await documentProblem(await fileOf('files/pdf/sisalril-pespj-d1.pdf'), 'other')).toBeNull();
  });

  it('says what the server would answer for another kind of content, a program or a PDF cut short', async () => {
    expect(await documentProblem(await fileOf('files/pdf/sisalril-pespj-d1.pdf'), 'csv')).toBe(notDeclaredTypeMessage('csv'));
    expect(await documentProblem(await fileOf('files/csv/salario-minimo-hacienda-2000-2025.csv'), 'xlsx')).toBe(notDeclaredTypeMessage('xlsx'));
    expect(await documentProblem(await fileOf('pagina.pdf', new TextEncoder().encode('<!doctype html><title>404</title>')), 'pdf')).toBe(notDeclaredTypeMessage('pdf'));
    const program = new Uint8Array(256);
    program.set([0x4d, 0x5a]); // «MZ» and NUL bytes: a Windows executable
    expect(await documentProblem(await fileOf('presupuesto.pdf.exe', program), 'other')).toBe(EXECUTABLE_REFUSED_MESSAGE);
    const whole = await fs.readFile(fixturePath('files/pdf/sisalril-pespj-d1.pdf'));
    expect(await documentProblem(await fileOf('cortado.pdf', whole.subarray(0, whole.length >> 1)), 'pdf')).toBe(BROKEN_PDF_MESSAGE);
    // An empty file, or no type chosen yet, is said elsewhere.
    expect(await documentProblem(await fileOf('vacio.pdf', new Uint8Array(0)), 'pdf')).toBeNull();
    expect(await documentProblem(await fileOf('files/pdf/sisalril-pespj-d1.pdf'), '')).toBeNull();
  });
});
