/**
 * The archive's reads, written once: pages, the REST API and GraphQL resolvers all call these.
 * Each takes the drizzle database first, so tests run them against PGlite and PostgreSQL alike.
 *
 * By concept: the group dimensions (`dimensions.ts`) and groups (`groups.ts`); records (`records.ts`,
 * filtered by the one `RecordFilter` of `record-filter.ts`, found by `find.ts` and `search.ts`);
 * imports (`imports.ts`); counts (`stats.ts`, and the API's groupings in `connections.ts`); what
 * moderators read (`moderation.ts`, `inbox.ts`); and the pages' loaders (`pages.ts`, `dashboard.ts`).
 */
export * from './dimensions.ts';
export * from './groups.ts';
export * from './imports.ts';
export * from './paging.ts';
export * from './record-filter.ts';
export * from './records.ts';
export * from './search.ts';
export * from './stats.ts';
export * from './dashboard.ts';
export * from './pages.ts';
export * from './sitemap.ts';
export * from './find.ts';
export * from './moderation.ts';
export * from './inbox.ts';
export * from './notifications.ts';
