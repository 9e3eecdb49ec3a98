/// <reference types="astro/client" />

interface ImportMetaEnv {
  readonly PUBLIC_CHAT_URL?: string;
  readonly PUBLIC_CODE_URL?: string;
  readonly PUBLIC_API_MARKETPLACE_URL?: string;
  readonly PUBLIC_STATUS_URL?: string;
  readonly PUBLIC_FUNDING_URL?: string;
  readonly PUBLIC_FUNDING_PLATFORM?: string;
  readonly PUBLIC_MAGIC_API_KEY?: string;
  readonly PUBLIC_DEAL_EXPLORER_URL?: string;
}

declare namespace App {
  interface Locals {
    /** The archive's public origin (`ARCHIVE_PUBLIC_URL`, or the address it was started on), for absolute links. */
    origin: string;
    /** The client as rate limits count it: the socket's peer, or what a trusted proxy says it is (`ARCHIVE_TRUSTED_PROXIES`); an IPv6 client as its /64. */
    clientAddress: string;
    /** The signed-in user of this request (`Authorization: Bearer` or the cookie), or null; resolved once by the middleware. */
    user: import('./lib/domain/user.ts').User | null;
    /** Whether `user` is one of `ARCHIVE_MODERATORS`. */
    moderator: boolean;
    /** Set when a page found no such record or group: the 404 then stays a 404 even when signed in. */
    missing?: boolean;
    /** Set when a list's page number was past its end (`pastLastPage`): the 404 links the last page. */
    lastPage?: { page: number; href: string };
  }
}
