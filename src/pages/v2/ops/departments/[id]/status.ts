import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../lib/server/archive.ts';
import { HttpError, handle, json } from '../../../../../lib/server/http/errors.ts';
import { parseJson } from '../../../../../lib/server/http/input.ts';
import { changeDepartmentStatus, departmentStatusChange, requireModerator } from '../../../../../lib/server/moderation/index.ts';
import { parseId } from '../../../../../lib/server/queries/index.ts';

/**
 * POST /v2/ops/departments/{id}/status `{ status, reason }`: a moderator accepts or refuses an
 * institution a contributor created (issue #16), as sources are reviewed.
 */
export const POST: APIRoute = ({ params, request, locals }) =>
  handle(async () => {
    const actor = requireModerator(locals);
    const { db } = await getArchive();
    const id = parseId(params.id);
    if (id === null) throw new HttpError(404, 'Esa institución no existe.');
    const change = await parseJson(request, departmentStatusChange);
    return json({ code: 200, body: await changeDepartmentStatus(db, { id, ...change, actor }) });
  });
