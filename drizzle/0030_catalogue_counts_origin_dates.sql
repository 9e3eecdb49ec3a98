-- The exports name when a harvested record left its catalogue and since when its origin no longer
-- serves it (`harvested_records.withdrawn_at`, `gone_since`): their fingerprint, the catalogue's
-- change counter (0025), moves when either date does, as it moves for every table they read.
CREATE TRIGGER harvested_records_catalogue_changed AFTER UPDATE OF withdrawn_at, gone_since ON harvested_records
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
