/** The REST read of a record's versions; `src/pages/v2/open-data/alexandrias/[id]/versions.ts` routes to it. */
import type { ApiRequest } from '../api/endpoints.ts';
import { envelope } from '../api/rest.ts';
import { HttpError } from '../http/errors.ts';
import { parseId } from '../queries/pages.ts';
import { recordVersionsOf } from '../queries/versions.ts';

/**
 * GET /v2/open-data/alexandrias/{id}/versions: `{ code: 200, body }`, `body` a JSON string of the
 * record's versions, oldest first: `[{ number, cid, sha256, size, type, capturedAt, url, capture:
 * { finalUrl, status, etag, lastModified } | null, diff, diffStatus }]`, each file served by CID
 * through the gateway. A record never captured answers `[]`; an unknown record, 404.
 */
export async function alexandriaVersions({ db, origin }: Pick<ApiRequest, 'db' | 'origin'>, rawId: string | undefined): Promise<Response> {
  const id = parseId(rawId);
  const versions = id === null ? null : await recordVersionsOf(db, id);
  if (versions === null) throw new HttpError(404, 'Ese registro no existe.');
  return envelope(
    versions.map((version) => ({
      number: version.number,
      cid: version.cid,
      sha256: version.sha256,
      size: version.size,
      type: version.type,
      capturedAt: version.capturedAt.toISOString(),
      url: `${origin}/ipfs/${version.cid}`,
      capture: version.capture,
      diff: version.diff,
      diffStatus: version.diffStatus,
    })),
  );
}
