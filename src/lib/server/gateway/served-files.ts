/**
 * Which files the archive serves, written once for every query that needs it: a file is a
 * record's document, a proof, a sheet extracted from a spreadsheet or an earlier version, and it is
 * served while some record holding it is not blocked (a withdrawn file is one every holder of
 * which is blocked). The gateway's withdrawals, the read-through's admission and the remote pins
 * all ask this, so a fifth kind of file is added here and nowhere else.
 */
import { sql, type SQL } from 'drizzle-orm';
import { aletheias, alexandrias, recordVersions, sheetPreviews } from '../db/schema.ts';

/** Every catalogue file (`file_cid`) with the record holding it (`record_id`, `record_cid`) and that record's `status`. */
export const catalogueFiles = sql`
  select ${alexandrias.cid} as file_cid, ${alexandrias.id} as record_id, ${alexandrias.cid} as record_cid, ${alexandrias.status} as status
    from ${alexandrias} where ${alexandrias.cid} is not null
  union all
  select ${aletheias.cid}, ${alexandrias.id}, ${alexandrias.cid}, ${alexandrias.status}
    from ${aletheias} join ${alexandrias} on ${alexandrias.id} = ${aletheias.alexandriaId}
  union all
  select ${sheetPreviews.cid}, ${alexandrias.id}, ${alexandrias.cid}, ${alexandrias.status}
    from ${sheetPreviews} join ${alexandrias} on ${alexandrias.id} = ${sheetPreviews.alexandriaId}
  union all
  select ${recordVersions.cid}, ${alexandrias.id}, ${alexandrias.cid}, ${alexandrias.status}
    from ${recordVersions} join ${alexandrias} on ${alexandrias.id} = ${recordVersions.alexandriaId}`;

/**
 * A condition true when some record that is not blocked holds the file `cid` (an SQL expression:
 * a bound value or a column). Four indexed lookups, by the CID indexes of migration 0015.
 */
export function servedFile(cid: SQL): SQL {
  return sql`(exists (select 1 from ${alexandrias} x where x.cid = ${cid} and x.status <> 'blocked')
    or exists (select 1 from ${aletheias} p join ${alexandrias} x on x.id = p.alexandria_id where p.cid = ${cid} and x.status <> 'blocked')
    or exists (select 1 from ${sheetPreviews} s join ${alexandrias} x on x.id = s.alexandria_id where s.cid = ${cid} and x.status <> 'blocked')
    or exists (select 1 from ${recordVersions} v join ${alexandrias} x on x.id = v.alexandria_id where v.cid = ${cid} and x.status <> 'blocked'))`;
}
