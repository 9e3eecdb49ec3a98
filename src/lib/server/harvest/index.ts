/**
 * Harvesting public catalogues (issue #18): `catalogs/` reads them, `map.ts` turns a dataset into
 * records, `publishers.ts` finds a publisher's department, `run.ts` runs one harvest as an Import,
 * and `capture-job.ts` is the queue's `capture` job that fetches and keeps each file.
 * `sources.ts` registers a catalogue (never one at the archive's own address, `capture/own-address.ts`), and
 * `run-job.ts` makes a run a job of the queue (asked for, scheduled, retried).
 */
export { CAPTURE_JOB, captureHandler, type CaptureContext, type CaptureJobPayload } from './capture-job.ts';
export { catalogPageFetcher, MAX_CATALOG_PAGE_BYTES } from './fetch-page.ts';
export { chooseCategory, mapDataset, type MappedRecord } from './map.ts';
export { PublisherMatcher, websiteKey } from './publishers.ts';
export { documentsRead, emptyCounts, runHarvest, RUN_ERROR_KEY, WRITE_SLICE, type HarvestRunReport, type RunHarvestOptions } from './run.ts';
export { registerHarvestSource, registrationRules, type NewHarvestSource, type RegistrationRules } from './sources.ts';
export { HARVEST_JOB, harvestRunHandler, queueDueHarvests, queueHarvestRun, type HarvestJobPayload } from './run-job.ts';
