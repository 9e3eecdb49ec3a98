-- A record's words join the typo correction's vocabulary when its title is new or changed, not at
-- every update: a capture writes a record's file, type and status, and the old trigger split and
-- accent-folded the unchanged titles of every record in the statement again, about a sixth of the
-- captures' update of `alexandrias` (issue #18, "Fast"). The vocabulary only grows (no word is
-- ever taken out), so a title it already holds needs nothing. Rows are matched by id, which an
-- update never changes; a row with no old twin counts as changed.
CREATE OR REPLACE FUNCTION search_words_from_changed_titles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.search_words (word)
    SELECT DISTINCT public.archivo_words(n.title) FROM new_rows n LEFT JOIN old_rows o ON o.id = n.id
    WHERE o.title IS DISTINCT FROM n.title
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER alexandrias_search_words_update ON alexandrias;--> statement-breakpoint
CREATE TRIGGER alexandrias_search_words_update AFTER UPDATE ON alexandrias
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_words_from_changed_titles();
