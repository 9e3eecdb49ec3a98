import type { APIRoute } from 'astro';
import { getArchive } from '../../../../lib/server/archive.ts';
import { getHarvestSource, harvestSourceEdit, updateHarvestSource } from '../../../../lib/server/harvest/manage.ts';
import { registrationRules } from '../../../../lib/server/harvest/sources.ts';
import { HttpError, handle, json } from '../../../../lib/server/http/errors.ts';
import { parseJson } from '../../../../lib/server/http/input.ts';
import { requireModerator } from '../../../../lib/server/moderation/index.ts';
import { parseId } from '../../../../lib/server/queries/index.ts';

function sourceId(value: string | undefined): number {
  const id = parseId(value);
  if (id === null) throw new HttpError(404, 'Esa fuente de cosecha no existe.');
  return id;
}

/**
 * GET /v2/ops/harvest-sources/{id}: one source with its last run, any run queued or running, and
 * its capture queue. The moderators' page polls it while a run is under way.
 */
export const GET: APIRoute = ({ params, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    return json({ code: 200, body: await getHarvestSource(db, sourceId(params.id)) });
  });

/** PATCH /v2/ops/harvest-sources/{id} `{ name?, url?, defaultCategoryId?, interval?, themeMap?, paused? }`. */
export const PATCH: APIRoute = ({ params, request, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db, config } = await getArchive();
    const id = sourceId(params.id);
    const edit = await parseJson(request, harvestSourceEdit);
    return json({ code: 200, body: await updateHarvestSource(db, id, edit, registrationRules(config)) });
  });
