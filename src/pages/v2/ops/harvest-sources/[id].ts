import type { APIRoute } from 'astro';
import { getArchive } from '../../../../lib/server/archive.ts';
import { deleteHarvestSource, getHarvestSource, harvestSourceEdit, harvestSourceIdOf, updateHarvestSource } from '../../../../lib/server/harvest/manage.ts';
import { registrationRules } from '../../../../lib/server/harvest/sources.ts';
import { handle, json } from '../../../../lib/server/http/errors.ts';
import { parseJson } from '../../../../lib/server/http/input.ts';
import { requireModerator } from '../../../../lib/server/moderation/index.ts';

/**
 * GET /v2/ops/harvest-sources/{id}: one source with its last run, any run queued or running, and
 * its capture queue. The moderators' page polls it while a run is under way.
 */
export const GET: APIRoute = ({ params, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    return json({ code: 200, body: await getHarvestSource(db, harvestSourceIdOf(params.id)) });
  });

/** PATCH /v2/ops/harvest-sources/{id} `{ name?, url?, defaultCategoryId?, interval?, themeMap?, defaultLanguage?, defaultCountry?, paused? }`. */
export const PATCH: APIRoute = ({ params, request, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db, config } = await getArchive();
    const id = harvestSourceIdOf(params.id);
    const edit = await parseJson(request, harvestSourceEdit);
    return json({ code: 200, body: await updateHarvestSource(db, id, edit, registrationRules(config)) });
  });

/** DELETE /v2/ops/harvest-sources/{id}: a source that never brought a record, with its runs (`deleteHarvestSource`). */
export const DELETE: APIRoute = ({ params, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    const id = harvestSourceIdOf(params.id);
    await deleteHarvestSource(db, id);
    return json({ code: 200, body: { id, deleted: true } });
  });
