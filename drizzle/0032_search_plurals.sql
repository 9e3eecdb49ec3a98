-- A singular and its plural find the same records: «exportación» and «exportaciones»,
-- «institución» and «instituciones». archivo_es folded accents before the Spanish stemmer, whose
-- rules for -ación and -ución are written with the accent, so the folded singular kept its
-- suffix («exportacion») while the plural lost it («export»), and the two found different
-- records («educaciones» found none of the «Educación» titles).
-- Now archivo_search_text() folds the text itself (in the documents and the queries alike) and
-- gives a folded «-cion» its accent back, so that the stemmer sees «exportación» however it was
-- typed; the configuration stems without folding again. The stemmer drops the remaining acute
-- accents from what it keeps, and ñ was already folded to n, as before.
-- public.archivo_unaccent, with its schema: pg_restore runs with an empty search_path, and the
-- search columns are computed again from this function when a backup is restored.
-- The lookahead names ASCII letters, not [[:alpha:]], for the reason in 0029: after folding the
-- text is ASCII, and the class's letters beyond it depend on the cluster's locale.
-- A stored generated column keeps what it computed: each is dropped and added again, as in 0029,
-- so every row is read with the new rules.
CREATE OR REPLACE FUNCTION archivo_search_text(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(
    regexp_replace(public.archivo_unaccent($1), '([^[:space:]])[-/](?=[0-9])', '\1 ', 'g'),
    'cion(?![a-z])', 'ción', 'gi')
$$;--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION archivo_es ALTER MAPPING FOR hword, hword_part, word WITH spanish_stem;--> statement-breakpoint
ALTER TABLE "alexandrias" DROP COLUMN "search";--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("alexandrias"."title", ''))), 'A') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("alexandrias"."description", ''))), 'B') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("alexandrias"."file_name", ''))), 'C')) STORED;--> statement-breakpoint
CREATE INDEX "alexandrias_search_idx" ON "alexandrias" USING gin ("search");--> statement-breakpoint
ALTER TABLE "categories" DROP COLUMN "search";--> statement-breakpoint
ALTER TABLE "categories" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("categories"."title", ''))), 'A') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("categories"."description", ''))), 'B')) STORED;--> statement-breakpoint
CREATE INDEX "categories_search_idx" ON "categories" USING gin ("search");--> statement-breakpoint
ALTER TABLE "departments" DROP COLUMN "search";--> statement-breakpoint
ALTER TABLE "departments" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("departments"."name", ''))), 'A') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("departments"."acronym", ''))), 'A') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("departments"."desciption", ''))), 'B') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("departments"."sector", ''))), 'C')) STORED;--> statement-breakpoint
CREATE INDEX "departments_search_idx" ON "departments" USING gin ("search");--> statement-breakpoint
ALTER TABLE "sources" DROP COLUMN "search";--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("sources"."name", ''))), 'A') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("sources"."description", ''))), 'B') || setweight(to_tsvector('archivo_es'::regconfig, archivo_search_text(coalesce("sources"."url", ''))), 'C')) STORED;--> statement-breakpoint
CREATE INDEX "sources_search_idx" ON "sources" USING gin ("search");
