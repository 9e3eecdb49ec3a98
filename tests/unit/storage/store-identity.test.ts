import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlockstoreSettings } from '../../../src/lib/server/config.ts';
import { STORE_ID_FILE, storeIdentity } from '../../../src/lib/server/storage/store-identity.ts';

const LOCAL: BlockstoreSettings = { kind: 'fs' };

describe('storeIdentity', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'store-identity-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names a folder once: every process that opens it, at once or later, reads the same name', async () => {
    const names = await Promise.all(Array.from({ length: 8 }, () => storeIdentity(LOCAL, dir)));
    expect(new Set(names).size).toBe(1);
    expect(names[0]).toMatch(/^carpeta:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await storeIdentity(LOCAL, dir)).toBe(names[0]);
    // Only the name is left in the folder, beside where the blocks go.
    expect(readdirSync(path.join(dir, 'blocks'))).toEqual([STORE_ID_FILE]);
    // Another folder is another store.
    const other = mkdtempSync(path.join(os.tmpdir(), 'store-identity-'));
    try {
      expect(await storeIdentity(LOCAL, other)).not.toBe(names[0]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('names a bucket by its configuration, and says nothing of a folder it cannot use', async () => {
    expect(await storeIdentity({ kind: 's3', bucket: 'archivo', prefix: 'blocks/' } as BlockstoreSettings, dir)).toBe('s3:archivo/blocks/');
    writeFileSync(path.join(dir, 'blocks'), 'no es una carpeta');
    expect(await storeIdentity(LOCAL, dir)).toBeNull();
    rmSync(path.join(dir, 'blocks'));
    // A name file that holds no name is not taken for one.
    const blocks = path.join(dir, 'blocks');
    await storeIdentity(LOCAL, dir);
    writeFileSync(path.join(blocks, STORE_ID_FILE), 'basura');
    expect(await storeIdentity(LOCAL, dir)).toBeNull();
  });
});
