import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../../lib/server/archive.ts';
import { checkSourceFilesNow, harvestSourceIdOf } from '../../../../../../lib/server/harvest/manage.ts';
import { handle, json } from '../../../../../../lib/server/http/errors.ts';
import { requireModerator } from '../../../../../../lib/server/moderation/index.ts';

/** POST /v2/ops/harvest-sources/{id}/captures/check: every captured file the catalogue still lists, checked at its origin now. */
export const POST: APIRoute = ({ params, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    const id = harvestSourceIdOf(params.id);
    return json({ code: 200, body: await checkSourceFilesNow(db, id) });
  });
