-- Numbers joined by a hyphen or a slash are searchable one by one. PostgreSQL's parser
-- reads «2018-2020» as 2018 and the negative number -2020, and «2020/2021» as a file path,
-- so a search for 2020 missed every «2018-2020» title, and «COVID-19» was not found by «covid 19».
-- archivo_search_text() puts a space there, in the search documents and in the queries alike
-- (`queries/search.ts`); a hyphen after a space still means "without" in a query («salud -2020»).
-- What comes before the sign is anything but a space, not [[:alnum:]], whose letters beyond ASCII
-- depend on the cluster's locale (PGlite's and a server's may differ); the digit after it is only
-- looked at, so that «1-2-3» and «5/3/2021» are split at every sign.
-- A generated column's expression cannot be altered before PostgreSQL 17: each is dropped and
-- added again, which recomputes it for every row, and its index is made again.
CREATE OR REPLACE FUNCTION archivo_search_text(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace($1, '([^[:space:]])[-/](?=[0-9])', '\1 ', 'g')
$$;--> statement-breakpoint
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
