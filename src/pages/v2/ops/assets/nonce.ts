import type { APIRoute } from 'astro';
import { getArchive } from '../../../../lib/server/archive.ts';
import { sessionToken } from '../../../../lib/server/auth/index.ts';
import { findSessionUser } from '../../../../lib/server/auth/sessions.ts';
import { handle, json } from '../../../../lib/server/http/errors.ts';
import { uploadNonce } from '../../../../lib/server/uploads/index.ts';

/** POST /v2/ops/assets/nonce: a single-use nonce for the next upload's confirmation message. */
export const POST: APIRoute = ({ request, cookies, locals }) =>
  handle(async () => {
    const { db } = await getArchive();
    const user = await findSessionUser(db, sessionToken(request, cookies));
    const { nonce, expiresAt } = await uploadNonce(db, user, locals.clientAddress);
    return json({ code: 200, body: { nonce, expiresAt: expiresAt.toISOString() } });
  });
