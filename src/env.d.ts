/// <reference types="astro/client" />

interface ImportMetaEnv {
  readonly PUBLIC_CHAT_URL?: string;
  readonly PUBLIC_CODE_URL?: string;
  readonly PUBLIC_API_MARKETPLACE_URL?: string;
  readonly PUBLIC_STATUS_URL?: string;
  readonly PUBLIC_FUNDING_URL?: string;
  readonly PUBLIC_FUNDING_PLATFORM?: string;
  readonly PUBLIC_MAGIC_API_KEY?: string;
}
