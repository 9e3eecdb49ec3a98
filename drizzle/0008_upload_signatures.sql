ALTER TABLE "alexandrias" ADD COLUMN "signed_message" text;--> statement-breakpoint
ALTER TABLE "alexandrias" ADD COLUMN "signature" text;--> statement-breakpoint
ALTER TABLE "auth_nonces" ADD COLUMN "purpose" text DEFAULT 'login' NOT NULL;--> statement-breakpoint
ALTER TABLE "auth_nonces" ADD COLUMN "account" text;