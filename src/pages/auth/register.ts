import type { APIRoute } from 'astro';
import { register } from '../../lib/server/auth/index.ts';
import { authContext } from '../../lib/server/auth/context.ts';
import { handle, json } from '../../lib/server/http/errors.ts';

/** POST /auth/register: account, firstname, lastname and provider, under the same signed proof as login. */
export const POST: APIRoute = (context) => handle(async () => json(await register(await authContext(context))));
