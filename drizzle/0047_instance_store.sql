-- Which block store each server instance writes its files into (`storage/store-identity.ts`): a
-- folder's own id, kept in the folder, or the bucket's name. Servers whose stores differ, with no
-- gateways between them, each serve only the files they stored themselves: `/v2/health` says so.
-- Null for a row of an older version, which is not compared. Written to run again.
ALTER TABLE "server_instances" ADD COLUMN IF NOT EXISTS "store_id" text;
