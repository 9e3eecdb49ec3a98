-- A run that finds a large part of its catalogue gone withdraws none of it on its own word (a
-- portal's search index half rebuilt lists a fraction of its datasets): it names itself here, and
-- only what a later complete run does not list either, missing from both readings, is withdrawn.
-- A plain id, not a foreign key: imports already point at harvest_sources, and a key back would
-- make the two tables one cycle (a TRUNCATE … CASCADE of the queue's jobs emptied the sources).
-- Written to run again (as the migration tests do from an earlier tag); it drops the key an
-- earlier build of this migration added.
ALTER TABLE "harvest_sources" ADD COLUMN IF NOT EXISTS "withdrawals_held_by" integer;--> statement-breakpoint
ALTER TABLE "harvest_sources" DROP CONSTRAINT IF EXISTS "harvest_sources_withdrawals_held_by_imports_id_fk";
