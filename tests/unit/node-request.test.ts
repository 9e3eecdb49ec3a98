import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeRequestOf, withNodeRequest } from '../../src/lib/server/http/node-request.ts';

/**
 * The upload endpoint reads a contribution from the socket when `scripts/start.ts` hands it the
 * Node request. Only the request being served, and only while its body is unread, may be used.
 */
let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves one POST of `body` and answers what `inspect` found for the web Request built from it. */
async function serveOnce(inspect: (node: http.IncomingMessage, web: Request) => Promise<unknown> | unknown): Promise<unknown> {
  server = http.createServer((node, response) => {
    const web = new Request(`http://archivo.test${node.url}`, { method: node.method });
    void Promise.resolve(inspect(node, web)).then((found) => response.end(JSON.stringify(found ?? null)));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const answer = await fetch(`http://127.0.0.1:${port}/v2/ops/assets/add?x=1`, { method: 'POST', body: 'cuerpo de prueba' });
  return answer.json();
}

describe('nodeRequestOf', () => {
  it('gives the Node request being served, whose body can then be read directly', async () => {
    const found = await serveOnce((node, web) =>
      withNodeRequest(node, async () => {
        const raw = nodeRequestOf(web);
        if (raw !== node) return 'otra';
        let text = '';
        for await (const chunk of raw) text += String(chunk);
        return text;
      }),
    );
    expect(found).toBe('cuerpo de prueba');
  });

  it('gives nothing when the server did not provide it (astro dev, the adapter’s own server)', async () => {
    expect(await serveOnce((node, web) => nodeRequestOf(web) === undefined)).toBe(true);
  });

  it('gives nothing for another request or a body already read', async () => {
    const found = await serveOnce((node, web) =>
      withNodeRequest(node, async () => {
        const otherPath = nodeRequestOf(new Request('http://archivo.test/otra', { method: 'POST' }));
        const otherMethod = nodeRequestOf(new Request(web.url, { method: 'GET' }));
        for await (const chunk of node) void chunk;
        const afterReading = nodeRequestOf(web);
        return [otherPath, otherMethod, afterReading].map((value) => value === undefined);
      }),
    );
    expect(found).toEqual([true, true, true]);
  });
});
