-- Whether a server instance runs the job queue's worker (harvests, captures). `npm run harvest`
-- leaves its run to the servers up on the database only when one of them will take it: servers
-- started with ARCHIVE_WORKER=false, and other commands, hold a lease too but never do.
ALTER TABLE server_instances ADD COLUMN IF NOT EXISTS worker boolean NOT NULL DEFAULT false;
