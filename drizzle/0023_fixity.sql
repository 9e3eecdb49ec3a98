CREATE TABLE "fixity_failures" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fixity_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"run_id" integer NOT NULL,
	"cid" text NOT NULL,
	"block_cid" text,
	"kind" text NOT NULL,
	"reason" text NOT NULL,
	"found_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fixity_runs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fixity_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"number" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"cursor" text,
	"files_total" integer DEFAULT 0 NOT NULL,
	"bytes_total" bigint DEFAULT 0 NOT NULL,
	"files_checked" integer DEFAULT 0 NOT NULL,
	"bytes_checked" bigint DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"slices" integer DEFAULT 0 NOT NULL,
	"next_slice_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fixity_failures" ADD CONSTRAINT "fixity_failures_run_id_fixity_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."fixity_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fixity_failures_run_idx" ON "fixity_failures" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "fixity_failures_found_idx" ON "fixity_failures" USING btree ("found_at");--> statement-breakpoint
CREATE UNIQUE INDEX "fixity_runs_number_key" ON "fixity_runs" USING btree ("number");