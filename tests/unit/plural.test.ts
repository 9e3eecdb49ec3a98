import { describe, expect, it } from 'vitest';
import { es } from '../../src/lib/i18n/es.ts';
import { t, tn } from '../../src/lib/i18n/index.ts';
import { pickPlural, pluralForm } from '../../src/lib/i18n/plural.ts';

describe('Spanish plurals (issue #20)', () => {
  it('uses the singular for exactly one, the plural for everything else', () => {
    expect(pluralForm(1)).toBe('one');
    for (const count of [0, 2, 5, 21, 100, 1068, 1_000_000, 1.5]) expect(pluralForm(count)).toBe('other');
  });

  it('fills the count as the archive writes numbers, in the form that fits', () => {
    expect(tn('results.count', 1)).toBe('1 resultado');
    expect(tn('results.count', 0)).toBe('0 resultados');
    expect(tn('profile.count', 1)).toBe('1 contribución');
    expect(tn('profile.count', 3)).toBe('3 contribuciones');
    expect(tn('group.files', 1)).toBe('1 archivo');
    expect(tn('group.records', 1068)).toBe('1,068 registros');
    expect(tn('csv.elements', 1)).toBe('1 elemento');
    expect(tn('import.done', 1)).toBe('1 documento importado');
    expect(tn('import.done', 1065)).toBe('1,065 documentos importados');
    expect(tn('list.found', 1, { query: 'salud' })).toBe('1 coincide con «salud»');
    expect(tn('collection.description', 1, { name: 'ONE' })).toMatch(/^El documento público de ONE /);
  });

  it('gives islands the same choice from the two forms they receive', () => {
    const forms = { one: es['search.files.one'], other: es['search.files.other'] };
    expect(pickPlural(1, forms)).toBe('{count} archivo');
    expect(pickPlural(7, forms)).toBe('{count} archivos');
  });

  it('has both forms of every message that has one, and no "(s)" left', () => {
    const keys = Object.keys(es);
    const singulars = keys.filter((key) => key.endsWith('.one'));
    expect(singulars.length).toBeGreaterThan(10);
    for (const key of singulars) expect(keys, key).toContain(key.replace(/\.one$/, '.other'));
    for (const [key, text] of Object.entries(es)) expect(text, key).not.toMatch(/\w\((s|es)\)/);
    expect(t('notFound.body')).not.toMatch(/\bbuscas\b/);
  });
});
