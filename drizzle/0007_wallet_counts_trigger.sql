-- The contributor ranking from running counts too: the same statement-level trigger now also
-- keeps wallet_counts (records per contributing wallet) exact.
CREATE OR REPLACE FUNCTION record_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO record_counts AS c (source_id, department_id, category_id, type, status, archived, n)
      SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, -count(*)::int
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ON CONSTRAINT record_counts_key DO UPDATE SET n = c.n + excluded.n;
    INSERT INTO wallet_counts AS w (wallet_address, n)
      SELECT wallet_address, -count(*)::int FROM old_rows WHERE wallet_address IS NOT NULL GROUP BY 1
      ON CONFLICT (wallet_address) DO UPDATE SET n = w.n + excluded.n;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO record_counts AS c (source_id, department_id, category_id, type, status, archived, n)
      SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, count(*)::int
      FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ON CONSTRAINT record_counts_key DO UPDATE SET n = c.n + excluded.n;
    INSERT INTO wallet_counts AS w (wallet_address, n)
      SELECT wallet_address, count(*)::int FROM new_rows WHERE wallet_address IS NOT NULL GROUP BY 1
      ON CONFLICT (wallet_address) DO UPDATE SET n = w.n + excluded.n;
  END IF;
  DELETE FROM record_counts WHERE n = 0;
  DELETE FROM wallet_counts WHERE n = 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION record_counts_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM record_counts;
  DELETE FROM wallet_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
INSERT INTO wallet_counts (wallet_address, n)
  SELECT wallet_address, count(*)::int FROM alexandrias WHERE wallet_address IS NOT NULL GROUP BY 1;
