/**
 * The Node request behind the web `Request` an endpoint receives, when the server provides it.
 *
 * The adapter turns each Node request into a web `Request` whose body is a web stream fed from the
 * Node one: every chunk is wrapped, copied and passed through promises on the way. For ordinary
 * bodies that costs nothing worth noticing; for a contribution of hundreds of megabytes it was a
 * large share of the server's work (and of its garbage). `scripts/start.ts` serves each request
 * inside `withNodeRequest`, so that the upload endpoint can read the socket's bytes directly.
 * Elsewhere (`astro dev`, the adapter's own server, tests) there is none and the web body is used.
 *
 * The store is process-wide (a registered symbol on `globalThis`): `scripts/start.ts` and the
 * built server bundle each load their own copy of this module.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';

const KEY = Symbol.for('archivo-abierto.node-request');

function store(): AsyncLocalStorage<IncomingMessage> {
  const global = globalThis as { [KEY]?: AsyncLocalStorage<IncomingMessage> };
  return (global[KEY] ??= new AsyncLocalStorage<IncomingMessage>());
}

/** Runs `serve` (the adapter's handler) with `request` reachable from the endpoint it reaches. */
export function withNodeRequest<T>(request: IncomingMessage, serve: () => T): T {
  return store().run(request, serve);
}

/**
 * The Node request that `request` was made from, if the server provided it and nobody has read
 * its body yet; otherwise undefined (read `request.body`).
 */
export function nodeRequestOf(request: Request): IncomingMessage | undefined {
  const node = store().getStore();
  if (!node || node.method !== request.method || node.readableDidRead || node.readableEnded) return undefined;
  const url = new URL(request.url);
  return node.url === url.pathname + url.search ? node : undefined;
}
