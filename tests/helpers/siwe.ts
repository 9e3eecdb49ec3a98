/** Real Sign-In with Ethereum proofs for tests: an ethers wallet with a fixed test key signs. */
import { Wallet } from 'ethers';
import { SIGN_IN_STATEMENT } from '../../src/lib/wallet/signin.ts';
import { signInMessage, type SignInFields } from '../../src/lib/domain/siwe-message.ts';

/** Fixed test keys (never used outside tests). */
export const ALICE = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
export const MALLORY = new Wallet('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

export async function signedProof(wallet: Wallet, overrides: Partial<SignInFields> & { nonce: string }) {
  const now = new Date();
  const message = signInMessage({
    domain: 'archivo.test',
    address: wallet.address,
    statement: SIGN_IN_STATEMENT,
    uri: 'https://archivo.test',
    chainId: 11155111,
    issuedAt: now.toISOString(),
    expirationTime: new Date(now.getTime() + 10 * 60 * 1000).toISOString(),
    ...overrides,
  });
  return { message, signature: await wallet.signMessage(message) };
}
