/**
 * Which sources and institutions the public sees (DECISIONS 'Contribution', issue #16): those a
 * moderator accepted. A contributor's new source or institution waits `under_review` and a
 * refused one stays `refused`; neither is listed, searched, counted, published in DCAT or the
 * exports, nor named on a record's page. Their records stay public (with their own status): only
 * the entity's name and link are withheld, so an unreviewed name or URL is never shown.
 *
 * Every public read takes its condition from here, so the rule is written once: a list filters on
 * its dimension's `visible` condition (`dimensions.ts`, which takes it from here), and a record's
 * join to its source or institution adds `publicSource` / `publicDepartment` to the ON clause,
 * which makes a withheld entity read as none.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { alexandrias, departments, sources } from '../db/schema.ts';

/** The one review status the public sees. */
export const PUBLIC_REVIEW_STATUS = 'on_line' as const;

/** A source made for a registered catalogue is listed once that catalogue brings a record (`sources.awaitingHarvest`). */
export const publicSource: SQL = and(eq(sources.reviewStatus, PUBLIC_REVIEW_STATUS), eq(sources.awaitingHarvest, false))!;
export const publicDepartment: SQL = eq(departments.reviewStatus, PUBLIC_REVIEW_STATUS);

/** Join conditions of a record to its source and institution, withheld ones reading as none. */
export const recordSourceJoin: SQL = and(eq(alexandrias.sourceId, sources.id), publicSource)!;
export const recordDepartmentJoin: SQL = and(eq(alexandrias.departmentId, departments.id), publicDepartment)!;

/** Whether a record's source or institution is waiting for review: its page says so, without the name. */
export const sourceUnderReview = sql<boolean>`exists (select 1 from ${sources} where ${sources.id} = ${alexandrias.sourceId} and ${sources.reviewStatus} = 'under_review')`;
export const departmentUnderReview = sql<boolean>`exists (select 1 from ${departments} where ${departments.id} = ${alexandrias.departmentId} and ${departments.reviewStatus} = 'under_review')`;
