import type { APIRoute } from 'astro';
import { requireUser } from '../../lib/server/auth/access.ts';
import { handle, json } from '../../lib/server/http/errors.ts';

/**
 * GET /auth/get-user: the user of the session in `Authorization: Bearer` or the cookie, and
 * whether they moderate (the header then links the review queue); 401 otherwise.
 */
export const GET: APIRoute = ({ locals }) => handle(async () => json({ user: requireUser(locals), moderator: locals.moderator }));
