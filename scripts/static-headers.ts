/**
 * After `astro build`: pages built ahead (docs, FAQ) are served from disk without the middleware,
 * with the headers the Node adapter lists in dist/_headers.json (their CSP). This adds the
 * archive's other security headers to each of them, so every HTML page carries the same set.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { SECURITY_HEADERS } from '../src/lib/server/http/security-headers.ts';

const file = path.resolve(import.meta.dirname, '../dist/_headers.json');
type Entry = { pathname: string; headers: Array<{ key: string; value: string }> };

const entries = JSON.parse(await fs.readFile(file, 'utf8')) as Entry[];
for (const entry of entries) {
  const present = new Set(entry.headers.map((header) => header.key.toLowerCase()));
  for (const [key, value] of Object.entries(SECURITY_HEADERS)) {
    if (!present.has(key.toLowerCase())) entry.headers.push({ key, value });
  }
}
await fs.writeFile(file, JSON.stringify(entries));
console.log(`Cabeceras de seguridad añadidas a ${entries.length} páginas preconstruidas.`);
