-- A short word and its plural find the same records: «año» and «años», «uso» and «usos», «obra»
-- and «obras», «luz» and «luces». Snowball's Spanish stemmer removes a plural ending only inside
-- the region it computes for the word (RV), which in such words does not reach the ending:
-- «años» stays «anos» while «año» is «ano», and a query for one missed the titles of the other.
-- Longer words are already filed together («presupuestos», «presupuesto»: «presupuest»).
-- So the query is widened, not the documents (no search column to compute again): each word of
-- it that the stemmer files apart from its other number is searched as either form. The other
-- number is guessed by the regular Spanish rules: a vowel takes -s, -z becomes -ces, and back.
-- A guess that is no word is harmless (it matches nothing, or what the stemmer already joins);
-- a form of two letters is never guessed, so «dos» never looks for «do» (the Dominican domain).
-- IMMUTABLE, as to_tsvector(regconfig, text) is: a query's words are constants, and the planner
-- computes the widened query once per statement.
CREATE OR REPLACE FUNCTION archivo_search_query(text) RETURNS tsquery LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  folded text := archivo_search_text($1);
  widened tsquery := websearch_to_tsquery('archivo_es', folded);
  word text;
  stem tsquery;
  other tsquery;
BEGIN
  -- After archivo_search_text the words are ASCII but for the ó of «-ción», which no rule needs.
  FOR word IN SELECT DISTINCT w FROM regexp_split_to_table(lower(folded), '[^a-z]+') AS w WHERE length(w) >= 3 LOOP
    other := plainto_tsquery('archivo_es', CASE
      WHEN word ~ '..ces$' THEN left(word, -3) || 'z'
      WHEN word ~ 'z$' THEN left(word, -1) || 'ces'
      WHEN word ~ '..[aeiou]s$' THEN left(word, -1)
      WHEN word ~ '[aeiou]$' THEN word || 's'
      ELSE ''
    END);
    stem := plainto_tsquery('archivo_es', word);
    IF numnode(stem) = 1 AND numnode(other) = 1 AND stem <> other THEN
      widened := ts_rewrite(widened, stem, stem || other);
    END IF;
  END LOOP;
  RETURN widened;
END $$;
