import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { readGatewayRequest, serveFile } from '../../lib/server/gateway/index.ts';
import { handle } from '../../lib/server/http/errors.ts';
import { refusalAsPage } from '../../lib/server/http/refusal-page.ts';

/**
 * GET /ipfs/{cid}[?download=true&filename=… | ?download=name]: a stored file, verified as it
 * streams; with `?format=car` or `Accept: application/vnd.ipld.car`, its DAG as a CAR. With
 * `ARCHIVE_CONTENT_ORIGIN` set, files render inline only on that origin (see the gateway).
 */
const serve: APIRoute = async ({ params, request, url, locals }) => {
  const answer = await handle(async () => {
    const { db, store, config } = await getArchive();
    return serveFile(db, store, readGatewayRequest(params.cid ?? '', request, url), { contentOrigin: config.contentOrigin });
  });
  // A person who followed or pasted a link to a file the archive lacks or withdrew reads why on a
  // page; a program asking for JSON, or for the file itself, gets the API's answer. The page's
  // links lead to the configured address (`locals.origin`, never the request's).
  return refusalAsPage(answer, request, locals.origin ?? url.origin, GATEWAY_REFUSAL_TITLES[answer.status] ?? 'El archivo no se puede servir');
};

/** How the page of a gateway refusal is headed, by status. */
const GATEWAY_REFUSAL_TITLES: Readonly<Record<number, string>> = {
  400: 'La dirección del archivo no es válida',
  404: 'Archivo no encontrado',
  410: 'Archivo retirado',
};

export const GET = serve;
export const HEAD = serve;
