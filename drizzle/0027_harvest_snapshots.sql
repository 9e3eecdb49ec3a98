-- A harvest source can be a copy of a catalogue kept with the archive rather than a live one: the
-- seed's export of datos.gob.do (a list of datasets taken on one day, with no API behind its
-- address). It was harvested once, from the fixtures; asking its address again would only get the
-- portal's web page. `snapshot_on` is the day the copy was taken, null for a live catalogue: a
-- snapshot is never run again nor resumed, and the moderation page says why.
ALTER TABLE "harvest_sources" ADD COLUMN "snapshot_on" date;--> statement-breakpoint
-- Archives seeded before this migration: their export source is that copy.
-- (Its address is unique among sources, and no API answers there.)
UPDATE "harvest_sources" SET "snapshot_on" = DATE '2026-09-24', "paused" = true WHERE "url" = 'https://datos.gob.do/dataset/';
