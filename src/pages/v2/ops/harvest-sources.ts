import type { APIRoute } from 'astro';
import { getArchive } from '../../../lib/server/archive.ts';
import { createHarvestSource, listHarvestSources, newHarvestSourceInput } from '../../../lib/server/harvest/manage.ts';
import { registrationRules } from '../../../lib/server/harvest/sources.ts';
import { handle, json } from '../../../lib/server/http/errors.ts';
import { parseJson } from '../../../lib/server/http/input.ts';
import { requireModerator } from '../../../lib/server/moderation/index.ts';

/** GET /v2/ops/harvest-sources: the harvest sources, newest first, with their last run and any run queued or running. */
export const GET: APIRoute = ({ locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    return json({ code: 200, body: await listHarvestSources(db) });
  });

/** POST /v2/ops/harvest-sources `{ url, kind, name?, defaultCategoryId?, interval?, themeMap?, defaultLanguage?, defaultCountry? }`: registers a catalogue to harvest. */
export const POST: APIRoute = ({ request, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db, config } = await getArchive();
    const input = await parseJson(request, newHarvestSourceInput);
    return json({ code: 201, body: await createHarvestSource(db, input, registrationRules(config)) }, 201);
  });
