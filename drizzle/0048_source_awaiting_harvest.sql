-- A source the archive makes when a moderator registers a catalogue waits, unlisted, for the first
-- record that catalogue brings (`harvest/sources.ts`): a mistyped address or a portal that never
-- answers would otherwise add a public source with nothing in it, described as a catalogue «cosechado
-- por el archivo». Sources made so before this migration and still empty wait too. Written to run again.
ALTER TABLE "sources" ADD COLUMN IF NOT EXISTS "awaiting_harvest" boolean NOT NULL DEFAULT false;--> statement-breakpoint
UPDATE "sources" s SET "awaiting_harvest" = true
 WHERE s."description" LIKE 'Catálogo público cosechado por el archivo: %'
   AND EXISTS (SELECT 1 FROM "harvest_sources" h WHERE h."source_id" = s."id")
   AND NOT EXISTS (SELECT 1 FROM "alexandrias" a WHERE a."source_id" = s."id");
