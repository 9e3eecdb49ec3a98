/**
 * The one hard boundary of the architecture (STYLE.md 'Layout'): code that can reach the browser
 * never imports `src/lib/server`. It is a lint rule (eslint.config.js), which `npm test` runs over
 * the whole tree with zero warnings allowed; this test shows the rule sees each kind of violation
 * and leaves the server's own imports alone.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: ROOT });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('server-only code', () => {
  it('is refused in islands, in lib/ outside lib/server, and in the scripts of .astro files', async () => {
    expect(await boundaryErrors('src/islands/search/Nuevo.tsx', "import { getArchive } from '../../lib/server/archive.ts';\nexport const x = getArchive;\n")).toHaveLength(1);
    expect(await boundaryErrors('src/lib/stores/nuevo.ts', "export { readConfig } from '../server/config.ts';\n")).toHaveLength(1);
    expect(await boundaryErrors('src/lib/stores/nuevo.ts', "import { readConfig } from '../../lib/server/config.ts';\nexport const x = readConfig;\n")).toHaveLength(1);
    expect(await boundaryErrors('src/lib/nuevo.ts', "import fs from 'node:fs';\nexport const x = fs;\n")).toHaveLength(1);
    const page = "---\nimport { getArchive } from '../lib/server/archive.ts';\nconst archive = getArchive;\n---\n<p>{String(archive)}</p>\n<script>\n  import { readConfig } from '../lib/server/config.ts';\n  console.log(readConfig);\n</script>\n";
    // The frontmatter runs on the server; the <script> ships to the browser.
    expect(await boundaryErrors('src/pages/nuevo.astro', page)).toHaveLength(1);
  });

  it('is allowed where it runs on the server', async () => {
    expect(await boundaryErrors('src/lib/server/queries/nuevo.ts', "import { readConfig } from '../config.ts';\nimport fs from 'node:fs';\nexport const x = [readConfig, fs];\n")).toEqual([]);
    expect(await boundaryErrors('src/middleware.ts', "import { readConfig } from './lib/server/config.ts';\nexport const x = readConfig;\n")).toEqual([]);
  });
});
