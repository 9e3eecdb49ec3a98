-- The job queue (issue #18, `lib/server/jobs`). A worker holds many more jobs than it runs: most
-- wait in it for their host's turn. When it dies, those that had not begun get their attempt back
-- (`lease.ts`, `reclaimExpired`): `work_began` says whether the current attempt began, as the
-- worker reports in batches. `attempts` can then go down and no longer tells one hold of a job from
-- the next, so `reclaims` (times a job was taken back from a dead worker, only ever growing) is part
-- of what identifies a lease; a job with reclaims reports its start before its handler runs.
ALTER TABLE "jobs" ADD COLUMN "work_began" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "reclaims" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Done jobs are pruned after a retention (`jobs/prune.ts`): each deleted job sets its import's
-- `job_id` to null (the foreign key), which without this index reads the whole imports table.
CREATE INDEX "imports_job_id_idx" ON "imports" USING btree ("job_id") WHERE "job_id" IS NOT NULL;--> statement-breakpoint
-- The prune reads the oldest done jobs first; the kinds it keeps forever are never scanned.
CREATE INDEX "jobs_done_finished_idx" ON "jobs" USING btree ("finished_at") WHERE "jobs"."status" = 'done';
