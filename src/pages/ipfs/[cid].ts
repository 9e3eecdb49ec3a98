import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { readGatewayRequest, serveFile } from '../../lib/server/gateway/index.ts';
import { handle } from '../../lib/server/http/errors.ts';

/**
 * GET /ipfs/{cid}[?download=true&filename=… | ?download=name]: a stored file, verified as it
 * streams; with `?format=car` or `Accept: application/vnd.ipld.car`, its DAG as a CAR.
 */
const serve: APIRoute = ({ params, request, url }) =>
  handle(async () => {
    const { db, store } = await getArchive();
    return serveFile(db, store, readGatewayRequest(params.cid ?? '', request, url));
  });

export const GET = serve;
export const HEAD = serve;
