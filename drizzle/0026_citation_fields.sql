-- What a researcher needs to cite a harvested record beyond its licence and dates (#20): how often
-- its catalogue says the original is updated (as declared: a word, a DCAT frequency IRI or an ISO
-- 8601 period; the page names the codes it knows), whom to ask about it (the publisher's contact
-- point; an e-mail only when it is an address), and the period its data covers (calendar dates,
-- not instants: a coverage "2017" must not read as the last day of 2016 in the archive's zone,
-- and/or the catalogue's own words when they are not dates).
ALTER TABLE "alexandrias" ADD COLUMN "update_frequency" text;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "contact_name" text;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "contact_email" text;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "temporal_start" date;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "temporal_end" date;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "temporal_text" text;
