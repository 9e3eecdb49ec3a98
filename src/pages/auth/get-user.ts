import type { APIRoute } from 'astro';
import { currentUser } from '../../lib/server/auth/index.ts';
import { getArchive } from '../../lib/server/archive.ts';
import { handle, json } from '../../lib/server/http/errors.ts';

/** GET /auth/get-user: the user of the session in `Authorization: Bearer` or the cookie; 401 otherwise. */
export const GET: APIRoute = ({ request, cookies }) =>
  handle(async () => {
    const { db } = await getArchive();
    return json({ user: await currentUser({ db, request, cookies }) });
  });
