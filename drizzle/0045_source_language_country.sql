-- What a moderator says of the datasets of a catalogue that does not say it (datos.gob.do's CKAN
-- declares no language nor area): the language of their data and the country they cover, as the
-- EU tables' IRIs. A dataset's own declaration comes first. Written to run again.
ALTER TABLE "harvest_sources" ADD COLUMN IF NOT EXISTS "default_language" text;--> statement-breakpoint
ALTER TABLE "harvest_sources" ADD COLUMN IF NOT EXISTS "default_country" text;
