/**
 * Signing in from the browser: connect an EIP-1193 wallet (the injected one, or Magic Connect's),
 * build the EIP-4361 message for this archive with the server's nonce, have the wallet sign it,
 * and trade the signature for a session.
 */
import { BrowserProvider, getAddress, type Eip1193Provider } from 'ethers';
import { ApiError, fetchNonce, postLogin } from '../api/auth.ts';
import { fieldErrors, loginFieldsSchema } from '../domain/auth.ts';
import { signInMessage } from '../domain/siwe-message.ts';
import type { Provider, User } from '../domain/user.ts';

declare global {
  interface Window {
    ethereum?: Eip1193Provider;
  }
}

// EIP-4361 allows only ASCII in the statement (its ABNF), hence "sesion" without its accent.
export const SIGN_IN_STATEMENT = 'Inicio de sesion en Archivo Abierto con esta cartera.';
export { WALLET_DOWNLOAD_URL } from './availability.ts';

export class NoWalletError extends Error {
  constructor() {
    super('No browser wallet');
    this.name = 'NoWalletError';
  }
}

/** The wallet to sign with: Magic Connect when configured (loaded only now), else the injected one. */
export async function walletProvider(magicApiKey: string | undefined): Promise<{ eip1193: Eip1193Provider; provider: Provider }> {
  if (magicApiKey) {
    const { Magic } = await import('magic-sdk');
    const magic = new Magic(magicApiKey);
    await magic.wallet.connectWithUI();
    return { eip1193: magic.rpcProvider as unknown as Eip1193Provider, provider: 'magic' };
  }
  if (!window.ethereum) throw new NoWalletError();
  return { eip1193: window.ethereum, provider: 'metamask' };
}

export async function signIn(magicApiKey?: string): Promise<{ accessToken: string; user: User }> {
  const { eip1193, provider } = await walletProvider(magicApiKey);
  const browserProvider = new BrowserProvider(eip1193);
  const accounts = (await browserProvider.send('eth_requestAccounts', [])) as string[];
  const account = accounts[0];
  // SPEC §8: a wallet that yields no account.
  if (!account) throw new ApiError('500', 'connection not valid');
  // SPEC §5 'Login form': account and provider, each 3 to 50 characters.
  const fields = loginFieldsSchema.safeParse({ account, provider });
  if (!fields.success) throw new ApiError('400', fieldErrors(fields.error)[0]?.message ?? 'connection not valid');
  const signer = await browserProvider.getSigner(account);
  const { chainId } = await browserProvider.getNetwork();
  const { nonce } = await fetchNonce();
  const now = new Date();
  const message = signInMessage({
    domain: window.location.host,
    address: getAddress(account),
    statement: SIGN_IN_STATEMENT,
    uri: window.location.origin,
    chainId: Number(chainId),
    nonce,
    issuedAt: now.toISOString(),
    expirationTime: new Date(now.getTime() + 10 * 60 * 1000).toISOString(),
  });
  const signature = await signer.signMessage(message);
  return postLogin({ message, signature, provider });
}
