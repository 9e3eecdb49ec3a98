import type { APIRoute } from 'astro';
import { getArchive } from '../../../../lib/server/archive.ts';
import { handle, json } from '../../../../lib/server/http/errors.ts';
import { uploadNonce } from '../../../../lib/server/uploads/index.ts';

/** POST /v2/ops/assets/nonce: a single-use nonce for the next upload's confirmation message. */
export const POST: APIRoute = ({ locals }) =>
  handle(async () => {
    const { db } = await getArchive();
    const { nonce, expiresAt } = await uploadNonce(db, locals.user, locals.clientAddress);
    return json({ code: 200, body: { nonce, expiresAt: expiresAt.toISOString() } });
  });
