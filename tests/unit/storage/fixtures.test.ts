import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cidOf, createContentStore } from '../../../src/lib/server/storage/index.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { collect, listFiles, useTempDirs } from './helpers.ts';
import { referenceCid } from './reference-cid.ts';

const fixturesDir = fixturePath('files');
const files = await listFiles(fixturesDir);

describe('real published files', () => {
  const tempDir = useTempDirs();

  it('are all found', () => {
    expect(files.length).toBeGreaterThanOrEqual(11);
  });

  it.each(files.map((file) => [path.relative(fixturesDir, file), file]))(
    '%s: keeps its kubo CID and its bytes',
    async (_, file) => {
      const store = createContentStore({ dir: await tempDir() });
      const bytes = await readFile(file);
      const expected = await referenceCid(createReadStream(file));

      const added = await store.add(createReadStream(file));
      expect(added).toEqual({ cid: expected, size: bytes.length });
      expect(await cidOf(bytes)).toEqual(added);
      expect((await collect(store.cat(added.cid))).equals(bytes)).toBe(true);
      expect(await store.stat(added.cid)).toMatchObject({ size: bytes.length });
    },
  );
});
