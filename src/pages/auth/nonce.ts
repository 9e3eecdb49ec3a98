import type { APIRoute } from 'astro';
import { nonce } from '../../lib/server/auth/index.ts';
import { authContext } from '../../lib/server/auth/context.ts';
import { handle, json } from '../../lib/server/http/errors.ts';

/** GET /auth/nonce: a single-use nonce for a Sign-In with Ethereum message. */
export const GET: APIRoute = (context) =>
  handle(async () => {
    const issued = await nonce(await authContext(context));
    return json({ nonce: issued.nonce, expiresAt: issued.expiresAt.toISOString() });
  });
