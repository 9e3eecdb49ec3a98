// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';
import tailwindcss from '@tailwindcss/vite';

// Catalogue pages read the database on every request, so the default is on-demand rendering;
// pages that are the same for everyone opt in with `export const prerender = true`.
export default defineConfig({
  output: 'server',
  // No global cap on request bodies: the upload endpoint enforces its own (configurable) limits
  // part by part as it streams, and the middleware holds every other request to a small body.
  adapter: node({ mode: 'standalone', bodySizeLimit: 0 }),
  integrations: [react()],
  server: { port: Number(process.env.PORT ?? 4321), host: process.env.HOST ?? 'localhost' },
  vite: {
    plugins: [tailwindcss()],
    // PGlite ships its PostgreSQL as WebAssembly files it loads from its own package folder:
    // bundling it would break those paths, so server-only engines stay external.
    ssr: { external: ['@electric-sql/pglite', 'pg', 'blockstore-fs'] },
    optimizeDeps: { exclude: ['@electric-sql/pglite'] },
  },
});
