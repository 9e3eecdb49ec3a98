import { describe, expect, it } from 'vitest';
import { parseEnvelopeList } from '../../src/lib/api/search.ts';
import { foldText, matchCategories, recordCount, searchPagePath } from '../../src/islands/search/match.ts';

const CATEGORIES = [
  { id: 1, name: 'Gestión Pública' },
  { id: 2, name: 'Salud' },
  { id: 3, name: 'Educación' },
  { id: 4, name: 'Sociedad y bienestar' },
];

describe('search modal helpers', () => {
  it('folds case and accents', () => {
    expect(foldText('  EDUCACIÓN ')).toBe('educacion');
    expect(foldText('Ministerio de Salud Pública')).toBe('ministerio de salud publica');
  });

  it('matches categories by a folded substring of their title', () => {
    expect(matchCategories(CATEGORIES, 'salud')).toEqual({ items: [CATEGORIES[1]], all: false });
    expect(matchCategories(CATEGORIES, 'educacion')).toEqual({ items: [CATEGORIES[2]], all: false });
    expect(matchCategories(CATEGORIES, 'PÚBLICA').items.map((c) => c.id)).toEqual([1]);
  });

  it('offers every category when none matches, or before any query', () => {
    expect(matchCategories(CATEGORIES, 'presupuesto')).toEqual({ items: CATEGORIES, all: true });
    expect(matchCategories(CATEGORIES, '   ')).toEqual({ items: CATEGORIES, all: true });
  });

  it('links the full results page with the query', () => {
    expect(searchPagePath('salud pública')).toBe('/buscar?q=salud+p%C3%BAblica');
    expect(searchPagePath(' a&b=c ')).toBe('/buscar?q=a%26b%3Dc');
    expect(searchPagePath('')).toBe('/buscar');
  });

  it('counts records with the singular for one', () => {
    const labels = { one: '{count} archivo', other: '{count} archivos' };
    expect(recordCount(1, labels)).toBe('1 archivo');
    expect(recordCount(0, labels)).toBe('0 archivos');
    expect(recordCount(12, labels)).toBe('12 archivos');
  });
});

describe('the REST envelope', () => {
  it('parses a body that is a JSON string of a list (SPEC §7)', () => {
    expect(parseEnvelopeList({ code: 200, body: '[{"id":1}]' })).toEqual([{ id: 1 }]);
    expect(parseEnvelopeList({ code: 200, body: [{ id: 2 }] })).toEqual([{ id: 2 }]);
  });

  it('refuses a body that is not a list', () => {
    expect(() => parseEnvelopeList({ code: 500, body: '{"message":"x"}' })).toThrow(TypeError);
    expect(() => parseEnvelopeList(null)).toThrow(TypeError);
  });
});
