/** Everything /dashboard shows, loaded in one place. */
import { LIMITS } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { GROUP_ENTITY_LIST } from './dimensions.ts';
import { categoryChoices, largestGroupsOf, type CategoryChoice, type GroupItem } from './groups.ts';
import { latestImports, type ImportSummary } from './imports.ts';
import { countDisappeared } from './disappeared.ts';
import {
  archiveTotals,
  contributorRanking,
  countRecordsByFormat,
  type ArchiveTotals,
  type Contributor,
  type FormatCount,
} from './stats.ts';

export interface Dashboard {
  totals: ArchiveTotals;
  formats: FormatCount[];
  imports: ImportSummary[];
  contributors: Contributor[];
  /** The overview tabs: the groups with the most records (SPEC §9: 5 per card). */
  groups: Record<GroupEntity, GroupItem[]>;
  /** The upload wizard's category choices ('Subir Archivo'). */
  categories: CategoryChoice[];
  /** Documents whose source disappeared while the archive keeps their copy (/desaparecidos). */
  disappeared: number;
}

export async function loadDashboard(db: Db): Promise<Dashboard> {
  // One PGlite connection runs these one after another anyway; on PostgreSQL they overlap.
  const [totals, formats, imports, contributors, groups, categories, disappeared] = await Promise.all([
    archiveTotals(db),
    countRecordsByFormat(db),
    latestImports(db),
    contributorRanking(db, 10),
    largestGroupsOf(db, GROUP_ENTITY_LIST, LIMITS.overviewTabs),
    categoryChoices(db),
    countDisappeared(db),
  ]);
  return { totals, formats, imports, contributors, groups, categories, disappeared };
}
