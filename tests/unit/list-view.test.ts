import { describe, expect, it } from 'vitest';
import { COLLECTION_ORDERS, GROUP_ORDERS, listQuery, parseListView } from '../../src/lib/list-view.ts';
import { collectionPath, groupPath } from '../../src/lib/paths.ts';

const params = (query: string) => new URLSearchParams(query);

describe('the order and filter of a list, in its URL (issue #20)', () => {
  it("reads the order and the filter, the spec's order when none or an unknown one is asked", () => {
    expect(parseListView(params(''), GROUP_ORDERS)).toEqual({ order: 'recientes', q: '' });
    expect(parseListView(params('orden=az&q=salud'), GROUP_ORDERS)).toEqual({ order: 'az', q: 'salud' });
    expect(parseListView(params('orden=registros'), GROUP_ORDERS).order).toBe('registros');
    expect(parseListView(params('orden=registros'), COLLECTION_ORDERS).order).toBe('recientes');
    expect(parseListView(params('orden=DROP'), GROUP_ORDERS).order).toBe('recientes');
    expect(parseListView(params(`q=${encodeURIComponent('  Banco   Central ')}`), GROUP_ORDERS).q).toBe('Banco Central');
    expect(parseListView(params(`q=${'x'.repeat(500)}`), GROUP_ORDERS).q).toHaveLength(100);
  });

  it('writes one URL per list: defaults left out, the rest in a stable order', () => {
    expect(listQuery({ order: 'recientes', q: '' }, 'recientes', 1)).toBe('');
    expect(listQuery({ q: 'educación', order: 'az' }, 'recientes', 3)).toBe('?orden=az&q=educaci%C3%B3n&page=3');
    expect(groupPath('dep')).toBe('/group/dep');
    expect(groupPath('dep', { order: 'az' })).toBe('/group/dep?orden=az');
    expect(groupPath('src', { order: 'registros', q: 'a&b' }, 2)).toBe('/group/src?orden=registros&q=a%26b&page=2');
    expect(collectionPath('dep', 12, 2)).toBe('/collection/dep/12?page=2');
    expect(collectionPath('dep', 12, 1, { order: 'az', q: 'presupuesto' })).toBe('/collection/dep/12?orden=az&q=presupuesto');
    expect(collectionPath('cat', 3, 2, { order: 'recientes', q: '' })).toBe('/collection/cat/3?page=2');
  });

  it('reads back what it writes', () => {
    const url = new URL(groupPath('dep', { order: 'az', q: 'Ministerio de Educación' }, 4), 'http://archivo.invalid');
    expect(parseListView(url.searchParams, GROUP_ORDERS)).toEqual({ order: 'az', q: 'Ministerio de Educación' });
    expect(url.searchParams.get('page')).toBe('4');
  });
});
