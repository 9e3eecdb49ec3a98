/** The REST read of a record's sheet previews; `src/pages/v2/open-data/alexandrias/[id]/sheets.ts` routes to it. */
import type { ApiRequest } from '../api/endpoints.ts';
import { envelope } from '../api/rest.ts';
import { HttpError } from '../http/errors.ts';
import { parseId } from '../queries/pages.ts';
import { recordSheetPreviews } from '../queries/sheets.ts';

/**
 * GET /v2/open-data/alexandrias/{id}/sheets: `{ code: 200, body }`, `body` a JSON string of the
 * record's sheets `[{ index, name, cid, rows, columns, truncated, url }]`, each CSV served by CID
 * through the gateway. A record without previews (not a spreadsheet, or not extracted yet)
 * answers `[]`; an unknown record, 404.
 */
export async function alexandriaSheets({ db, origin }: Pick<ApiRequest, 'db' | 'origin'>, rawId: string | undefined): Promise<Response> {
  const id = parseId(rawId);
  const sheets = id === null ? null : await recordSheetPreviews(db, id);
  if (sheets === null) throw new HttpError(404, 'Ese registro no existe.');
  return envelope(sheets.map((sheet) => ({ ...sheet, url: `${origin}/ipfs/${sheet.cid}` })));
}
