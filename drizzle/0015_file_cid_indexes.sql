CREATE INDEX "aletheias_cid_idx" ON "aletheias" USING btree ("cid");--> statement-breakpoint
CREATE INDEX "sheet_previews_cid_idx" ON "sheet_previews" USING btree ("cid");