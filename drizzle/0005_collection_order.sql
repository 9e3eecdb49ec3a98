DROP INDEX "alexandrias_category_idx";--> statement-breakpoint
DROP INDEX "alexandrias_department_idx";--> statement-breakpoint
DROP INDEX "alexandrias_source_idx";--> statement-breakpoint
CREATE INDEX "alexandrias_category_idx" ON "alexandrias" USING btree ("category_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "alexandrias_department_idx" ON "alexandrias" USING btree ("department_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "alexandrias_source_idx" ON "alexandrias" USING btree ("source_id","updated_at","id");