import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BlockstoreSettings } from '../../../src/lib/server/config.ts';
import { STORE_ID_FILE, storeIdentity } from '../../../src/lib/server/storage/store-identity.ts';
import { useTempDirs } from './helpers.ts';

const LOCAL: BlockstoreSettings = { kind: 'fs' };

describe('storeIdentity', () => {
  const tempDir = useTempDirs();
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });

  it('names a folder once: every process that opens it, at once or later, reads the same name', async () => {
    const names = await Promise.all(Array.from({ length: 8 }, () => storeIdentity(LOCAL, dir)));
    expect(new Set(names).size).toBe(1);
    expect(names[0]).toMatch(/^carpeta:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await storeIdentity(LOCAL, dir)).toBe(names[0]);
    // Only the name is left in the folder, beside where the blocks go.
    expect(readdirSync(path.join(dir, 'blocks'))).toEqual([STORE_ID_FILE]);
    // Another folder is another store.
    expect(await storeIdentity(LOCAL, await tempDir())).not.toBe(names[0]);
  });

  it('names a bucket by its service and configuration', async () => {
    const bucket = (endpoint: string | undefined, region = 'us-east-1') => ({ kind: 's3', bucket: 'archivo', prefix: 'blocks/', endpoint, region }) as BlockstoreSettings;
    expect(await storeIdentity(bucket(undefined), dir)).toBe('s3:aws:us-east-1/archivo/blocks/');
    expect(await storeIdentity(bucket(undefined, 'eu-west-3'), dir)).toBe('s3:aws:eu-west-3/archivo/blocks/');
    // Two MinIOs with a bucket of the same name are two stores; a user name in the address is no part of it.
    expect(await storeIdentity(bucket('http://minio-a:9000'), dir)).toBe('s3:minio-a:9000/archivo/blocks/');
    expect(await storeIdentity(bucket('http://clave@minio-b:9000/'), dir)).toBe('s3:minio-b:9000/archivo/blocks/');
  });

  it('reads a name another process is still writing, and says in the log when a folder cannot be named', async () => {
    const blocks = path.join(dir, 'blocks');
    mkdirSync(blocks);
    // Found empty (a process without hard links created it an instant ago), then whole.
    writeFileSync(path.join(blocks, STORE_ID_FILE), '');
    const name = '0b6a8a51-3f0c-4a4e-9b1e-2a7f4f1c9d10';
    setTimeout(() => writeFileSync(path.join(blocks, STORE_ID_FILE), `${name}\n`), 30);
    expect(await storeIdentity(LOCAL, dir)).toBe(`carpeta:${name}`);

    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      // Something else under the name's file: not taken for a name.
      writeFileSync(path.join(blocks, STORE_ID_FILE), 'x'.repeat(40));
      expect(await storeIdentity(LOCAL, dir)).toBeNull();
      // A file where the folder should be.
      rmSync(blocks, { recursive: true });
      writeFileSync(blocks, 'no es una carpeta');
      expect(await storeIdentity(LOCAL, dir)).toBeNull();
      expect(warned).toHaveBeenCalledTimes(2);
      expect(String(warned.mock.calls[0]![0])).toContain(`No se pudo leer ni dar nombre a la carpeta de bloques ${blocks}`);
    } finally {
      warned.mockRestore();
    }
  });
});
