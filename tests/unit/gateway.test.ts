import { describe, expect, it } from 'vitest';
import { negotiateCar } from '../../src/lib/server/gateway/car.ts';
import { parseRange, readGatewayRequest, sniffType, wantsRawBlock } from '../../src/lib/server/gateway/index.ts';
import { HttpError } from '../../src/lib/server/http/errors.ts';

describe('byte ranges', () => {
  it.each([
    [null, 100, null],
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=95-200', 100, { start: 95, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=10-5', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-1,5-6', 100, null],
    ['items=0-1', 100, null],
  ] as const)('%j of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('sniffing', () => {
  it('knows PDFs, images and zip containers, and nothing else', () => {
    expect(sniffType(new TextEncoder().encode('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffType(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toBe('image/png');
    expect(sniffType(Uint8Array.of(0x50, 0x4b, 0x03, 0x04))).toBe('application/zip');
    expect(sniffType(new TextEncoder().encode('<html><script>alert(1)</script>'))).toBe('application/octet-stream');
  });
});

describe('reading a gateway request', () => {
  const read = (query: string, headers: Record<string, string> = {}) => {
    const url = new URL(`http://archivo.test/ipfs/bafkqaaa${query}`);
    return readGatewayRequest('bafkqaaa', new Request(url, { headers }), url);
  };

  it.each([
    ['', false, null],
    ['?download=true', true, null],
    ['?download=true&filename=ley-200-04.pdf', true, 'ley-200-04.pdf'],
    ['?filename=ley-200-04.pdf', false, 'ley-200-04.pdf'],
    ['?download=ley%20200-04.pdf', true, 'ley 200-04.pdf'],
    ['?download=ley.pdf&filename=otro.pdf', true, 'ley.pdf'],
    ['?download=false', false, null],
    ['?download=', false, null],
  ] as const)('%s downloads: %s, as %s', (query, download, fileName) => {
    expect(read(query)).toMatchObject({ download, fileName });
  });

  it('keeps a file name from the URL to 200 characters', () => {
    expect(read(`?download=${'a'.repeat(300)}`).fileName).toHaveLength(200);
  });

  it('passes the headers the file answer depends on', () => {
    expect(read('', { Range: 'bytes=0-9', 'If-None-Match': '"x"', 'If-Range': '"x"' })).toMatchObject({
      method: 'GET',
      range: 'bytes=0-9',
      ifRange: '"x"',
      ifNoneMatch: '"x"',
      car: null,
    });
  });
});

describe('negotiating a CAR', () => {
  const negotiate = (query: string, accept: string | null = null) => negotiateCar(new URL(`http://archivo.test/ipfs/x${query}`), accept);

  it.each([
    ['', null, null],
    ['', 'text/html,application/xhtml+xml,*/*;q=0.8', null],
    ['?format=car', null, { dups: false, negotiated: false }],
    ['?format=car', 'text/html', { dups: false, negotiated: false }],
    ['', 'application/vnd.ipld.car', { dups: false, negotiated: true }],
    ['', 'Application/VND.IPLD.CAR; Version=1; Order=DFS; Dups=Y', { dups: true, negotiated: true }],
    ['', 'application/vnd.ipld.car; order=unk', { dups: false, negotiated: true }],
    ['', 'application/vnd.ipld.car;q=0', null],
    ['?format=raw', 'application/vnd.ipld.car', null],
    ['?format=car&car-dups=y', 'application/vnd.ipld.car; dups=n', { dups: true, negotiated: false }],
    // A variant the archive cannot make is passed over for one it can.
    ['', 'application/vnd.ipld.car; version=2, application/vnd.ipld.car; version=1; q=0.5', { dups: false, negotiated: true }],
  ] as const)('%s with Accept %s', (query, accept, expected) => {
    expect(negotiate(query, accept)).toEqual(expected);
  });

  it.each([
    ['', 'application/vnd.ipld.car; version=2'],
    ['', 'application/vnd.ipld.car; order=bfs'],
    ['?format=car&car-version=2', null],
    ['?format=car&car-dups=maybe', null],
  ])('refuses %s with Accept %s as not acceptable', (query, accept) => {
    let refusal: unknown;
    try {
      negotiate(query, accept);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(HttpError);
    expect((refusal as HttpError).status).toBe(406);
  });
});

describe('asking for one raw block', () => {
  const read = (query: string, accept?: string) => {
    const url = new URL(`http://archivo.test/ipfs/bafkqaaa${query}`);
    return readGatewayRequest('bafkqaaa', new Request(url, { headers: accept ? { Accept: accept } : {} }), url);
  };

  it.each([
    ['', undefined, false],
    ['?format=raw', undefined, true],
    ['?format=raw', 'text/html', true],
    ['', 'application/vnd.ipld.raw', true],
    ['', 'Application/VND.IPLD.RAW; q=0.9, */*;q=0.1', true],
    ['', 'application/vnd.ipld.raw;q=0', false],
    ['', 'text/html,application/xhtml+xml,*/*;q=0.8', false],
    // A format in the URL wins over the Accept header.
    ['?format=car', 'application/vnd.ipld.raw', false],
    // Asked for both, a CAR (the whole DAG) is answered.
    ['', 'application/vnd.ipld.car, application/vnd.ipld.raw', false],
  ] as const)('%s with Accept %s: %s', (query, accept, raw) => {
    const request = read(query, accept);
    expect(request.raw).toBe(raw);
    if (raw) expect(request.car).toBeNull();
  });

  it('refuses, in words, a format it does not serve; an empty one asks for the file', () => {
    for (const format of ['zip', 'tar', 'dag-json', 'CAR']) {
      let refusal: unknown;
      try {
        read(`?format=${format}`);
      } catch (error) {
        refusal = error;
      }
      expect(refusal, format).toBeInstanceOf(HttpError);
      expect((refusal as HttpError).status).toBe(400);
      expect((refusal as HttpError).message).toBe(`El archivo no se sirve en el formato «${format}»: pida el archivo mismo (sin format), ?format=raw (un bloque) o ?format=car (su DAG).`);
    }
    expect(read('?format=')).toMatchObject({ raw: false, car: null });
  });

  it('reads the same from the URL alone', () => {
    expect(wantsRawBlock(new URL('http://archivo.test/ipfs/x?format=raw'), null)).toBe(true);
    expect(wantsRawBlock(new URL('http://archivo.test/ipfs/x'), null)).toBe(false);
  });
});
