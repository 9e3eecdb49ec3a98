-- The catalogue's change counter (#21): what fingerprints the exports and the DCAT catalogue
-- (`catalogFingerprint`), counted by the database in the same transaction as every change to a
-- table they read, never taken from a server's clock. Each transaction that changes one of those
-- tables leaves one row of its own in `catalogue_changes` (its transaction id); the count is the
-- rows there plus those already folded into `catalogue_change_count`. See queries/catalog.ts for
-- why rows per transaction rather than a sequence or one counter row.
CREATE TABLE "catalogue_changes" (
	"xid" xid8 PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "catalogue_change_count" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL CHECK ("singleton"),
	"counted" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "catalogue_change_count" ("singleton", "counted") VALUES (true, 0);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalogue_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One row per transaction: a second statement of the same one finds its own row and moves on.
  INSERT INTO catalogue_changes (xid) VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER alexandrias_catalogue_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON alexandrias
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER departments_catalogue_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON departments
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER categories_catalogue_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON categories
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER sources_catalogue_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sources
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER record_versions_catalogue_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON record_versions
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
