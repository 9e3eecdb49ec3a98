import { defineConfig } from 'drizzle-kit';

// Only `drizzle-kit generate` uses this: the archive applies migrations itself on start.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/lib/server/db/schema.ts',
  out: './drizzle',
});
