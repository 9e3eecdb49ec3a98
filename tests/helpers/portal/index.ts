/**
 * A small public-data portal on 127.0.0.1 (node:http, a free port), for every test of the harvest:
 * readers, runner, capture, Playwright. It serves the real CKAN sample's five packages
 * (`packages.ts`) in every catalogue kind the archive reads, and their resources as local copies
 * of real fixture files:
 *
 * | path | what |
 * |---|---|
 * | `/api/3/action/package_search?rows=&start=` | CKAN's answer, paged (rows default 10, as CKAN) |
 * | `/dcat/catalog.jsonld?page=N` | DCAT-AP in JSON-LD, `dcatPageSize` datasets a page, `hydra:next` |
 * | `/dcat/catalog.ttl?page=N` | the same in Turtle, `hydra:nextPage` |
 * | `/dcat/catalog.rdf?page=N` | the Turtle pages in RDF/XML, as ckanext-dcat's `catalog.rdf` |
 * | `/dcat/loop.jsonld?page=N` | two JSON-LD pages whose second's next is the first |
 * | `/dcat/remote-context.jsonld` | JSON-LD whose `@context` is `/contexts/dcat.jsonld` here |
 * | `/data.json` | data.json (DCAT-US 1.1, Andino-style) |
 * | `/files/{resource id}/{name}` | the resource's fixture file, with its Content-Type and length |
 * | `/`, `/html/…` | the portal's home page (HTML), at any path under `/html`: a web site, no catalogue |
 *
 * `packages` is read on every request: a test edits it (a title, a removed package) and the next
 * harvest sees the change in every kind. `requests` lists every path asked, in order.
 *
 * For tests that need a harvest to take a while (a crash in its middle), `datasets` serves a
 * generated catalogue of that many datasets instead of the five (`generatedPackages`), and `slow`
 * delays each catalogue answer and drips each file's bytes over a time; both can be changed while
 * the portal runs (fast again once the crash is over).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchPage } from '../../../src/lib/server/harvest/catalogs/index.ts';
import { ckanAnswer, dataJson, dcatJsonLdPage, dcatRdfXmlPage, dcatTurtlePage, type DcatPage } from './documents.ts';
import { generatedPackages, localPackages, portalFileBytes, type CkanPackage, type PortalFile } from './packages.ts';

export { CKAN_SAMPLE_PATH, generatedPackages, samplePackages, type CkanPackage, type CkanResource, type PortalFile } from './packages.ts';

export interface LocalPortal {
  /** `http://127.0.0.1:{port}`. */
  origin: string;
  /** The catalogue URLs, one per kind and case. */
  urls: {
    ckan: string;
    dcatJsonLd: string;
    dcatTurtle: string;
    dcatRdfXml: string;
    dcatLoop: string;
    dcatRemoteContext: string;
    dataJson: string;
    html: string;
  };
  /** The catalogue served, editable. */
  packages: CkanPackage[];
  /** The file behind each resource, by resource id. */
  files: Map<string, PortalFile>;
  /** Every request's path and query, in order. */
  requests: string[];
  /** How slow the portal answers now; editable. */
  slow: PortalSlowness;
  /** Fetches a page of this portal (or any URL) as the readers want it; rejects on an HTTP error. */
  fetchPage: FetchPage;
  close(): Promise<void>;
}

export interface PortalSlowness {
  /** Wait before answering each catalogue page (CKAN, DCAT, data.json), in ms. */
  catalogueMs: number;
  /** Time over which each file's bytes are sent, in four pieces after the headers, in ms. */
  fileMs: number;
}

export interface LocalPortalOptions {
  /** Datasets per DCAT page (3: the five packages on two pages). */
  dcatPageSize?: number;
  /** Serve a generated catalogue of this many datasets (`generatedPackages`) instead of the sample's five. */
  datasets?: number;
  /** How slow to answer at first (not at all by default); `portal.slow` changes it later. */
  slow?: Partial<PortalSlowness>;
}

/** The paths of the catalogue documents, which `slow.catalogueMs` delays. */
const CATALOGUE_PATH = /^\/(api\/|dcat\/|data\.json$)/;

/** Pieces a slow file is sent in. */
const DRIP_PIECES = 4;

const HOME_PAGE = '<!DOCTYPE html>\n<html lang="es"><head><title>Portal de datos abiertos</title></head><body><h1>Datos abiertos</h1></body></html>\n';

/** A fetch of one catalogue page for the readers: the body and its Content-Type, or a rejection. */
export const fetchCatalogPage: FetchPage = async (url) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`HTTP ${response.status} en ${url}`);
  return { body: await response.text(), contentType: response.headers.get('content-type') };
};

