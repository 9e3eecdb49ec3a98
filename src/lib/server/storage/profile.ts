/** The store's CID profile lives with the domain, so the browser verifies files with the very same parameters. */
export * from '../../domain/cid-profile.ts';
