/**
 * Runs before every page and endpoint: fills `Astro.locals` with what every page needs to know
 * about the request (the archive's public origin, for canonical links).
 */
import { defineMiddleware } from 'astro:middleware';
import { readConfig } from './lib/server/config.ts';

const config = readConfig();

export const onRequest = defineMiddleware((context, next) => {
  context.locals.origin = config.publicUrl ?? context.url.origin;
  return next();
});
