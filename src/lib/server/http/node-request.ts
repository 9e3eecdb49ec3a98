/**
 * The Node request behind the web `Request` an endpoint receives, and the outlet of its Node
 * response (`backpressure.ts`), when the server provides them.
 *
 * The adapter turns each Node request into a web `Request` whose body is a web stream fed from the
 * Node one: every chunk is wrapped, copied and passed through promises on the way. For ordinary
 * bodies that costs nothing worth noticing; for a contribution of hundreds of megabytes it was a
 * large share of the server's work (and of its garbage). `scripts/start.ts` serves each request
 * inside `withNodeRequest`, so that the upload endpoint can read the socket's bytes directly, and
 * the middleware can pace what it answers to what the client reads. Elsewhere (`astro dev`, the
 * adapter's own server, tests) there is none: the web body is used, and bodies go unpaced.
 *
 * The store is process-wide (a registered symbol on `globalThis`): `scripts/start.ts` and the
 * built server bundle each load their own copy of this module.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { Outlet } from './backpressure.ts';

const KEY = Symbol.for('archivo-abierto.node-request');

interface Exchange {
  request: IncomingMessage;
  outlet?: Outlet;
}

function store(): AsyncLocalStorage<Exchange> {
  const global = globalThis as { [KEY]?: AsyncLocalStorage<Exchange> };
  return (global[KEY] ??= new AsyncLocalStorage<Exchange>());
}

/** Runs `serve` (the adapter's handler) with `request`, and its response's `outlet`, reachable from the route it reaches. */
export function withNodeRequest<T>(request: IncomingMessage, serve: () => T, outlet?: Outlet): T {
  return store().run({ request, outlet }, serve);
}

/**
 * The Node request that `request` was made from, if the server provided it and nobody has read
 * its body yet; otherwise undefined (read `request.body`).
 */
export function nodeRequestOf(request: Request): IncomingMessage | undefined {
  const node = store().getStore()?.request;
  if (!node || node.method !== request.method || node.readableDidRead || node.readableEnded) return undefined;
  const url = new URL(request.url);
  return node.url === url.pathname + url.search ? node : undefined;
}

/** The outlet of the Node response being served, if the server tracks its writes. */
export function currentOutlet(): Outlet | undefined {
  return store().getStore()?.outlet;
}
