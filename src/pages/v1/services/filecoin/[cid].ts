import { filecoinStatus } from '../../../../lib/server/api/endpoints.ts';
import { publicRead } from '../../../../lib/server/api/route.ts';
import { getArchive } from '../../../../lib/server/archive.ts';
import { refreshPins } from '../../../../lib/server/pinning/index.ts';

/**
 * GET /v1/services/filecoin/{cid}: a CID's pins and deals. Pins still under way at a remote
 * service are asked about first (at most every 30 s per pin, with a short timeout), so the
 * answer follows the service without a background job.
 */
export const { GET, OPTIONS } = publicRead(async (request, { cid = '' }) => {
  const { pinning } = await getArchive();
  await refreshPins(request.db, pinning, cid);
  return filecoinStatus(request, cid);
});
