/** `/export/catalogo.csv`: the catalogue's metadata as CSV, one row per published record (cached file). */
import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { exportResponse } from '../../lib/server/export/catalog-export.ts';
import { handle } from '../../lib/server/http/errors.ts';

export const prerender = false;

export const GET: APIRoute = ({ locals, request }) =>
  handle(async () => {
    const { db, config } = await getArchive();
    return exportResponse({ db, dataDir: config.dataDir, origin: locals.origin, format: 'csv', request });
  });
