import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { serveFile } from '../../lib/server/gateway/index.ts';
import { handle } from '../../lib/server/http/errors.ts';

/** GET /ipfs/{cid}[?download=true&filename=…]: a stored file, verified as it streams. */
const serve: APIRoute = ({ params, request, url }) =>
  handle(async () => {
    const { db, store } = await getArchive();
    const fileName = url.searchParams.get('filename');
    return serveFile(db, store, {
      cid: params.cid ?? '',
      method: request.method,
      range: request.headers.get('range'),
      ifNoneMatch: request.headers.get('if-none-match'),
      download: url.searchParams.get('download') === 'true',
      fileName: fileName ? fileName.slice(0, 200) : null,
    });
  });

export const GET = serve;
export const HEAD = serve;
