/**
 * The harvest benchmark's public-data portal, in a process of its own (node:http on 127.0.0.1, a
 * free port), so that serving the catalogue and the files costs neither the archive nor the client
 * that measures what the server alone delivers. Started by `harvest.ts` with an IPC channel: it is
 * sent the catalogue's size and answers `{ origin, catalogUrl, fileUrls, fileBytes }` once it
 * listens. It ends with its parent (the channel closes).
 *
 * | path | what |
 * |---|---|
 * | `/api/3/action/package_search?rows=&start=` | CKAN's answer, paged (rows 10 by default, 1,000 at most, as CKAN) |
 * | `/files/{resource id}/{name}.csv` | a resource's file, with Content-Length, ETag and Last-Modified |
 * | `/robots.txt` | allows every crawler everywhere (the capture asks it first) |
 *
 * The files are generated once, in memory, before the portal answers: the floor it gives the
 * captures is that of a server that only copies bytes to a socket.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ckanAnswer } from '../tests/helpers/portal/documents.ts';
import { generateCatalog, type CatalogSize } from './harvest-catalog.ts';

export interface PortalRequest extends CatalogSize {
  fixturesDir: string;
}

export interface PortalReady {
  origin: string;
  catalogUrl: string;
  fileUrls: string[];
  /** The files' bytes together. */
  fileBytes: number;
}

const ROWS_MAX = 1000;
const LAST_MODIFIED = new Date(Date.UTC(2026, 8, 24)).toUTCString();

if (!process.send) throw new Error('harvest-portal.ts runs as a child of bench/harvest.ts (with an IPC channel).');
process.on('disconnect', () => process.exit(0));

process.once('message', (request: PortalRequest) => {
  let catalog: ReturnType<typeof generateCatalog> | undefined;
  const etags = new Map<string, string>();
  const server = http.createServer((incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/api/3/action/package_search' && catalog) {
      const rows = Math.min(ROWS_MAX, Math.max(0, Number(url.searchParams.get('rows') ?? 10) || 0));
      const start = Math.max(0, Number(url.searchParams.get('start') ?? 0) || 0);
      const body = JSON.stringify(ckanAnswer(catalog.packages, rows, start));
      response.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8', 'Content-Length': Buffer.byteLength(body) }).end(body);
      return;
    }
    const file = catalog?.files.get(url.pathname);
    if (file) {
      response
        .writeHead(200, {
          'Content-Type': 'text/csv',
          'Content-Length': file.length,
          ETag: etags.get(url.pathname),
          'Last-Modified': LAST_MODIFIED,
        })
        .end(file);
      return;
    }
    if (url.pathname === '/robots.txt') {
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('No encontrado\n');
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    catalog = generateCatalog(origin, request.fixturesDir, request);
    let fileBytes = 0;
    for (const [filePath, bytes] of catalog.files) {
      etags.set(filePath, `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"`);
      fileBytes += bytes.length;
    }
    const ready: PortalReady = {
      origin,
      catalogUrl: `${origin}/api/3/action/package_search`,
      fileUrls: [...catalog.files.keys()].map((filePath) => `${origin}${filePath}`),
      fileBytes,
    };
    process.send!(ready);
  });
});
