import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../lib/server/archive.ts';
import { harvestSourceIdOf, requestHarvestRun } from '../../../../../lib/server/harvest/manage.ts';
import { handle, json } from '../../../../../lib/server/http/errors.ts';
import { requireModerator } from '../../../../../lib/server/moderation/index.ts';

/**
 * POST /v2/ops/harvest-sources/{id}/run: "Cosechar ahora", a run queued for the moderator (paused
 * or not). 202 with the new job; 200 with the one already queued or running (`created: false`).
 */
export const POST: APIRoute = ({ params, locals }) =>
  handle(async () => {
    const actor = requireModerator(locals);
    const { db } = await getArchive();
    const id = harvestSourceIdOf(params.id);
    const queued = await requestHarvestRun(db, id, actor);
    const status = queued.created ? 202 : 200;
    return json({ code: status, body: queued }, status);
  });
