import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../lib/server/archive.ts';
import { retryCapture } from '../../../../../lib/server/harvest/manage.ts';
import { HttpError, handle, json } from '../../../../../lib/server/http/errors.ts';
import { requireModerator } from '../../../../../lib/server/moderation/index.ts';
import { parseId } from '../../../../../lib/server/queries/index.ts';

/** POST /v2/ops/jobs/{id}/retry: a failed capture back in the queue with all its attempts. */
export const POST: APIRoute = ({ params, locals }) =>
  handle(async () => {
    requireModerator(locals);
    const { db } = await getArchive();
    const id = parseId(params.id);
    if (id === null) throw new HttpError(404, 'Ese trabajo no existe.');
    return json({ code: 200, body: await retryCapture(db, id) });
  });
