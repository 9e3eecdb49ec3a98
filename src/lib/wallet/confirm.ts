/**
 * The contributor's confirmation (DECISIONS: Contribution): the SHA-256 of both files, computed in
 * the browser as they are read (a large file is never held whole in memory), and the wallet's
 * signature of the message that binds them to this upload's nonce.
 */
import { sha256 } from '@noble/hashes/sha256';
import { bytesToHex } from '@noble/hashes/utils';
import { BrowserProvider } from 'ethers';
import { confirmationMessage } from '../domain/upload.ts';
import { walletProvider } from './signin.ts';

/** SHA-256 of `file`, lower-case hex, read as a stream. */
export async function sha256OfFile(file: Blob): Promise<string> {
  const hash = sha256.create();
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hash.update(value);
  }
  return bytesToHex(hash.digest());
}

/** The wallet's account differs from the session's: signing with it would be refused. */
export class OtherAccountError extends Error {
  constructor() {
    super('The wallet has another account open');
    this.name = 'OtherAccountError';
  }
}

export interface Confirmation {
  message: string;
  signature: string;
}

/**
 * Asks the wallet to sign the confirmation message. The account that signs must be `account`,
 * the one the session belongs to; the server checks it again.
 */
export async function signConfirmation(
  facts: { documentSha256: string; proofSha256: string; nonce: string },
  account: string,
  magicApiKey?: string,
): Promise<Confirmation> {
  const { eip1193 } = await walletProvider(magicApiKey);
  const provider = new BrowserProvider(eip1193);
  const accounts = (await provider.send('eth_requestAccounts', [])) as string[];
  const current = accounts.find((candidate) => candidate.toLowerCase() === account.toLowerCase());
  if (!current) throw new OtherAccountError();
  const message = confirmationMessage(facts);
  const signer = await provider.getSigner(current);
  return { message, signature: await signer.signMessage(message) };
}
