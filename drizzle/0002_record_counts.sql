CREATE TABLE "record_counts" (
	"source_id" integer,
	"department_id" integer,
	"category_id" integer,
	"type" "asset_type" NOT NULL,
	"status" "asset_status" NOT NULL,
	"archived" boolean NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "record_counts_key" UNIQUE NULLS NOT DISTINCT("source_id","department_id","category_id","type","status","archived")
);
--> statement-breakpoint
CREATE INDEX "record_counts_department_idx" ON "record_counts" USING btree ("department_id");--> statement-breakpoint
CREATE INDEX "record_counts_category_idx" ON "record_counts" USING btree ("category_id");