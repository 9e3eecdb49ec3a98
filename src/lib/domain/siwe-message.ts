/**
 * An EIP-4361 (Sign-In with Ethereum) message, written out as the standard lays it down. The
 * browser builds it here rather than with the `siwe` package, whose parser the server uses to read
 * it back: that keeps a grammar library out of the sign-in page. A test checks both agree.
 */
export interface SignInFields {
  domain: string;
  /** EIP-55 checksummed address. */
  address: string;
  statement: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  /** When the message starts being valid (the browser never sets it; the server honours it). */
  notBefore?: string;
}

export function signInMessage(fields: SignInFields): string {
  const lines = [
    `${fields.domain} wants you to sign in with your Ethereum account:`,
    fields.address,
    '',
    fields.statement,
    '',
    `URI: ${fields.uri}`,
    'Version: 1',
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt}`,
  ];
  if (fields.expirationTime) lines.push(`Expiration Time: ${fields.expirationTime}`);
  if (fields.notBefore) lines.push(`Not Before: ${fields.notBefore}`);
  return lines.join('\n');
}
