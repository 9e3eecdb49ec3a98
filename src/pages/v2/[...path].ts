/**
 * Any other address under /v2/: a program calling the API gets a JSON 404 it can read, in the
 * envelope of every API error, rather than the HTML page a browser gets. Routes that exist are
 * matched before this one (Astro ranks a rest parameter last).
 */
import type { APIRoute } from 'astro';
import { rest } from '../../lib/server/api/rest.ts';
import { HttpError } from '../../lib/server/http/errors.ts';

export const ALL: APIRoute = ({ url }) =>
  rest(async () => {
    throw new HttpError(404, `La API del archivo no tiene la ruta ${url.pathname}: sus rutas están descritas en /openapi.json y explicadas en /docs.`);
  });
