import { describe, expect, it } from 'vitest';
import { spelledAsFound } from '../../src/lib/server/queries/search.ts';

const record = (title: string, department: string | null = null, description: string | null = null) => ({
  title,
  description,
  department: department === null ? null : { id: 1, name: department },
});

describe('a corrected query as the records found spell it', () => {
  it('gives each folded word the accents its records write, lower-case', () => {
    expect(spelledAsFound('educacion superior', [record('Matrícula de Educación Superior 2020')])).toBe('educación superior');
    expect(spelledAsFound('estadisticas', [record('Datos', 'Oficina Nacional de Estadísticas')])).toBe('estadísticas');
    expect(spelledAsFound('poblacion', [record('Censo', null, 'Población por provincia')])).toBe('población');
  });

  it('prefers an accented spelling over a bare one, whichever comes first', () => {
    expect(spelledAsFound('educacion', [record('EDUCACION BASICA'), record('Educación inicial')])).toBe('educación');
    expect(spelledAsFound('educacion', [record('Educación inicial'), record('EDUCACION BASICA')])).toBe('educación');
  });

  it('leaves a word no record shows as the vocabulary has it', () => {
    expect(spelledAsFound('presupuesto', [])).toBe('presupuesto');
    expect(spelledAsFound('presupuesto anual', [record('Gasto anual')])).toBe('presupuesto anual');
  });
});
