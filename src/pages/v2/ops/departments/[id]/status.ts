import type { APIRoute } from 'astro';
import { getArchive } from '../../../../../lib/server/archive.ts';
import { parseJson, sessionToken } from '../../../../../lib/server/auth/index.ts';
import { findSessionUser } from '../../../../../lib/server/auth/sessions.ts';
import { HttpError, handle, json } from '../../../../../lib/server/http/errors.ts';
import { changeDepartmentStatus, departmentStatusChange, requireModerator } from '../../../../../lib/server/moderation/index.ts';
import { parseId } from '../../../../../lib/server/queries/index.ts';

/**
 * POST /v2/ops/departments/{id}/status `{ status, reason }`: a moderator accepts or refuses an
 * institution a contributor created (issue #16), as sources are reviewed.
 */
export const POST: APIRoute = ({ params, request, cookies }) =>
  handle(async () => {
    const { db, config } = await getArchive();
    const actor = requireModerator(await findSessionUser(db, sessionToken(request, cookies)), config.moderators);
    const id = parseId(params.id);
    if (id === null) throw new HttpError(404, 'Esa institución no existe.');
    const change = await parseJson(request, departmentStatusChange);
    return json({ code: 200, body: await changeDepartmentStatus(db, { id, ...change, actor }) });
  });
