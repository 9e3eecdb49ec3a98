ALTER TABLE "alexandrias" ADD COLUMN "issued" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "modified" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "license_title" text;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "license_url" text;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "keywords" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "job_id" integer;--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE set null ON UPDATE no action;