/** Everything /dashboard shows, loaded in one place. */
import type { Db } from '../db/index.ts';
import { latestImports, type ImportSummary } from './imports.ts';
import { archiveTotals, countRecordsByFormat, type ArchiveTotals, type FormatCount } from './stats.ts';

export interface Dashboard {
  totals: ArchiveTotals;
  formats: FormatCount[];
  imports: ImportSummary[];
}

export async function loadDashboard(db: Db): Promise<Dashboard> {
  const [totals, formats, imports] = await Promise.all([archiveTotals(db), countRecordsByFormat(db), latestImports(db)]);
  return { totals, formats, imports };
}
