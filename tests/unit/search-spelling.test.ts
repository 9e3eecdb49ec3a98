import { describe, expect, it } from 'vitest';
import { spelledAsFound } from '../../src/lib/server/queries/search.ts';

const record = (title: string, department: string | null = null, description: string | null = null) => ({
  title,
  description,
  department: department === null ? null : { id: 1, name: department },
});

describe('a corrected query as the records found spell it', () => {
  it('gives each corrected word the accents its records write, lower-case', () => {
    expect(spelledAsFound('educacion superior', 'educasion superior', [record('Matrícula de Educación Superior 2020')])).toBe('educación superior');
    expect(spelledAsFound('estadisticas', 'estadistcas', [record('Datos', 'Oficina Nacional de Estadísticas')])).toBe('estadísticas');
    expect(spelledAsFound('poblacion', 'poblasion', [record('Censo', null, 'Población por provincia')])).toBe('población');
  });

  it('takes the most frequent accented spelling, never a bare one', () => {
    expect(spelledAsFound('educacion', 'educasion', [record('EDUCACION BASICA'), record('Educación inicial')])).toBe('educación');
    expect(spelledAsFound('publico', 'pubilco', [record('Gasto público'), record('Se publicó el gasto'), record('Empleo público')])).toBe('público');
  });

  it('leaves the words the visitor typed that needed no correction as typed', () => {
    expect(spelledAsFound('MINERD educacion', 'MINERD educasion', [record('Educación del MINERD', 'Ministerio de Educación (minerd)')])).toBe('MINERD educación');
  });

  it('leaves a word no record shows with accents as the vocabulary has it', () => {
    expect(spelledAsFound('presupuesto', 'presupesto', [])).toBe('presupuesto');
    expect(spelledAsFound('presupuesto anual', 'presupesto anual', [record('Presupuesto anual')])).toBe('presupuesto anual');
  });
});
