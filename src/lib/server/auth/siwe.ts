/**
 * Sign-In with Ethereum (EIP-4361): the proof that whoever signs in holds the wallet's key.
 * A message is accepted only if it was signed by its own address, names this archive's domain,
 * carries a nonce this archive issued and nobody used, is inside its validity window, and was
 * signed on a chain the archive accepts.
 */
import { SiweMessage } from 'siwe';
import type { Db } from '../db/index.ts';
import { UnauthorizedError, ValidationError } from '../http/errors.ts';
import { consumeNonce } from './nonces.ts';

export interface SignInCheck {
  message: string;
  signature: string;
  /** Host (and port) the archive is served on: the message must name it. */
  domain: string;
  /** Chain ids accepted for signing. */
  chainIds: readonly number[];
  now?: Date;
}

/** Messages older than this are refused even without an expiration time of their own. */
const MAX_AGE_MS = 10 * 60 * 1000;

/** Verifies a signed EIP-4361 message and spends its nonce; answers the signer's address, lower-cased. */
export async function verifySignIn(db: Db, check: SignInCheck): Promise<string> {
  const now = check.now ?? new Date();
  let parsed: SiweMessage;
  try {
    parsed = new SiweMessage(check.message);
  } catch {
    throw new ValidationError('El mensaje de inicio de sesión no sigue el formato EIP-4361.');
  }
  if (!check.chainIds.includes(parsed.chainId)) {
    throw new UnauthorizedError(`La red ${parsed.chainId} no está admitida para iniciar sesión.`);
  }
  const issuedAt = Date.parse(parsed.issuedAt ?? '');
  if (!Number.isFinite(issuedAt) || now.getTime() - issuedAt > MAX_AGE_MS || issuedAt - now.getTime() > 60_000) {
    throw new UnauthorizedError('El mensaje firmado ha caducado: vuelva a iniciar sesión.');
  }
  const result = await parsed.verify(
    { signature: check.signature, domain: check.domain, nonce: parsed.nonce, time: now.toISOString() },
    { suppressExceptions: true },
  );
  if (!result.success) {
    const reason = String(result.error?.type ?? '');
    if (/domain/i.test(reason)) throw new UnauthorizedError('El mensaje firmado es para otro sitio.');
    if (/expir|not ?before|time/i.test(reason)) throw new UnauthorizedError('El mensaje firmado ha caducado: vuelva a iniciar sesión.');
    throw new UnauthorizedError('La firma no corresponde a la cartera del mensaje.');
  }
  // Only now, with a valid signature, is the nonce spent: nobody can burn another's nonce.
  if (!(await consumeNonce(db, parsed.nonce, now))) {
    throw new UnauthorizedError('Este inicio de sesión ya se usó o caducó: pida uno nuevo.');
  }
  return parsed.address.toLowerCase();
}
