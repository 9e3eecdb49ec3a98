/** `npm run db:seed`: loads the real catalogue and files; running it again changes nothing. */
import { openArchive } from '../src/lib/server/archive.ts';
import { readConfigOrExit } from '../src/lib/server/config.ts';
import { seedArchive } from '../src/lib/server/seed/index.ts';

const archive = await openArchive({ config: readConfigOrExit() });
const started = Date.now();
const report = await seedArchive({ db: archive.db, store: archive.store, staging: archive.staging, fixturesDir: archive.config.fixturesDir });
console.log(
  `Carga inicial lista en ${Date.now() - started} ms: ${report.records} registros ` +
    `(${report.archivedFiles} archivos con CID), ${report.departments} instituciones, ` +
    `${report.sources} fuentes, ${report.categories} categorías.`,
);
await archive.close();
