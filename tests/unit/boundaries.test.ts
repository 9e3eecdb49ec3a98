import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|tsx|astro)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Code that may run in the browser: islands, and every part of lib/ but lib/server/. */
async function browserSideFiles(): Promise<string[]> {
  const lib = (await filesUnder(path.join(SRC, 'lib'))).filter(
    (file) => !file.startsWith(path.join(SRC, 'lib', 'server') + path.sep),
  );
  return [...lib, ...(await filesUnder(path.join(SRC, 'islands')))];
}

describe('server-only code', () => {
  it('is never imported by code that can reach the browser', async () => {
    const offenders: string[] = [];
    for (const file of await browserSideFiles()) {
      const source = await fs.readFile(file, 'utf8');
      for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const target = match[1] ?? '';
        const resolved = target.startsWith('.') ? path.resolve(path.dirname(file), target) : target;
        if (resolved.startsWith(path.join(SRC, 'lib', 'server')) || /(^|\/)lib\/server\//.test(target)) {
          offenders.push(`${path.relative(SRC, file)} imports ${target}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('is found by the check (the check would see a violation)', async () => {
    const files = await browserSideFiles();
    expect(files.some((file) => file.endsWith(path.join('lib', 'format.ts')))).toBe(true);
  });
});
