/** The local store's own calls (`diskCalls`): looking for a block, and moving a staged one in. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { blockLayout, localBlockstore } from '../../../src/lib/server/storage/local-blockstore.ts';
import { useTempDirs } from './helpers.ts';

const RAW = 0x55;

async function block(text: string): Promise<{ cid: CID; bytes: Uint8Array }> {
  const bytes = new TextEncoder().encode(text);
  return { cid: CID.createV1(RAW, await sha256.digest(bytes)), bytes };
}

describe('localBlockstore', () => {
  const tempDir = useTempDirs();

  it('moves a staged block in, and finds it; an aborted question finds nothing, as blockstore-fs answers', async () => {
    const dir = await tempDir();
    const store = localBlockstore(path.join(dir, 'blocks'));
    const { cid, bytes } = await block('un bloque');
    expect(await store.has(cid)).toBe(false);
    const staged = path.join(dir, 'staged');
    await fs.writeFile(staged, bytes);
    await store.adopt(cid, staged);
    expect(await store.has(cid)).toBe(true);
    const { dir: shard, file } = blockLayout.encode(cid);
    expect(await fs.readFile(path.join(dir, 'blocks', shard, file))).toEqual(Buffer.from(bytes));
    await expect(fs.access(staged)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await store.has(cid, { signal: AbortSignal.abort() })).toBe(false);
    await store.close();
  });

  it('makes the shard folder again when it went away behind its back, and fails for a staged block that is gone', async () => {
    const dir = await tempDir();
    const store = localBlockstore(path.join(dir, 'blocks'));
    const first = await block('primero');
    await fs.writeFile(path.join(dir, 'a'), first.bytes);
    await store.adopt(first.cid, path.join(dir, 'a'));
    // An operator empties the store: the shard folder the store remembers is gone.
    await fs.rm(path.join(dir, 'blocks', blockLayout.encode(first.cid).dir), { recursive: true });
    await fs.writeFile(path.join(dir, 'a'), first.bytes);
    await store.adopt(first.cid, path.join(dir, 'a'));
    expect(await store.has(first.cid)).toBe(true);
    // A staged file that is not there is the caller's failure, said as the file system says it.
    const second = await block('segundo');
    await expect(store.adopt(second.cid, path.join(dir, 'nunca escrito'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await store.has(second.cid)).toBe(false);
    await store.close();
  });
});