/** Starts the portal (see the module's header and `LocalPortalOptions`). */
export async function startLocalPortal({ dcatPageSize = 3, datasets, slow = {} }: LocalPortalOptions = {}): Promise<LocalPortal> {
  const requests: string[] = [];
  const state = { packages: [] as CkanPackage[], files: new Map<string, PortalFile>() };
  const slowness: PortalSlowness = { catalogueMs: slow.catalogueMs ?? 0, fileMs: slow.fileMs ?? 0 };
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    const answer = () => {
      try {
        route(new URL(request.url ?? '/', origin), response);
      } catch (error) {
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(String(error));
      }
    };
    const delay = CATALOGUE_PATH.test(new URL(request.url ?? '/', origin).pathname) ? slowness.catalogueMs : 0;
    if (delay <= 0) return answer();
    const timer = setTimeout(answer, delay);
    response.once('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(state, datasets === undefined ? localPackages(origin) : generatedPackages(origin, datasets));

  /** Sends `file`'s bytes in `DRIP_PIECES` pieces over `slowness.fileMs`, stopping if the client goes. */
  function drip(response: http.ServerResponse, file: PortalFile): void {
    const bytes = portalFileBytes(file);
    const piece = Math.max(1, Math.ceil(bytes.length / DRIP_PIECES));
    let offset = 0;
    let timer: NodeJS.Timeout | undefined;
    response.once('close', () => clearTimeout(timer));
    const next = () => {
      if (response.destroyed) return;
      const chunk = bytes.subarray(offset, offset + piece);
      offset += piece;
      if (offset >= bytes.length) return void response.end(chunk);
      response.write(chunk);
      timer = setTimeout(next, slowness.fileMs / DRIP_PIECES);
    };
    next();
  }

  const send = (response: http.ServerResponse, contentType: string, body: string): void => {
    response.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) }).end(body);
  };

  function dcatPage(path: string, page: number, loop = false): DcatPage {
    const pages = Math.max(1, Math.ceil(state.packages.length / dcatPageSize));
    const next = page < pages ? page + 1 : loop ? 1 : null;
    return {
      packages: state.packages.slice((page - 1) * dcatPageSize, page * dcatPageSize),
      total: state.packages.length,
      pageUrl: `${origin}${path}?page=${page}`,
      nextUrl: next === null ? null : `${origin}${path}?page=${next}`,
    };
  }

  function route(url: URL, response: http.ServerResponse): void {
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    switch (url.pathname) {
      case '/api/3/action/package_search': {
        const rows = Math.min(1000, Number(url.searchParams.get('rows') ?? 10));
        const start = Number(url.searchParams.get('start') ?? 0);
        return send(response, 'application/json;charset=utf-8', JSON.stringify(ckanAnswer(state.packages, rows, start)));
      }
      case '/dcat/catalog.jsonld':
        return send(response, 'application/ld+json', dcatJsonLdPage(origin, dcatPage(url.pathname, page)));
      case '/dcat/catalog.ttl':
        return send(response, 'text/turtle; charset=utf-8', dcatTurtlePage(origin, dcatPage(url.pathname, page)));
      case '/dcat/catalog.rdf':
        return send(response, 'application/rdf+xml; charset=utf-8', dcatRdfXmlPage(origin, dcatPage(url.pathname, page)));
      case '/dcat/loop.jsonld':
        return send(response, 'application/ld+json', dcatJsonLdPage(origin, dcatPage(url.pathname, page, true)));
      case '/dcat/remote-context.jsonld': {
        const document = JSON.parse(dcatJsonLdPage(origin, dcatPage('/dcat/catalog.jsonld', 1))) as Record<string, unknown>;
        return send(response, 'application/ld+json', JSON.stringify({ ...document, '@context': `${origin}/contexts/dcat.jsonld` }));
      }
      case '/contexts/dcat.jsonld':
        // Served so that a reader that did fetch remote contexts would succeed: only `requests` tells.
        return send(response, 'application/ld+json', JSON.stringify({ '@context': JSON.parse(dcatJsonLdPage(origin, dcatPage('/dcat/catalog.jsonld', 1)))['@context'] }));
      case '/data.json':
        return send(response, 'application/json', JSON.stringify(dataJson(origin, state.packages)));
      case '/':
        return send(response, 'text/html; charset=utf-8', HOME_PAGE);
    }
    if (url.pathname === '/html' || url.pathname.startsWith('/html/')) return send(response, 'text/html; charset=utf-8', HOME_PAGE);
    const file = /^\/files\/([^/]+)\//.exec(url.pathname);
    const served = file ? state.files.get(decodeURIComponent(file[1]!)) : undefined;
    if (served) {
      response.writeHead(200, { 'Content-Type': served.mediaType, 'Content-Length': served.size });
      if (slowness.fileMs > 0) drip(response, served);
      else if (served.suffix) response.end(portalFileBytes(served));
      else fs.createReadStream(served.path).pipe(response);
      return;
    }
    const notFound = () => response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('No encontrado');
    // A slow portal says a file is missing slowly too, in half a file's time: a capture that fails
    // while another still comes in.
    if (file && slowness.fileMs > 0) setTimeout(notFound, slowness.fileMs / 2);
    else notFound();
  }

  return {
    origin,
    urls: {
      ckan: origin,
      dcatJsonLd: `${origin}/dcat/catalog.jsonld`,
      dcatTurtle: `${origin}/dcat/catalog.ttl`,
      dcatRdfXml: `${origin}/dcat/catalog.rdf`,
      dcatLoop: `${origin}/dcat/loop.jsonld`,
      dcatRemoteContext: `${origin}/dcat/remote-context.jsonld`,
      dataJson: `${origin}/data.json`,
      html: `${origin}/html`,
    },
    get packages() {
      return state.packages;
    },
    set packages(packages: CkanPackage[]) {
      state.packages = packages;
    },
    files: state.files,
    requests,
    slow: slowness,
    fetchPage: fetchCatalogPage,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
