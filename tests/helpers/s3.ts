/**
 * An S3-protocol server for the tests (s3rver, from npm), on 127.0.0.1 and a free port, keeping its
 * objects in a temporary folder: the S3 blockstore runs for real against it, as it would against
 * AWS, R2 or MinIO, with path-style addresses and s3rver's fixed credentials.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3BlockstoreOptions } from '../../src/lib/server/storage/index.ts';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Settings of a blockstore in this bucket under `prefix` (`blocks/`), as `readConfig` makes them. */
  settings(prefix?: string): S3BlockstoreOptions;
  /** The environment that makes `readConfig` open this bucket. */
  env(prefix?: string): Record<string, string>;
  /** Every key in the bucket that starts with `prefix`. */
  keys(prefix?: string): Promise<string[]>;
  /** Replaces an object's bytes, as damage or tampering would. */
  overwrite(key: string, bytes: Uint8Array): Promise<void>;
  stop(): Promise<void>;
}

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** Starts an S3 server with one empty bucket (`bucket`, at least 3 characters). */
export async function startS3(bucket = 'archivo-pruebas'): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  return {
    endpoint,
    bucket,
    settings: (prefix = 'blocks/') => ({
      kind: 's3',
      bucket,
      prefix,
      endpoint,
      region: 'us-east-1',
      credentials: CREDENTIALS,
      forcePathStyle: true,
      // A test server on this machine: a stuck request is a failure, not something to wait out.
      requestTimeoutMs: 10_000,
    }),
    env: (prefix = 'blocks/') => ({
      ARCHIVE_BLOCKSTORE: 's3',
      ARCHIVE_S3_BUCKET: bucket,
      ARCHIVE_S3_PREFIX: prefix,
      ARCHIVE_S3_ENDPOINT: endpoint,
      ARCHIVE_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      ARCHIVE_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    }),
    async keys(prefix = '') {
      const keys: string[] = [];
      let token: string | undefined;
      // Bounded: a test bucket holds a few thousand objects at most.
      for (let page = 0; page < 100; page += 1) {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        keys.push(...(listed.Contents ?? []).map((object) => object.Key!));
        token = listed.NextContinuationToken;
        if (!listed.IsTruncated) break;
      }
      return keys.sort();
    },
    async overwrite(key, bytes) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes }));
    },
    async stop() {
      client.destroy();
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
