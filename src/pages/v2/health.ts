/**
 * `GET /v2/health`: whether this server reaches its database, for a load balancer's health check
 * and for `npm start`, which asks it once when it starts listening so that the database is opened
 * and the background work (job queue, harvest schedule) begins without waiting for a visitor.
 */
import type { APIRoute } from 'astro';
import { sql } from 'drizzle-orm';
import { getArchive } from '../../lib/server/archive.ts';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });

export const GET: APIRoute = async () => {
  try {
    const archive = await getArchive();
    await archive.db.execute(sql`select 1`);
    return json(200, { estado: 'ok', trabajador: archive.config.worker.enabled });
  } catch (error) {
    console.error('Comprobación de salud:', error);
    return json(503, { estado: 'error', message: 'El archivo no alcanza su base de datos.' });
  }
};
