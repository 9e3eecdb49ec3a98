/**
 * Contributions: the upload endpoint's recipe, and the single-use nonce its confirmation message
 * carries. See `add-asset.ts` for the order of the checks.
 */
import type { User } from '../../domain/user.ts';
import { issueNonce } from '../auth/nonces.ts';
import { spend } from '../auth/rate-limit.ts';
import type { Db } from '../db/index.ts';
import { UnauthorizedError } from '../http/errors.ts';

export { addAsset, type AddedAsset, type UploadContext } from './add-asset.ts';
export { sweepInterruptedUploads } from './imports.ts';

/** A nonce for one upload's confirmation, bound to the signed-in wallet. */
export async function uploadNonce(db: Db, user: User | null, clientAddress: string): Promise<{ nonce: string; expiresAt: Date }> {
  if (!user) throw new UnauthorizedError('Inicie sesión con su cartera para contribuir un documento.');
  await spend(db, `upload-nonce:ip:${clientAddress}`, { max: 30, windowSeconds: 60 });
  return issueNonce(db, new Date(), { purpose: 'upload', account: user.account });
}
