/**
 * The archive's reads, written once: pages, the REST API and GraphQL resolvers all call these.
 * Each takes the drizzle database first, so tests run them against PGlite and PostgreSQL alike.
 */
export * from './groups.ts';
export * from './imports.ts';
export * from './paging.ts';
export * from './records.ts';
export * from './search.ts';
export * from './stats.ts';
export * from './dashboard.ts';
export * from './pages.ts';
export * from './sitemap.ts';
export * from './find.ts';
