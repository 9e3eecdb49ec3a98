/**
 * `GET /v2/health`: whether this server can do its work (it reaches its database, its instance's
 * lease holds, it can write to its block store: `Archive.unready`), for a load balancer's health
 * check (still «ok» with `avisos`: what works but will surprise, such as servers on different block
 * stores with no gateways between them); and for `npm start`, which asks it once when it starts listening so that the database is
 * opened and the background work (job queue, harvest schedule) begins without waiting for a visitor.
 */
import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });

export const GET: APIRoute = async () => {
  try {
    const archive = await getArchive();
    const problem = await archive.unready();
    if (problem) return json(503, { estado: 'error', message: problem });
    const warnings = await archive.warnings();
    return json(200, { estado: 'ok', trabajador: archive.config.worker.enabled, ...(warnings.length > 0 ? { avisos: warnings } : {}) });
  } catch (error) {
    console.error('Comprobación de salud:', error);
    return json(503, { estado: 'error', message: 'El archivo no alcanza su base de datos.' });
  }
};
