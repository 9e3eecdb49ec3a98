-- Each running archive process (a server, a script that stages captures) with a heartbeat lease (#21):
-- its staging belongs to it, and another server clears that staging only once the lease has run out.
CREATE TABLE "server_instances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"hostname" text NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "server_instances_lease_idx" ON "server_instances" USING btree ("lease_until");
--> statement-breakpoint
-- Locks held for a while, not for a connection: a sweep takes one so that two servers do not sweep
-- at once, and a holder that dies lets go when `held_until` passes. Works over a pool of one.
CREATE TABLE "leased_locks" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"held_until" timestamp with time zone NOT NULL
);
