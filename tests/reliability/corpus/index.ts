/** The whole hostile corpus, in the order it runs: reads first, then the API, then uploads. */
import { API_CASES } from './api.ts';
import { readCases } from './reads.ts';
import type { HostileCase } from './types.ts';
import { UPLOAD_CASES } from './uploads.ts';

export const CORPUS: HostileCase[] = [...(await readCases()), ...API_CASES, ...UPLOAD_CASES];
