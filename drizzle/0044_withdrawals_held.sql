-- A run that finds a large part of its catalogue gone withdraws none of it on its own word (a
-- portal's search index half rebuilt lists a fraction of its datasets): it names itself here, and
-- only what the next complete run does not list either, missing from both readings, is withdrawn.
-- Written to run again (as the migration tests do from an earlier tag).
ALTER TABLE "harvest_sources" ADD COLUMN IF NOT EXISTS "withdrawals_held_by" integer;--> statement-breakpoint
ALTER TABLE "harvest_sources" DROP CONSTRAINT IF EXISTS "harvest_sources_withdrawals_held_by_imports_id_fk";--> statement-breakpoint
ALTER TABLE "harvest_sources" ADD CONSTRAINT "harvest_sources_withdrawals_held_by_imports_id_fk" FOREIGN KEY ("withdrawals_held_by") REFERENCES "public"."imports"("id") ON DELETE set null ON UPDATE no action;
