CREATE TABLE "wallet_counts" (
	"wallet_address" text PRIMARY KEY NOT NULL,
	"n" integer NOT NULL
);
