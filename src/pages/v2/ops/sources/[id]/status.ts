import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../lib/server/archive.ts';
import { HttpError, handle, json } from '../../../../../lib/server/http/errors.ts';
import { parseJson } from '../../../../../lib/server/http/input.ts';
import { changeSourceStatus, requireModerator, sourceStatusChange } from '../../../../../lib/server/moderation/index.ts';
import { parseId } from '../../../../../lib/server/queries/index.ts';

/** POST /v2/ops/sources/{id}/status `{ status, reason }`: a moderator accepts or refuses a source. */
export const POST: APIRoute = ({ params, request, locals }) =>
  handle(async () => {
    const actor = requireModerator(locals);
    const { db } = await getArchive();
    const id = parseId(params.id);
    if (id === null) throw new HttpError(404, 'Esa fuente no existe.');
    const change = await parseJson(request, sourceStatusChange);
    return json({ code: 200, body: await changeSourceStatus(db, { id, ...change, actor }) });
  });
