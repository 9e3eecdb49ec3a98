/**
 * Where a job stands. `queued` waits for its `run_after`; `running` is held by one worker under a
 * lease; `done` and `failed` are final (a failed job keeps its reason in `last_error`).
 */
export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];
