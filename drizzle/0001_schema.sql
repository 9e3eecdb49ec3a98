CREATE TYPE "public"."asset_status" AS ENUM('under_review', 'on_line', 'blocked', 'broken');--> statement-breakpoint
CREATE TYPE "public"."asset_type" AS ENUM('pdf', 'csv', 'xls', 'xlsx', 'ods', 'other');--> statement-breakpoint
CREATE TYPE "public"."import_status" AS ENUM('in_progress', 'done');--> statement-breakpoint
CREATE TYPE "public"."import_type" AS ENUM('harvest', 'single', 'bulk');--> statement-breakpoint
CREATE TYPE "public"."pin_status" AS ENUM('queued', 'pinning', 'pinned', 'failed');--> statement-breakpoint
CREATE TYPE "public"."source_status" AS ENUM('active', 'inactive');--> statement-breakpoint
CREATE TABLE "aletheias" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "aletheias_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alexandria_id" integer NOT NULL,
	"cid" text NOT NULL,
	"file_name" text,
	"mime_type" text,
	"file_size" bigint,
	"wallet_address" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alexandrias" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alexandrias_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"cid" text,
	"title" text NOT NULL,
	"description" text,
	"type" "asset_type" NOT NULL,
	"formats" "asset_type"[] DEFAULT '{}'::asset_type[] NOT NULL,
	"status" "asset_status" DEFAULT 'under_review' NOT NULL,
	"source_url" text,
	"original_url" text,
	"api_endpoint" text,
	"api_enabled" boolean DEFAULT false NOT NULL,
	"file_name" text,
	"file_extension" text,
	"file_size" bigint,
	"mime_type" text,
	"category_id" integer,
	"department_id" integer,
	"source_id" integer,
	"import_id" integer,
	"wallet_address" text,
	"provenance_note" text,
	"origin_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, coalesce("alexandrias"."title", '')), 'A') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("alexandrias"."description", '')), 'B') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("alexandrias"."file_name", '')), 'C')) STORED
);
--> statement-breakpoint
CREATE TABLE "categories" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "categories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"title" text NOT NULL,
	"description" text,
	"icon_name" text,
	"icon_url" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, coalesce("categories"."title", '')), 'A') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("categories"."description", '')), 'B')) STORED
);
--> statement-breakpoint
CREATE TABLE "deals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"cid" text NOT NULL,
	"deal_id" text NOT NULL,
	"storage_provider" text NOT NULL,
	"status" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "departments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "departments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"acronym" text,
	"desciption" text,
	"website" text,
	"legal_category" text,
	"branch" text,
	"sector" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, coalesce("departments"."name", '')), 'A') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("departments"."acronym", '')), 'A') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("departments"."desciption", '')), 'B') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("departments"."sector", '')), 'C')) STORED
);
--> statement-breakpoint
CREATE TABLE "imports" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "imports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"type" "import_type" NOT NULL,
	"source_id" integer,
	"documents" integer DEFAULT 0 NOT NULL,
	"documents_failed" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"wallet_address" text,
	"status" "import_status" DEFAULT 'in_progress' NOT NULL,
	"origin_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pins" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pins_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"cid" text NOT NULL,
	"provider" text DEFAULT 'local' NOT NULL,
	"status" "pin_status" DEFAULT 'queued' NOT NULL,
	"request_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sources" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sources_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"description" text,
	"url" text NOT NULL,
	"status" "source_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('archivo_es'::regconfig, coalesce("sources"."name", '')), 'A') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("sources"."description", '')), 'B') || setweight(to_tsvector('archivo_es'::regconfig, coalesce("sources"."url", '')), 'C')) STORED
);
--> statement-breakpoint
CREATE TABLE "status_history" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "status_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alexandria_id" integer NOT NULL,
	"from_status" "asset_status",
	"to_status" "asset_status" NOT NULL,
	"reason" text,
	"actor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "aletheias" ADD CONSTRAINT "aletheias_alexandria_id_alexandrias_id_fk" FOREIGN KEY ("alexandria_id") REFERENCES "public"."alexandrias"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD CONSTRAINT "alexandrias_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."categories"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD CONSTRAINT "alexandrias_department_id_departments_id_fk" FOREIGN KEY ("department_id") REFERENCES "public"."departments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD CONSTRAINT "alexandrias_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD CONSTRAINT "alexandrias_import_id_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."imports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_history" ADD CONSTRAINT "status_history_alexandria_id_alexandrias_id_fk" FOREIGN KEY ("alexandria_id") REFERENCES "public"."alexandrias"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "aletheias_alexandria_idx" ON "aletheias" USING btree ("alexandria_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alexandrias_origin_key_key" ON "alexandrias" USING btree ("origin_key");--> statement-breakpoint
