/**
 * Sign-In with Ethereum (EIP-4361): the proof that whoever signs in holds the wallet's key.
 * A message is accepted only if it was signed by its own address, names this archive's domain,
 * carries a nonce this archive issued and nobody used, is inside its validity window, and was
 * signed on a chain the archive accepts.
 */
import { verifyMessage } from 'ethers';
import { SiweMessage } from 'siwe';
import type { Db } from '../db/index.ts';
import { UnauthorizedError, ValidationError } from '../http/errors.ts';
import { consumeNonce } from './nonces.ts';

export interface SignInCheck {
  message: string;
  signature: string;
  /** Hosts (and ports) the archive is served on, from configuration: the message must name one. */
  domains: readonly string[];
  /** Chain ids accepted for signing. */
  chainIds: readonly number[];
  now?: Date;
}

/** Messages older than this are refused even without an expiration time of their own. */
const MAX_AGE_MS = 10 * 60 * 1000;
/** Clocks differ: a message may say it was issued this far in the future. */
const CLOCK_SKEW_MS = 60_000;

const EXPIRED = 'El mensaje firmado ha caducado: vuelva a iniciar sesión.';

function time(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Date.parse(value);
  if (!Number.isFinite(parsed)) throw new ValidationError('El mensaje de inicio de sesión tiene una fecha no válida.');
  return parsed;
}

/** The address that signed `message` (EIP-191), or null for a signature that is not one (malformed, high-s…). */
function signerOf(message: string, signature: string): string | null {
  try {
    return verifyMessage(message, signature).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Verifies a signed EIP-4361 message and spends its nonce; answers the signer's address, lower-cased.
 * Each field is checked here, in order, so that each refusal says what is wrong with it (the siwe
 * library's own `verify` lumps a not-yet-valid message with a bad signature, and logs a stack trace
 * for a malformed signature).
 */
export async function verifySignIn(db: Db, check: SignInCheck): Promise<string> {
  const now = (check.now ?? new Date()).getTime();
  let parsed: SiweMessage;
  try {
    parsed = new SiweMessage(check.message);
  } catch {
    throw new ValidationError('El mensaje de inicio de sesión no sigue el formato EIP-4361.');
  }
  // The domain the wallet showed its user, and the page that asked: both must be this archive.
  let uri: URL | undefined;
  try {
    uri = new URL(parsed.uri);
  } catch {
    uri = undefined;
  }
  if (!check.domains.includes(parsed.domain.toLowerCase()) || !uri || uri.host !== parsed.domain.toLowerCase() || !/^https?:$/.test(uri.protocol)) {
    throw new UnauthorizedError('El mensaje firmado es para otro sitio.');
  }
  if (!check.chainIds.includes(parsed.chainId)) {
    throw new UnauthorizedError(`La red ${parsed.chainId} no está admitida para iniciar sesión.`);
  }
  const issuedAt = time(parsed.issuedAt);
  if (issuedAt === undefined || now - issuedAt > MAX_AGE_MS) throw new UnauthorizedError(EXPIRED);
  const notBefore = time(parsed.notBefore);
  if (issuedAt - now > CLOCK_SKEW_MS || (notBefore !== undefined && notBefore - now > CLOCK_SKEW_MS)) {
    throw new UnauthorizedError('El mensaje firmado todavía no es válido: revise la hora de su dispositivo y vuelva a intentarlo.');
  }
  const expiresAt = time(parsed.expirationTime);
  if (expiresAt !== undefined && expiresAt <= now) throw new UnauthorizedError(EXPIRED);
  // The signature must cover the message exactly as the grammar reads it.
  if (signerOf(parsed.prepareMessage(), check.signature) !== parsed.address.toLowerCase()) {
    throw new UnauthorizedError('La firma no corresponde a la cartera del mensaje.');
  }
  // Only now, with a valid signature, is the nonce spent: nobody can burn another's nonce.
  if (!(await consumeNonce(db, parsed.nonce, new Date(now)))) {
    throw new UnauthorizedError('Este inicio de sesión ya se usó o caducó: pida uno nuevo.');
  }
  return parsed.address.toLowerCase();
}
