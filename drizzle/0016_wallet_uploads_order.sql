DROP INDEX "alexandrias_wallet_idx";--> statement-breakpoint
CREATE INDEX "alexandrias_wallet_idx" ON "alexandrias" USING btree ("wallet_address","created_at","id");