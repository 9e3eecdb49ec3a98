-- Keeps record_counts exact: statement-level triggers with transition tables fold a whole INSERT,
-- UPDATE or DELETE into one grouped upsert (a bulk import of 100,000 rows is one statement's
-- work, not 100,000 row triggers). Rows whose count falls to zero are removed.
CREATE OR REPLACE FUNCTION record_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO record_counts AS c (source_id, department_id, category_id, type, status, archived, n)
      SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, -count(*)::int
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ON CONSTRAINT record_counts_key DO UPDATE SET n = c.n + excluded.n;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO record_counts AS c (source_id, department_id, category_id, type, status, archived, n)
      SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, count(*)::int
      FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ON CONSTRAINT record_counts_key DO UPDATE SET n = c.n + excluded.n;
  END IF;
  DELETE FROM record_counts WHERE n = 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION record_counts_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM record_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER record_counts_on_insert AFTER INSERT ON alexandrias
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_counts_track();--> statement-breakpoint
CREATE TRIGGER record_counts_on_update AFTER UPDATE ON alexandrias
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_counts_track();--> statement-breakpoint
CREATE TRIGGER record_counts_on_delete AFTER DELETE ON alexandrias
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION record_counts_track();--> statement-breakpoint
CREATE TRIGGER record_counts_on_truncate AFTER TRUNCATE ON alexandrias
  FOR EACH STATEMENT EXECUTE FUNCTION record_counts_reset();--> statement-breakpoint
-- Archives migrated from an earlier version start with their counts right.
INSERT INTO record_counts (source_id, department_id, category_id, type, status, archived, n)
  SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, count(*)::int
  FROM alexandrias GROUP BY 1, 2, 3, 4, 5, 6;
