CREATE TABLE "department_reviews" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "department_reviews_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"department_id" integer NOT NULL,
	"from_status" "source_review_status",
	"to_status" "source_review_status" NOT NULL,
	"reason" text,
	"actor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "departments" ADD COLUMN "review_status" "source_review_status" DEFAULT 'on_line' NOT NULL;--> statement-breakpoint
ALTER TABLE "department_reviews" ADD CONSTRAINT "department_reviews_department_id_departments_id_fk" FOREIGN KEY ("department_id") REFERENCES "public"."departments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "department_reviews_department_idx" ON "department_reviews" USING btree ("department_id","created_at");--> statement-breakpoint
-- A source or institution under review (or refused) must not lend its words to the typo
-- correction, or a search could echo a name no moderator accepted: their words join the
-- vocabulary when they are accepted (the UPDATE trigger runs again then).
CREATE OR REPLACE FUNCTION search_words_from_names() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word)
    SELECT DISTINCT archivo_words(name) FROM new_rows WHERE review_status = 'on_line' ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_words_from_departments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word)
    SELECT DISTINCT archivo_words(name || ' ' || coalesce(acronym, '')) FROM new_rows
    WHERE review_status = 'on_line' ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
