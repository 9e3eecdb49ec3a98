import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../src/lib/tabular/decode.ts';
import { parseTable } from '../../src/lib/tabular/table.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const CSV = fixturePath('files/csv');
const read = async (name: string) => parseTable(decodeText(new Uint8Array(await fs.readFile(path.join(CSV, name)))).text);

describe('the real CSV fixtures read as tables', () => {
  it('the DOS code page 850 file, with ";" and a trailing ";"', async () => {
    const bytes = new Uint8Array(await fs.readFile(path.join(CSV, 'salario-minimo-hacienda-2000-2025.csv')));
    expect(decodeText(bytes).encoding).toBe('cp850');
    const table = await read('salario-minimo-hacienda-2000-2025.csv');
    expect(table?.columns).toEqual(['SECTOR', 'TAMAÑO EMPRESA', 'AREAS', 'MES', 'AÑO', 'SALARIO MINIMO']);
    expect(table?.rows[0]).toEqual(['Sector privado', 'Empresa grande', 'Empresas del sector no sectorizado', 'Enero', '2000', '2,895']);
    expect(table?.rows).toHaveLength(2862);
  });

  it('UTF-8 with two junk rows before the header', async () => {
    const table = await read('licencias-construccion-mivhed-2022-2025.csv');
    expect(table?.columns[0]).toBe('Fecha de Emisión');
    expect(table?.columns).toContain('Inversión Total');
    expect(table?.rows[0]?.[0]).toBe('01/03/2022');
  });

  it('UTF-8 with a BOM and a header with a trailing space', async () => {
    const table = await read('empresas-servicios-turisticos-mitur-2018-2025.csv');
    expect(table?.columns[0]).toBe('Empresa o Servicio');
    expect(table?.columns).toContain('Cambio de Direccion');
  });

  it('Latin-1 with ","', async () => {
    const table = await read('empleos-cotizantes-tss-2003-2026.csv');
    expect(table?.columns).toEqual(['MES', 'AÑO', 'EMPRESA_PRIVADA', 'PUBLICA_CENTRALIZADA', 'PUBLICA_DESCENTRALIZADA', 'TOTAL']);
  });

  it('a file with no rows is not a table', () => {
    expect(parseTable('')).toBeNull();
    expect(parseTable('solo,una,cabecera\n')).toBeNull();
  });
});
