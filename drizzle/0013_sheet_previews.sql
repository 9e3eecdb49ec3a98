CREATE TABLE "sheet_previews" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sheet_previews_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alexandria_id" integer NOT NULL,
	"sheet_index" integer NOT NULL,
	"name" text NOT NULL,
	"cid" text NOT NULL,
	"row_count" integer NOT NULL,
	"column_count" integer NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sheet_previews" ADD CONSTRAINT "sheet_previews_alexandria_id_alexandrias_id_fk" FOREIGN KEY ("alexandria_id") REFERENCES "public"."alexandrias"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sheet_previews_record_sheet_key" ON "sheet_previews" USING btree ("alexandria_id","sheet_index");