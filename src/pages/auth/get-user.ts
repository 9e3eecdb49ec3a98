import type { APIRoute } from 'astro';
import { currentUser } from '../../lib/server/auth/index.ts';
import { getArchive } from '../../lib/server/archive.ts';
import { handle, json } from '../../lib/server/http/errors.ts';
import { isModerator } from '../../lib/server/moderation/index.ts';

/**
 * GET /auth/get-user: the user of the session in `Authorization: Bearer` or the cookie, and
 * whether they moderate (the header then links the review queue); 401 otherwise.
 */
export const GET: APIRoute = ({ request, cookies }) =>
  handle(async () => {
    const { db, config } = await getArchive();
    const user = await currentUser({ db, request, cookies });
    return json({ user, moderator: isModerator(user, config.moderators) });
  });
