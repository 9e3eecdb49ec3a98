import { describe, expect, it } from 'vitest';
import { absoluteUrl, collectionPath, groupPath, recordIdPath, recordPath, sameOriginPath } from '../../src/lib/paths.ts';

const CID = 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4';

describe('catalogue paths', () => {
  it('names each group by its URL segment', () => {
    expect(groupPath('src')).toBe('/group/src');
    expect(groupPath('dep')).toBe('/group/dep');
    expect(groupPath('cat')).toBe('/group/cat');
  });

  it('gives page 1 of a collection a single URL, and later pages a ?page', () => {
    expect(collectionPath('dep', 12)).toBe('/collection/dep/12');
    expect(collectionPath('dep', 12, 1)).toBe('/collection/dep/12');
    expect(collectionPath('cat', 3, 2)).toBe('/collection/cat/3?page=2');
    expect(collectionPath('src', 3, 0)).toBe('/collection/src/3');
    expect(collectionPath('src', 3, 2.5)).toBe('/collection/src/3');
  });

  it('addresses a record by its CID and picks it by id', () => {
    expect(recordPath({ cid: CID, id: 7 })).toBe(`/single/src/${CID}?assetId=7`);
    // A CID is base32 and needs no escaping, but whatever reaches the path cannot break out of it.
    expect(recordPath({ cid: 'a/b?c', id: 1 })).toBe('/single/src/a%2Fb%3Fc?assetId=1');
  });

  it('gives a record without a file its page by id, and keeps that address for every record', () => {
    expect(recordPath({ cid: null, id: 1065 })).toBe('/registro/1065');
    expect(recordPath({ cid: '', id: 3 })).toBe('/registro/3');
    expect(recordIdPath(7)).toBe('/registro/7');
    // The id path never depends on the file, so it outlives each new version's CID.
    expect(recordPath({ cid: CID, id: 7 })).not.toBe(recordIdPath(7));
  });

  it('makes absolute URLs on the public origin', () => {
    expect(absoluteUrl('https://archivo.example', '/collection/dep/1')).toBe('https://archivo.example/collection/dep/1');
    expect(absoluteUrl('http://localhost:4321', recordPath({ cid: CID, id: 2 }))).toBe(
      `http://localhost:4321/single/src/${CID}?assetId=2`,
    );
  });
});

describe('where sign-in goes next', () => {
  it('keeps paths on this archive, with their query and fragment', () => {
    expect(sameOriginPath('/profile')).toBe('/profile');
    expect(sameOriginPath('/buscar?q=presupuesto#r')).toBe('/buscar?q=presupuesto#r');
    expect(sameOriginPath('/a/../moderacion')).toBe('/moderacion');
  });

  it('refuses every way of naming another host (issue #16: open redirect after sign-in)', () => {
    for (const hostile of ['//evil.example/phish', '/\\evil.example/phish', '/\\/evil.example', '/\t/evil.example', 'https://evil.example', 'javascript:alert(1)', '/.//evil.example/x', '/..//evil.example', '/%2e//evil.example', '/./\\evil.example', '/a/..//evil.example', '', null, undefined]) {
      expect(sameOriginPath(hostile as string | null | undefined), String(hostile)).toBe('/dashboard');
    }
  });
});
