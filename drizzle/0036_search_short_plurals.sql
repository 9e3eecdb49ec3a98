-- A short word and its plural find the same records: «año» and «años», «uso» and «usos», «obra»
-- and «obras», «luz» and «luces». Snowball's Spanish stemmer removes a plural ending only inside
-- the region it computes for the word (RV), which in such words does not reach the ending:
-- «años» stays «anos» while «año» is «ano», and a query for one missed the titles of the other.
-- Longer words are already filed together («presupuestos», «presupuesto»: «presupuest»).
-- So the query is widened, not the documents (no search column to compute again): each word of
-- it that the stemmer files apart from its other number is searched as either form. The other
-- number is guessed by the regular Spanish rules: a vowel takes -s, -z becomes -ces, and back.
-- A guess is searched by its stem, so it may also find what shares that stem: «luz» finds «luces»
-- and also «lucir» («luc»), «Dios» finds «dio»; a few more results, ranked after those that hold
-- the word as typed. A form of two letters is never guessed: «dos» never looks for «do» (the
-- Dominican domain), nor «mes» for «me».
-- IMMUTABLE, as to_tsvector(regconfig, text) and websearch_to_tsquery(regconfig, text) are: a
-- query's words are constants, and the planner computes the widened query once per statement.
-- Names qualified, as in 0032: nothing here may depend on the caller's search_path.
CREATE OR REPLACE FUNCTION archivo_search_query(text) RETURNS tsquery LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  folded text := public.archivo_search_text($1);
  widened tsquery := websearch_to_tsquery('public.archivo_es', folded);
  word text;
  guess text;
  stem text[];
  other text[];
BEGIN
  -- After archivo_search_text the words are ASCII but for the ó it gives back to «-ción», whose
  -- words no rule matches. In order, so that the same query is always widened the same way.
  FOR word IN SELECT DISTINCT w FROM regexp_split_to_table(lower(folded), '[^a-zó]+') AS w WHERE length(w) >= 3 ORDER BY w LOOP
    guess := CASE
      WHEN word ~ '..ces$' THEN left(word, -3) || 'z'
      WHEN word ~ 'z$' THEN left(word, -1) || 'ces'
      WHEN word ~ '..[aeiou]s$' THEN left(word, -1)
      WHEN word ~ '[aeiou]$' THEN word || 's'
    END;
    CONTINUE WHEN guess IS NULL;
    -- The lexemes of each form through to_tsvector, which says nothing of a stop word («que»),
    -- where plainto_tsquery would send the client a notice for each.
    stem := tsvector_to_array(to_tsvector('public.archivo_es', word));
    other := tsvector_to_array(to_tsvector('public.archivo_es', guess));
    IF cardinality(stem) = 1 AND cardinality(other) = 1 AND stem[1] <> other[1] THEN
      widened := ts_rewrite(widened, quote_literal(stem[1])::tsquery, (quote_literal(stem[1]) || ' | ' || quote_literal(other[1]))::tsquery);
    END IF;
  END LOOP;
  RETURN widened;
END $$;
