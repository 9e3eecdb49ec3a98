CREATE TABLE "search_words" (
	"word" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX "search_words_trgm_idx" ON "search_words" USING gin ("word" gin_trgm_ops);--> statement-breakpoint
-- The words of a text as the typo correction compares them: accent-folded, lower-case, letters
-- and digits only, four characters or more (shorter words are too alike to correct safely).
CREATE OR REPLACE FUNCTION archivo_words(text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT DISTINCT w FROM regexp_split_to_table(archivo_unaccent(lower(coalesce($1, ''))), '[^a-z0-9]+') AS w
  WHERE length(w) >= 4
$$;--> statement-breakpoint
-- Statement-level triggers with transition tables: one INSERT per statement, however many rows.
CREATE OR REPLACE FUNCTION search_words_from_titles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word) SELECT DISTINCT archivo_words(title) FROM new_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_words_from_names() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word) SELECT DISTINCT archivo_words(name) FROM new_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_words_from_departments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word)
    SELECT DISTINCT archivo_words(name || ' ' || coalesce(acronym, '')) FROM new_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER alexandrias_search_words_insert AFTER INSERT ON alexandrias
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_titles();--> statement-breakpoint
CREATE TRIGGER alexandrias_search_words_update AFTER UPDATE ON alexandrias
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_titles();--> statement-breakpoint
CREATE TRIGGER categories_search_words_insert AFTER INSERT ON categories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_titles();--> statement-breakpoint
CREATE TRIGGER categories_search_words_update AFTER UPDATE ON categories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_titles();--> statement-breakpoint
CREATE TRIGGER sources_search_words_insert AFTER INSERT ON sources
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_names();--> statement-breakpoint
CREATE TRIGGER sources_search_words_update AFTER UPDATE ON sources
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_names();--> statement-breakpoint
CREATE TRIGGER departments_search_words_insert AFTER INSERT ON departments
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_departments();--> statement-breakpoint
CREATE TRIGGER departments_search_words_update AFTER UPDATE ON departments
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_departments();--> statement-breakpoint
-- Archives that already hold records get their vocabulary now.
INSERT INTO search_words (word)
  SELECT archivo_words(title) FROM alexandrias
  UNION SELECT archivo_words(title) FROM categories
  UNION SELECT archivo_words(name) FROM sources
  UNION SELECT archivo_words(name || ' ' || coalesce(acronym, '')) FROM departments
  ON CONFLICT DO NOTHING;
