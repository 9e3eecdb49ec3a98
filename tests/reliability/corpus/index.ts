/** The whole hostile corpus, in the order it runs: odd hosts and reads first, then the API, then uploads. */
import { API_CASES } from './api.ts';
import { HOST_CASES } from './hosts.ts';
import { readCases } from './reads.ts';
import type { HostileCase } from './types.ts';
import { UPLOAD_CASES } from './uploads.ts';

export const CORPUS: HostileCase[] = [...HOST_CASES, ...(await readCases()), ...API_CASES, ...UPLOAD_CASES];
