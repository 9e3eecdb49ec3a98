-- The catalogue's change counter (#21): what fingerprints the exports and the DCAT catalogue
-- (`catalogFingerprint`), bumped by the database in the same transaction as every change to a
-- table they read, never taken from a server's clock. See queries/catalog.ts for why a counter row
-- rather than a sequence, and why the triggers run BEFORE each statement.
CREATE TABLE "catalogue_changes" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL CHECK ("singleton"),
	"counter" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "catalogue_changes" ("singleton", "counter") VALUES (true, 0);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalogue_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalogue_changes SET counter = counter + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER alexandrias_catalogue_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON alexandrias
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER departments_catalogue_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON departments
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER categories_catalogue_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON categories
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER sources_catalogue_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON sources
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
--> statement-breakpoint
CREATE TRIGGER record_versions_catalogue_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON record_versions
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
