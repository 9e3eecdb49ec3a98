CREATE TYPE "public"."source_review_status" AS ENUM('on_line', 'under_review', 'refused');--> statement-breakpoint
CREATE TABLE "source_reviews" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "source_reviews_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source_id" integer NOT NULL,
	"from_status" "source_review_status",
	"to_status" "source_review_status" NOT NULL,
	"reason" text,
	"actor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "review_status" "source_review_status" DEFAULT 'on_line' NOT NULL;--> statement-breakpoint
ALTER TABLE "source_reviews" ADD CONSTRAINT "source_reviews_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "source_reviews_source_idx" ON "source_reviews" USING btree ("source_id","created_at");--> statement-breakpoint
-- The contributor ranking counts only what moderators published (issue #8): wallet_counts now
-- keeps on_line records per wallet. Same statement-level trigger as 0007, one condition more.
CREATE OR REPLACE FUNCTION record_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO record_counts AS c (source_id, department_id, category_id, type, status, archived, n)
      SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, -count(*)::int
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ON CONSTRAINT record_counts_key DO UPDATE SET n = c.n + excluded.n;
    INSERT INTO wallet_counts AS w (wallet_address, n)
      SELECT wallet_address, -count(*)::int FROM old_rows
      WHERE wallet_address IS NOT NULL AND status = 'on_line' GROUP BY 1
      ON CONFLICT (wallet_address) DO UPDATE SET n = w.n + excluded.n;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO record_counts AS c (source_id, department_id, category_id, type, status, archived, n)
      SELECT source_id, department_id, category_id, type, status, cid IS NOT NULL, count(*)::int
      FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ON CONSTRAINT record_counts_key DO UPDATE SET n = c.n + excluded.n;
    INSERT INTO wallet_counts AS w (wallet_address, n)
      SELECT wallet_address, count(*)::int FROM new_rows
      WHERE wallet_address IS NOT NULL AND status = 'on_line' GROUP BY 1
      ON CONFLICT (wallet_address) DO UPDATE SET n = w.n + excluded.n;
  END IF;
  DELETE FROM record_counts WHERE n = 0;
  DELETE FROM wallet_counts WHERE n = 0;
  RETURN NULL;
END $$;--> statement-breakpoint
DELETE FROM wallet_counts;--> statement-breakpoint
INSERT INTO wallet_counts (wallet_address, n)
  SELECT wallet_address, count(*)::int FROM alexandrias
  WHERE wallet_address IS NOT NULL AND status = 'on_line' GROUP BY 1;
