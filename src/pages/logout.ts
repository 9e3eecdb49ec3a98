import type { APIRoute } from 'astro';
import { logout } from '../lib/server/auth/index.ts';
import { getArchive } from '../lib/server/archive.ts';

/** /logout: ends the session on the server too, then goes to the sign-in page (SPEC §2). */
const end: APIRoute = async ({ request, cookies, redirect }) => {
  const { db } = await getArchive();
  await logout({ db, request, cookies });
  return redirect('/auth/login?salida=1', 303);
};
export const GET = end;
export const POST = end;
