-- A word typed with an asterisk is looked for as the start of words: «presu*» finds «presupuesto»
-- and «presupuestos», «educa*» finds «educación» and «educativos». websearch_to_tsquery drops the
-- asterisk, and a query for «presu*» searched the word «presu» (nothing), then was corrected to
-- «presas». The prefix is searched by its stem (`:*` on the lexeme), as every word is, so that it
-- matches the stems the documents hold; a prefix of fewer than three letters is searched as the
-- word it is (a prefix of one or two letters would read most of the index). A prefix word is not
-- widened to its other number (0036): its prefix holds both.
-- As in 0036: IMMUTABLE, names qualified, the same query always rewritten the same way.
CREATE OR REPLACE FUNCTION archivo_search_query(text) RETURNS tsquery LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  folded text := public.archivo_search_text($1);
  widened tsquery := websearch_to_tsquery('public.archivo_es', folded);
  prefixes text[] := ARRAY(SELECT DISTINCT m[1] FROM regexp_matches(lower(folded), '([a-zó0-9]{3,})\*', 'g') AS m ORDER BY 1);
  word text;
  guess text;
  stem text[];
  other text[];
BEGIN
  FOR word IN SELECT DISTINCT w FROM regexp_split_to_table(lower(folded), '[^a-zó]+') AS w WHERE length(w) >= 3 AND NOT w = ANY (prefixes) ORDER BY w LOOP
    guess := CASE
      WHEN word ~ '..ces$' THEN left(word, -3) || 'z'
      WHEN word ~ 'z$' THEN left(word, -1) || 'ces'
      WHEN word ~ '..[aeiou]s$' THEN left(word, -1)
      WHEN word ~ '[aeiou]$' THEN word || 's'
    END;
    CONTINUE WHEN guess IS NULL;
    stem := tsvector_to_array(to_tsvector('public.archivo_es', word));
    other := tsvector_to_array(to_tsvector('public.archivo_es', guess));
    IF cardinality(stem) = 1 AND cardinality(other) = 1 AND stem[1] <> other[1] THEN
      widened := ts_rewrite(widened, quote_literal(stem[1])::tsquery, (quote_literal(stem[1]) || ' | ' || quote_literal(other[1]))::tsquery);
    END IF;
  END LOOP;
  FOREACH word IN ARRAY prefixes LOOP
    stem := tsvector_to_array(to_tsvector('public.archivo_es', word));
    CONTINUE WHEN cardinality(stem) <> 1;
    widened := ts_rewrite(widened, quote_literal(stem[1])::tsquery, (quote_literal(stem[1]) || ':*')::tsquery);
  END LOOP;
  RETURN widened;
END $$;
