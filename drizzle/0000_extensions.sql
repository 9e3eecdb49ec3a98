-- Extensions and the Spanish search configuration the schema's generated columns and indexes use.
-- drizzle-kit does not write CREATE EXTENSION, so this migration is hand-written and runs first.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
-- unaccent() is only STABLE (its dictionary could change), so it cannot feed an index directly;
-- pinning the dictionary makes this wrapper safe to declare IMMUTABLE (the usual PostgreSQL idiom).
CREATE OR REPLACE FUNCTION archivo_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;--> statement-breakpoint
-- Spanish stemming after accent folding: "educacion" and "Educación" share one lexeme.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'archivo_es') THEN
    CREATE TEXT SEARCH CONFIGURATION archivo_es (COPY = pg_catalog.spanish);
    ALTER TEXT SEARCH CONFIGURATION archivo_es
      ALTER MAPPING FOR hword, hword_part, word WITH unaccent, spanish_stem;
  END IF;
END $$;
