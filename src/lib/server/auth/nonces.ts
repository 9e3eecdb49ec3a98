/**
 * Single-use nonces, issued by the server and spent once: by a Sign-In with Ethereum login, or by
 * one upload's confirmation signature. A nonce issued for one purpose cannot be spent on the other,
 * and an upload nonce only by the account it was issued to.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { authNonces } from '../db/schema.ts';

export const NONCE_TTL_MS = 10 * 60 * 1000;

export type NoncePurpose = { purpose: 'login' } | { purpose: 'upload'; account: string };

/** A fresh nonce: 128 random bits, alphanumeric as EIP-4361 requires. */
export async function issueNonce(
  db: Db,
  now = new Date(),
  use: NoncePurpose = { purpose: 'login' },
): Promise<{ nonce: string; expiresAt: Date }> {
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  const account = use.purpose === 'upload' ? use.account.toLowerCase() : null;
  await db.insert(authNonces).values({ nonce, createdAt: now, expiresAt, purpose: use.purpose, account });
  // Expired nonces are of no use to anyone: drop them as new ones are issued.
  await db.delete(authNonces).where(lt(authNonces.expiresAt, new Date(now.getTime() - NONCE_TTL_MS)));
  return { nonce, expiresAt };
}

/** The condition a nonce must meet to be spent: issued for this use, unused, unexpired. */
function usable(nonce: string, use: NoncePurpose, now: Date) {
  return and(
    eq(authNonces.nonce, nonce),
    eq(authNonces.purpose, use.purpose),
    use.purpose === 'upload' ? eq(authNonces.account, use.account.toLowerCase()) : undefined,
    isNull(authNonces.usedAt),
    gt(authNonces.expiresAt, now),
  );
}

/**
 * Marks `nonce` used, if it was issued here for this use, is unused and has not expired. One
 * atomic UPDATE: two requests racing with the same nonce cannot both win. Inside a transaction,
 * the nonce is spent only if the transaction commits.
 */
export async function consumeNonce(
  db: Pick<Db, 'update'>,
  nonce: string,
  now = new Date(),
  use: NoncePurpose = { purpose: 'login' },
): Promise<boolean> {
  const used = await db
    .update(authNonces)
    .set({ usedAt: now })
    .where(usable(nonce, use, now))
    .returning({ nonce: authNonces.nonce });
  return used.length === 1;
}

/** Whether `nonce` could be spent now, without spending it (to refuse a replay early). */
export async function isNonceUsable(db: Pick<Db, 'select'>, nonce: string, use: NoncePurpose, now = new Date()): Promise<boolean> {
  const [found] = await db.select({ nonce: authNonces.nonce }).from(authNonces).where(usable(nonce, use, now)).limit(1);
  return found !== undefined;
}
