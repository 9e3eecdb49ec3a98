-- Search puts first, among its direct hits, the records whose title, then whose description, hold
-- the words as typed, not only their stem (the Spanish stemmer files «educación» with «educativos»).
-- Asked by computing to_tsvector('simple', …) of both texts for every hit, that cost about 40 µs a
-- hit: over a second for «estadísticas», which 27,881 of 100,000 records match. Stored beside the
-- stemmed document, it is a vector read with the row (70 ms for the same search). Adding the column
-- rewrites the table, as 0029 did: about 10 s for 100,000 records on PGlite. Written to run again.
ALTER TABLE "alexandrias" ADD COLUMN IF NOT EXISTS "search_typed" tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, archivo_search_text(coalesce("alexandrias"."title", ''))), 'A') || setweight(to_tsvector('simple'::regconfig, archivo_search_text(coalesce("alexandrias"."description", ''))), 'B')) STORED;
