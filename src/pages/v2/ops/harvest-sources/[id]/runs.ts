import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../lib/server/archive.ts';
import { harvestRuns, harvestSourceIdOf } from '../../../../../lib/server/harvest/manage.ts';
import { handle, json } from '../../../../../lib/server/http/errors.ts';
import { requireModerator } from '../../../../../lib/server/moderation/index.ts';

/** GET /v2/ops/harvest-sources/{id}/runs: its last 20 runs, newest first, with counts and failures. */
export const GET: APIRoute = ({ params, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    const id = harvestSourceIdOf(params.id);
    return json({ code: 200, body: await harvestRuns(db, id) });
  });
