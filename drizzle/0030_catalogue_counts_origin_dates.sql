-- The exports name when a harvested record left its catalogue and since when its origin no longer
-- serves it (`harvested_records.withdrawn_at`, `gone_since`): their fingerprint, the catalogue's
-- change counter (0025), moves when either date changes. Row by row, and only for a row whose date
-- really changed: every harvest run and every check of a file names these columns in its UPDATE
-- (to clear them), and a statement-level trigger would move the counter each time, so harvesters
-- polling the catalogue would never get a 304.
CREATE TRIGGER harvested_records_catalogue_changed AFTER UPDATE OF withdrawn_at, gone_since ON harvested_records
  FOR EACH ROW WHEN (OLD.withdrawn_at IS DISTINCT FROM NEW.withdrawn_at OR OLD.gone_since IS DISTINCT FROM NEW.gone_since)
  EXECUTE FUNCTION catalogue_changed();
