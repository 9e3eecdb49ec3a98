import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { readGatewayRequest, serveFile } from '../../lib/server/gateway/index.ts';
import { handle } from '../../lib/server/http/errors.ts';

/**
 * GET /ipfs/{cid}[?download=true&filename=… | ?download=name]: a stored file, verified as it
 * streams; with `?format=car` or `Accept: application/vnd.ipld.car`, its DAG as a CAR. With
 * `ARCHIVE_CONTENT_ORIGIN` set, files render inline only on that origin (see the gateway).
 */
const serve: APIRoute = ({ params, request, url }) =>
  handle(async () => {
    const { db, store, config } = await getArchive();
    return serveFile(db, store, readGatewayRequest(params.cid ?? '', request, url), { contentOrigin: config.contentOrigin });
  });

export const GET = serve;
export const HEAD = serve;
