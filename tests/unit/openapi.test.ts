import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTH_PATHS, OPEN_DATA_PATHS, openApiDocument } from '../../src/lib/server/api/openapi.ts';
import { SIGN_IN_STATEMENT } from '../../src/lib/wallet/signin.ts';
import { alexandriasGetAllParams, strapiAlexandriasParams } from '../../src/lib/server/api/params.ts';

const PAGES = path.resolve(import.meta.dirname, '../../src/pages');

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and lists every parameter the schemas accept', () => {
    const document = openApiDocument('https://archivo.test');
    expect(document.openapi).toBe('3.1.0');
    const getAll = document.paths['/v2/open-data/alexandrias/getAll'].get;
    expect(getAll.parameters.map((parameter) => parameter.name)).toEqual(Object.keys(alexandriasGetAllParams.shape));
    const limit = getAll.parameters.find((parameter) => parameter.name === 'limit');
    expect(limit).toMatchObject({ required: false, schema: { type: 'integer', maximum: 100, minimum: 1, default: 5 } });
    const strapi = document.paths['/alexandrias'].get.parameters.map((parameter) => parameter.name);
    expect(strapi).toEqual(Object.keys(strapiAlexandriasParams.shape));
  });

  it('documents the upload with the fields its schema accepts', () => {
    const upload = openApiDocument('https://archivo.test').paths['/v2/ops/assets/add'].post;
    const asset = upload.requestBody.content['multipart/form-data'].schema.properties.asset.contentSchema as { properties: Record<string, unknown> };
    expect(Object.keys(asset.properties)).toEqual(expect.arrayContaining(['title', 'docType', 'description', 'categoryId', 'docSource', 'sourceId', 'newSource', 'issuerId', 'newIssuer', 'owner']));
    expect(Object.keys(upload.responses)).toEqual(['200', '400', '401', '403', '413', '415', '429']);
  });

  it('tells a script how to get the Bearer token the moderators\' routes take', () => {
    const document = openApiDocument('https://archivo.test');
    expect(document.paths['/auth/nonce'].get.responses['200']).toBeDefined();
    const login = document.paths['/auth/login'].post;
    expect(login.description).toContain(SIGN_IN_STATEMENT);
    expect(login.requestBody.content['application/json'].schema.required).toEqual(['message', 'signature', 'provider']);
    expect(document.components.securitySchemes.bearer.description).toContain('POST /auth/login');
    expect(fs.existsSync(path.join(PAGES, 'auth/nonce.ts'))).toBe(true);
    expect(Object.keys(AUTH_PATHS)).toEqual(['/auth/nonce', '/auth/login', '/auth/register', '/auth/get-user']);
  });

  it('promises If-Modified-Since only where a Last-Modified is sent: the exports, not the catalogue or the feeds', () => {
    const notModified = (path: keyof typeof OPEN_DATA_PATHS) => (OPEN_DATA_PATHS[path] as { get: { responses: Record<string, { description: string }> } }).get.responses['304']!.description;
    expect(notModified('/export/catalogo.csv')).toContain('If-Modified-Since');
    for (const path of ['/catalog.jsonld', '/catalog.ttl', '/feeds/cambios.atom'] as const) expect(notModified(path)).not.toContain('If-Modified-Since');
  });

  it('describes every endpoint the server answers, and only those', () => {
    // Endpoints are the .ts files under src/pages; a page (.astro) is for people, save the login's form.
    const endpoints = fs
      .globSync('**/*.ts', { cwd: PAGES })
      .map((file) => `/${file.replace(/\.ts$/, '').replace(/\[(?:\.\.\.)?(\w+)\]/g, '{$1}')}`);
    // For crawlers and linked-data clients, not for a program calling the API.
    // And no operation: the JSON 404 of any other address under /v2/.
    const notApi = ['/robots.txt', '/sitemap.xml', '/sitemap-{n}.xml', '/catalog/{thing}', '/v2/{path}'];
    const described = Object.keys(openApiDocument('https://archivo.test').paths);
    expect(endpoints.filter((route) => !notApi.includes(route) && !described.includes(route)), 'sin describir').toEqual([]);
    expect(described.filter((route) => !endpoints.includes(route) && route !== '/auth/login'), 'sin ruta').toEqual([]);
    expect(fs.existsSync(path.join(PAGES, 'auth/login.astro'))).toBe(true);
  });

  it('describes the open data beyond the lists: files by CID, the catalogue, the exports and the feeds', () => {
    const document = openApiDocument('https://archivo.test');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/ipfs/{cid}', '/catalog.jsonld', '/catalog.ttl', '/export/catalogo.csv', '/export/catalogo.json', '/feeds/cambios.atom']));
    expect(Object.keys(document.paths['/ipfs/{cid}'].get.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '400', '404', '410', '416']));
    expect(document.paths['/catalog.ttl'].get.responses['200'].content).toHaveProperty(['text/turtle']);
  });
});
