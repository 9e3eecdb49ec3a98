CREATE TABLE "import_format_counts" (
	"import_id" integer NOT NULL,
	"type" "asset_type" NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "import_format_counts_import_id_type_pk" PRIMARY KEY("import_id","type")
);
--> statement-breakpoint
CREATE INDEX "alexandrias_import_sample_idx" ON "alexandrias" USING btree ("import_id","updated_at","id") WHERE "alexandrias"."cid" is not null;--> statement-breakpoint
-- Keeps import_format_counts exact, as record_counts is kept (migration 0003): statement-level
-- triggers with transition tables fold a whole INSERT, UPDATE or DELETE into one grouped upsert.
CREATE OR REPLACE FUNCTION import_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO import_format_counts AS c (import_id, type, n)
      SELECT import_id, type, -count(*)::int FROM old_rows WHERE import_id IS NOT NULL GROUP BY 1, 2
      ON CONFLICT (import_id, type) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO import_format_counts AS c (import_id, type, n)
      SELECT import_id, type, count(*)::int FROM new_rows WHERE import_id IS NOT NULL GROUP BY 1, 2
      ON CONFLICT (import_id, type) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  DELETE FROM import_format_counts WHERE n = 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION import_counts_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM import_format_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER import_counts_on_insert AFTER INSERT ON alexandrias
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION import_counts_track();--> statement-breakpoint
CREATE TRIGGER import_counts_on_update AFTER UPDATE ON alexandrias
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION import_counts_track();--> statement-breakpoint
CREATE TRIGGER import_counts_on_delete AFTER DELETE ON alexandrias
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION import_counts_track();--> statement-breakpoint
CREATE TRIGGER import_counts_on_truncate AFTER TRUNCATE ON alexandrias
  FOR EACH STATEMENT EXECUTE FUNCTION import_counts_reset();--> statement-breakpoint
-- Archives migrated from an earlier version start with their counts right.
INSERT INTO import_format_counts (import_id, type, n)
  SELECT import_id, type, count(*)::int FROM alexandrias WHERE import_id IS NOT NULL GROUP BY 1, 2;
