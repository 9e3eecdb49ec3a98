/** `npm run db:migrate`: applies pending migrations to the configured database. */
import { openArchive } from '../src/lib/server/archive.ts';

const archive = await openArchive();
console.log(`Migraciones aplicadas (${archive.engine}).`);
await archive.close();
