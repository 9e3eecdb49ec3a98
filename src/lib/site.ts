/**
 * Public links of the archive (SPEC §1 footer and beta banner). They are configuration, not
 * secrets: `PUBLIC_*` variables are read at build time and may reach the browser. A link whose
 * address is not configured is not shown, rather than pointing somewhere invented.
 */
const env = import.meta.env;

export interface SiteLink {
  key: 'footer.chat' | 'footer.code' | 'footer.marketplace' | 'footer.status' | 'footer.docs' | 'footer.faq';
  href: string;
  external: boolean;
}

function link(key: SiteLink['key'], href: string | undefined, external = true): SiteLink[] {
  return href ? [{ key, href, external }] : [];
}

export const FOOTER_LINKS: SiteLink[] = [
  ...link('footer.chat', env.PUBLIC_CHAT_URL),
  ...link('footer.code', env.PUBLIC_CODE_URL),
  ...link('footer.marketplace', env.PUBLIC_API_MARKETPLACE_URL),
  ...link('footer.status', env.PUBLIC_STATUS_URL),
  ...link('footer.docs', '/docs', false),
  ...link('footer.faq', '/general/faq', false),
];

/** The funding platform the beta banner asks visitors to support us on. */
export const FUNDING = {
  url: (env.PUBLIC_FUNDING_URL as string | undefined) || undefined,
  platform: (env.PUBLIC_FUNDING_PLATFORM as string | undefined) || 'Open Collective',
};

/** The archive's contact address, shown (fixed, disabled) as the recipient of 'Escríbenos'. */
export const CONTACT_EMAIL = (env.PUBLIC_CONTACT_EMAIL as string | undefined) || undefined;

/** The app version the footer shows (SPEC §9). */
export const APP_VERSION = '1.3.0';

/** Public explorer of storage deals; a deal's page is this prefix followed by its dealId. */
export const DEAL_EXPLORER_URL = (env.PUBLIC_DEAL_EXPLORER_URL as string | undefined) || 'https://filfox.info/en/deal/';

/** Online spreadsheet viewer for XLSX files (SPEC §1): it receives the file's public URL. */
export function spreadsheetViewerUrl(fileUrl: string): string {
  return `https://view.officeapps.live.com/op/view.aspx?src=${encodeURIComponent(fileUrl)}`;
}
