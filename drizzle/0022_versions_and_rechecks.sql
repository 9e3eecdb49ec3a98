CREATE TABLE "record_versions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "record_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alexandria_id" integer NOT NULL,
	"number" integer NOT NULL,
	"cid" text NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	"type" "asset_type" NOT NULL,
	"mime_type" text,
	"file_name" text,
	"capture_id" integer,
	"captured_at" timestamp with time zone DEFAULT now() NOT NULL,
	"diff" jsonb,
	"diff_status" text DEFAULT 'none' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "captures" ADD COLUMN "purpose" text DEFAULT 'capture' NOT NULL;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD COLUMN "next_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD COLUMN "check_interval" interval DEFAULT '1 day' NOT NULL;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD COLUMN "last_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD COLUMN "gone_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "record_versions" ADD CONSTRAINT "record_versions_alexandria_id_alexandrias_id_fk" FOREIGN KEY ("alexandria_id") REFERENCES "public"."alexandrias"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_versions" ADD CONSTRAINT "record_versions_capture_id_captures_id_fk" FOREIGN KEY ("capture_id") REFERENCES "public"."captures"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "record_versions_number_key" ON "record_versions" USING btree ("alexandria_id","number");--> statement-breakpoint
CREATE INDEX "record_versions_cid_idx" ON "record_versions" USING btree ("cid");--> statement-breakpoint
CREATE INDEX "record_versions_captured_idx" ON "record_versions" USING btree ("captured_at");--> statement-breakpoint
CREATE INDEX "harvested_records_next_check_idx" ON "harvested_records" USING btree ("next_check_at") WHERE "harvested_records"."next_check_at" is not null;--> statement-breakpoint
CREATE INDEX "harvested_records_gone_idx" ON "harvested_records" USING btree ("gone_since") WHERE "harvested_records"."gone_since" is not null;--> statement-breakpoint
-- Records captured before versions existed: their file becomes v1, from its successful capture.
INSERT INTO "record_versions" ("alexandria_id", "number", "cid", "sha256", "size", "type", "mime_type", "file_name", "capture_id", "captured_at")
SELECT DISTINCT ON (a."id") a."id", 1, a."cid", c."sha256", c."size", a."type", a."mime_type", a."file_name", c."id", c."captured_at"
  FROM "alexandrias" a
  JOIN "captures" c ON c."alexandria_id" = a."id" AND c."cid" = a."cid" AND c."sha256" IS NOT NULL AND c."size" IS NOT NULL
 ORDER BY a."id", c."captured_at" DESC, c."id" DESC;--> statement-breakpoint
-- And their URL is watched from now on: first check within a day.
UPDATE "harvested_records" h SET "next_check_at" = now() + interval '1 day'
  FROM "alexandrias" a WHERE a."id" = h."alexandria_id" AND a."cid" IS NOT NULL AND h."distribution_url" IS NOT NULL;
