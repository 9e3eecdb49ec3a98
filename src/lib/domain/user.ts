/**
 * The user of SPEC §3: `id` is base64 of `account-provider`, as the original API spelled it. It is
 * an identifier that anyone can compute, never a credential (DECISIONS: Identity and sessions).
 */
export interface User {
  id: string;
  account: string;
  provider: string;
}

/** Providers a session can come from: an injected browser wallet, or Magic Connect. */
export const PROVIDERS = ['metamask', 'magic'] as const;
export type Provider = (typeof PROVIDERS)[number];

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function userId(account: string, provider: string): string {
  return toBase64(`${account}-${provider}`);
}

export function toUser(account: string, provider: string): User {
  return { id: userId(account, provider), account, provider };
}
