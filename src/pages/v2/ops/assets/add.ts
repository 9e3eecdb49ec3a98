import type { APIRoute } from 'astro';
import { getArchive } from '../../../../lib/server/archive.ts';
import { handle, json } from '../../../../lib/server/http/errors.ts';
import { addAsset } from '../../../../lib/server/uploads/index.ts';

/**
 * POST /v2/ops/assets/add (SPEC §7): multipart `asset` (JSON), `nonce`, `signature`, then the files
 * `fileUploaded` and `proof`. Answers `{ code: 200, body: { assetCID, assetId } }`.
 */
export const POST: APIRoute = ({ request, locals }) =>
  handle(async () => {
    const { db, store, staging, config, pinning } = await getArchive();
    const added = await addAsset({ db, store, staging, pinning, config, user: locals.user, clientAddress: locals.clientAddress, request });
    return json({ code: 200, body: added });
  });
