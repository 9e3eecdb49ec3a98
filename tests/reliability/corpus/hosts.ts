/**
 * Odd `Host` headers (issue #16): the adapter builds `http://${host}${path}` from them, so one
 * with credentials (`x@y`) used to stop the whole process, one with a path re-routed the request,
 * and any other name ended up in the archive's public URLs and cached answers. Each is refused
 * with a 400 before anything builds a URL from it; the archive's own names are served.
 */
import { login } from './api.ts';
import { get, raw } from './send.ts';
import type { CorpusContext, HostileCase } from './types.ts';
import { signedProof } from '../../helpers/siwe.ts';
import { testWallet } from '../support/archive-client.ts';

/** A raw GET of `path` whose head carries `hostLines` (each a whole header line, or none). */
function withHost(context: CorpusContext, address: string, path: string, hostLines: string[], target = path) {
  const lines = [`GET ${target} HTTP/1.1`, ...hostLines, 'Connection: close'];
  return raw(context, address, `${lines.join('\r\n')}\r\n\r\n`);
}

const ODD_HOSTS: Array<[string, string]> = [
  ['credentials (x@y)', 'x@y'],
  ['credentials with our own host', '127.0.0.1@evil.example'],
  ['a path after the name', 'evil.example/moderacion?'],
  ['a fragment', 'evil.example#x'],
  ['a space inside', 'evil example'],
  ['a backslash', 'evil.example\\x'],
  ['a name that is not ours', 'evil.example'],
  ['non-ASCII letters', 'árchivo.example'],
  ['a port that is not a number', 'localhost:abc'],
  ['an unclosed IPv6 bracket', '[::1'],
];

const PATHS = ['/', '/dashboard', '/robots.txt', '/favicon.svg', '/export/catalogo.csv', '/catalog.ttl', '/auth/login'];

export const HOST_CASES: HostileCase[] = [
  ...ODD_HOSTS.flatMap(([what, host]) =>
    PATHS.map((path): HostileCase => ({
      name: `host: ${what} on ${path}`,
      bullet: 'host',
      expect: { status: 400, excludes: ['evil.example/'] },
      send: (context, address) => withHost(context, address, path, [`Host: ${host}`]),
    })),
  ),
  { name: 'host: none at all', bullet: 'host', expect: 400, send: (context, address) => withHost(context, address, '/dashboard', []) },
  {
    name: 'host: two Host headers',
    bullet: 'host',
    expect: 400,
    send: (context, address) => withHost(context, address, '/dashboard', [`Host: ${context.host}`, 'Host: evil.example']),
  },
  {
    name: 'host: an absolute URL as the request target',
    bullet: 'host',
    expect: 400,
    send: (context, address) => withHost(context, address, '/dashboard', [`Host: ${context.host}`], 'http://evil.example/moderacion'),
  },
  {
    name: 'host: ten thousand characters',
    bullet: 'host',
    expect: [400, 431],
    send: (context, address) => withHost(context, address, '/dashboard', [`Host: ${'a'.repeat(10_000)}.example`]),
  },
  {
    // The phishing sign-in of the audit: a message for the page's own domain, posted with that Host.
    name: 'host: sign-in for a phishing domain, posted with its Host',
    bullet: 'host',
    expect: 400,
    send: async (context, address) => {
      const { nonce } = JSON.parse((await get(context, address, '/auth/nonce')).body) as { nonce: string };
      const proof = await signedProof(testWallet('phished-moderator'), { nonce, domain: 'phish.example', uri: 'https://phish.example' });
      const body = JSON.stringify({ ...proof, provider: 'metamask' });
      const head = ['POST /auth/login HTTP/1.1', 'Host: phish.example', 'Origin: https://phish.example', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
      return raw(context, address, `${head.join('\r\n')}\r\n\r\n${body}`);
    },
  },
  {
    name: 'host: sign-in for a phishing domain, on our own Host',
    bullet: 'host',
    expect: 401,
    send: (context, address) =>
      login(context, address, async (nonce) => ({ ...(await signedProof(testWallet('phished-twice'), { nonce, domain: 'phish.example', uri: 'https://phish.example' })), provider: 'metamask' })),
  },
  {
    name: 'host: sign-in for our domain whose URI is another site',
    bullet: 'host',
    expect: 401,
    send: (context, address) =>
      login(context, address, async (nonce) => ({ ...(await signedProof(testWallet('phished-uri'), { nonce, domain: context.host, uri: 'https://phish.example/entrar' })), provider: 'metamask' })),
  },
];
