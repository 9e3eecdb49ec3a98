CREATE TYPE "public"."harvest_kind" AS ENUM('ckan', 'dcat', 'datajson');--> statement-breakpoint
ALTER TYPE "public"."import_status" ADD VALUE 'failed';--> statement-breakpoint
CREATE TABLE "captures" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "captures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alexandria_id" integer NOT NULL,
	"requested_url" text NOT NULL,
	"final_url" text,
	"status" integer,
	"content_type" text,
	"content_length" bigint,
	"etag" text,
	"last_modified" text,
	"cid" text,
	"sha256" text,
	"size" bigint,
	"duration_ms" integer,
	"captured_at" timestamp with time zone DEFAULT now() NOT NULL,
	"declared_size" bigint,
	"declared_checksum" text,
	"mismatch" text,
	"error_reason" text
);
--> statement-breakpoint
CREATE TABLE "harvest_sources" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "harvest_sources_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"url" text NOT NULL,
	"kind" "harvest_kind" NOT NULL,
	"name" text NOT NULL,
	"source_id" integer NOT NULL,
	"default_category_id" integer,
	"theme_map" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"interval" interval DEFAULT '1 day' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "harvested_records" (
	"alexandria_id" integer PRIMARY KEY NOT NULL,
	"harvest_source_id" integer NOT NULL,
	"dataset_identifier" text NOT NULL,
	"distribution_key" text NOT NULL,
	"distribution_url" text,
	"declared_format" text,
	"declared_size" bigint,
	"declared_checksum" text,
	"last_seen_import_id" integer,
	"withdrawn_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "harvest_source_id" integer;--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "harvest_counts" jsonb;--> statement-breakpoint
ALTER TABLE "captures" ADD CONSTRAINT "captures_alexandria_id_alexandrias_id_fk" FOREIGN KEY ("alexandria_id") REFERENCES "public"."alexandrias"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "harvest_sources" ADD CONSTRAINT "harvest_sources_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "harvest_sources" ADD CONSTRAINT "harvest_sources_default_category_id_categories_id_fk" FOREIGN KEY ("default_category_id") REFERENCES "public"."categories"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD CONSTRAINT "harvested_records_alexandria_id_alexandrias_id_fk" FOREIGN KEY ("alexandria_id") REFERENCES "public"."alexandrias"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD CONSTRAINT "harvested_records_harvest_source_id_harvest_sources_id_fk" FOREIGN KEY ("harvest_source_id") REFERENCES "public"."harvest_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "harvested_records" ADD CONSTRAINT "harvested_records_last_seen_import_id_imports_id_fk" FOREIGN KEY ("last_seen_import_id") REFERENCES "public"."imports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "captures_alexandria_idx" ON "captures" USING btree ("alexandria_id","captured_at");--> statement-breakpoint
CREATE INDEX "captures_cid_idx" ON "captures" USING btree ("cid");--> statement-breakpoint
CREATE UNIQUE INDEX "harvest_sources_url_key" ON "harvest_sources" USING btree ("url");--> statement-breakpoint
CREATE UNIQUE INDEX "harvested_records_identity_key" ON "harvested_records" USING btree ("harvest_source_id","dataset_identifier","distribution_key");--> statement-breakpoint
CREATE INDEX "harvested_records_dataset_idx" ON "harvested_records" USING btree ("harvest_source_id","dataset_identifier");--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_harvest_source_id_harvest_sources_id_fk" FOREIGN KEY ("harvest_source_id") REFERENCES "public"."harvest_sources"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "imports_harvest_source_idx" ON "imports" USING btree ("harvest_source_id","id");