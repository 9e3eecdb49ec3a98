/**
 * Headers every page of the archive carries (issue #10), beside the Content-Security-Policy that
 * Astro computes per page (astro.config.mjs): no MIME sniffing, no referrer leaking paths to other
 * sites, and no framing by other sites (also `frame-ancestors 'none'` in the CSP).
 * Applied by the middleware to rendered responses and, after the build, to prerendered pages
 * (scripts/static-headers.ts), which the server sends without running the middleware.
 */
import { withEditedHeaders } from './response-headers.ts';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Sets the security headers on `response` without overriding any it chose itself. */
export function withSecurityHeaders(response: Response): Response {
  return withEditedHeaders(response, (headers) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!headers.has(name)) headers.set(name, value);
  });
}
