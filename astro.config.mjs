// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';
import tailwindcss from '@tailwindcss/vite';

/** Magic Connect runs in its own frame and talks to its own API, when it is configured. */
const magic = Boolean(process.env.PUBLIC_MAGIC_API_KEY);

// Catalogue pages read the database on every request, so the default is on-demand rendering;
// pages that are the same for everyone opt in with `export const prerender = true`.
export default defineConfig({
  output: 'server',
  // No global cap on request bodies: the upload endpoint enforces its own (configurable) limits
  // part by part as it streams, and the middleware holds every other request to a small body.
  adapter: node({ mode: 'standalone', bodySizeLimit: 0, staticHeaders: true }),
  integrations: [react()],
  // Content Security Policy (issue #10): Astro hashes every script and style it emits, so no inline
  // script runs unless it is ours; /theme.js is a file (same origin). Inline style *attributes*
  // (progress bars' widths) stay allowed: they cannot run code.
  security: {
    // Our middleware checks the Origin of form posts against the configured hosts instead
    // (src/lib/server/http/origin-check.ts): Astro compares it with the URL the adapter rebuilt,
    // which is http:// behind a proxy that ends TLS, and refused the archive's own forms there.
    checkOrigin: false,
    csp: {
      directives: [
        "default-src 'self'",
        "img-src 'self' data:",
        `connect-src 'self'${magic ? ' https://*.magic.link' : ''}`,
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "worker-src 'self' blob:",
        ...(magic ? [/** @type {const} */ ('frame-src https://auth.magic.link')] : []),
      ],
      styleDirective: { resources: ["'self'", "'unsafe-inline'"] },
      scriptDirective: { resources: ["'self'"] },
    },
  },
  // No page renders Markdown (nor uses Astro's <Code>): highlighting off, which spares every build
  // Astro's warning about Shiki under a CSP.
  markdown: { syntaxHighlight: false },
  server: { port: Number(process.env.PORT ?? 4321), host: process.env.HOST ?? 'localhost' },
  vite: {
    plugins: [tailwindcss()],
    // PGlite ships its PostgreSQL as WebAssembly files it loads from its own package folder:
    // bundling it would break those paths, so server-only engines stay external.
    ssr: {
      external: ['@electric-sql/pglite', 'pg', 'blockstore-fs'],
      // drizzle-orm is bundled: loaded from node_modules, Node parses its 180 KB package.json once
      // per imported file, and that 150 MB of garbage at start-up leaves the heap (and RSS) grown.
      noExternal: ['drizzle-orm'],
    },
    optimizeDeps: { exclude: ['@electric-sql/pglite'] },
  },
});
