-- What a moderator says of the datasets of a catalogue that does not say it (datos.gob.do's CKAN
-- declares no language nor area): the language of their data and the country they cover, as the
-- EU tables' IRIs. A dataset's own declaration comes first. Written to run again.
ALTER TABLE "harvest_sources" ADD COLUMN IF NOT EXISTS "default_language" text;--> statement-breakpoint
ALTER TABLE "harvest_sources" ADD COLUMN IF NOT EXISTS "default_country" text;
--> statement-breakpoint
-- The foreign key an earlier build of 0044 gave withdrawals_held_by, on a database that applied it then (see 0044).
ALTER TABLE "harvest_sources" DROP CONSTRAINT IF EXISTS "harvest_sources_withdrawals_held_by_imports_id_fk";