CREATE INDEX "alexandrias_cid_idx" ON "alexandrias" USING btree ("cid");--> statement-breakpoint
CREATE INDEX "alexandrias_updated_at_idx" ON "alexandrias" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "alexandrias_status_idx" ON "alexandrias" USING btree ("status");--> statement-breakpoint
CREATE INDEX "alexandrias_type_idx" ON "alexandrias" USING btree ("type");--> statement-breakpoint
CREATE INDEX "alexandrias_wallet_idx" ON "alexandrias" USING btree ("wallet_address");--> statement-breakpoint
CREATE INDEX "alexandrias_category_idx" ON "alexandrias" USING btree ("category_id","updated_at");--> statement-breakpoint
CREATE INDEX "alexandrias_department_idx" ON "alexandrias" USING btree ("department_id","updated_at");--> statement-breakpoint
CREATE INDEX "alexandrias_source_idx" ON "alexandrias" USING btree ("source_id","updated_at");--> statement-breakpoint
CREATE INDEX "alexandrias_import_idx" ON "alexandrias" USING btree ("import_id");--> statement-breakpoint
CREATE INDEX "alexandrias_search_idx" ON "alexandrias" USING gin ("search");--> statement-breakpoint
CREATE INDEX "alexandrias_title_trgm_idx" ON "alexandrias" USING gin (archivo_unaccent(lower("title")) gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "categories_title_key" ON "categories" USING btree ("title");--> statement-breakpoint
CREATE INDEX "categories_updated_at_idx" ON "categories" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "categories_search_idx" ON "categories" USING gin ("search");--> statement-breakpoint
CREATE INDEX "categories_title_trgm_idx" ON "categories" USING gin (archivo_unaccent(lower("title")) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "deals_cid_idx" ON "deals" USING btree ("cid");--> statement-breakpoint
CREATE UNIQUE INDEX "deals_deal_id_key" ON "deals" USING btree ("deal_id","storage_provider");--> statement-breakpoint
CREATE UNIQUE INDEX "departments_name_key" ON "departments" USING btree ("name");--> statement-breakpoint
CREATE INDEX "departments_website_idx" ON "departments" USING btree ("website");--> statement-breakpoint
CREATE INDEX "departments_updated_at_idx" ON "departments" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "departments_search_idx" ON "departments" USING gin ("search");--> statement-breakpoint
CREATE INDEX "departments_name_trgm_idx" ON "departments" USING gin (archivo_unaccent(lower("name")) gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "imports_origin_key_key" ON "imports" USING btree ("origin_key");--> statement-breakpoint
CREATE INDEX "imports_updated_at_idx" ON "imports" USING btree ("updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "pins_cid_provider_key" ON "pins" USING btree ("cid","provider");--> statement-breakpoint
CREATE UNIQUE INDEX "sources_url_key" ON "sources" USING btree ("url");--> statement-breakpoint
CREATE INDEX "sources_updated_at_idx" ON "sources" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "sources_search_idx" ON "sources" USING gin ("search");--> statement-breakpoint
CREATE INDEX "sources_name_trgm_idx" ON "sources" USING gin (archivo_unaccent(lower("name")) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "status_history_alexandria_idx" ON "status_history" USING btree ("alexandria_id","created_at");