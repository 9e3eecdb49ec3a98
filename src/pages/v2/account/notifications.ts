import type { APIRoute } from 'astro';
import { requireUser } from '../../../lib/server/auth/access.ts';
import { getArchive } from '../../../lib/server/archive.ts';
import { handle, json } from '../../../lib/server/http/errors.ts';
import { notificationsOf } from '../../../lib/server/queries/index.ts';

/**
 * GET /v2/account/notifications: the moderators' latest decisions on the uploads of the session's
 * wallet (`Authorization: Bearer` or the cookie), for the header's dropdown; 401 signed out.
 * Private to its reader, never cached.
 */
export const GET: APIRoute = ({ locals }) =>
  handle(async () => {
    const user = requireUser(locals);
    const { db } = await getArchive();
    const response = json({ code: 200, body: await notificationsOf(db, user.account) });
    response.headers.set('Cache-Control', 'private, no-store');
    return response;
  });
