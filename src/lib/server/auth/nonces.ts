/** Single-use Sign-In with Ethereum nonces: issued by the server, consumed by one login. */
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { authNonces } from '../db/schema.ts';

export const NONCE_TTL_MS = 10 * 60 * 1000;

/** A fresh nonce: 128 random bits, alphanumeric as EIP-4361 requires. */
export async function issueNonce(db: Db, now = new Date()): Promise<{ nonce: string; expiresAt: Date }> {
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  await db.insert(authNonces).values({ nonce, createdAt: now, expiresAt });
  // Expired nonces are of no use to anyone: drop them as new ones are issued.
  await db.delete(authNonces).where(lt(authNonces.expiresAt, new Date(now.getTime() - NONCE_TTL_MS)));
  return { nonce, expiresAt };
}

/**
 * Marks `nonce` used, if it was issued here, is unused and has not expired. One atomic UPDATE:
 * two logins racing with the same nonce cannot both win.
 */
export async function consumeNonce(db: Db, nonce: string, now = new Date()): Promise<boolean> {
  const used = await db
    .update(authNonces)
    .set({ usedAt: now })
    .where(and(eq(authNonces.nonce, nonce), isNull(authNonces.usedAt), gt(authNonces.expiresAt, now)))
    .returning({ nonce: authNonces.nonce });
  return used.length === 1;
}
