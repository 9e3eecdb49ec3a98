/**
 * The archive's own addresses, which it never harvests: its own catalogue (`/catalog.jsonld`, the
 * DCAT every Archivo Abierto publishes) read back would file every record again as a new one, and
 * the next run those copies too; and a catalogue whose pages redirect there would have the archive
 * build its own heaviest answers for nothing. The hosts come from the configuration
 * (`allowedHosts`: the public URL's and `ARCHIVE_ALLOWED_HOSTS`), never from a request.
 */

/**
 * Whether `url` is at one of `ownHosts` (`host[:port]`, as the configuration writes them): the
 * same name, a trailing dot aside (`archivo.gob.do.` is the same name to DNS and to a proxy), and
 * the same port, where a configured host without one stands for the web's default ports.
 */
export function isOwnAddress(url: URL, ownHosts: readonly string[]): boolean {
  const name = withoutTrailingDot(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return ownHosts.some((entry) => {
    let own: URL;
    try {
      own = new URL(`http://${entry}`);
    } catch {
      return false;
    }
    if (withoutTrailingDot(own.hostname) !== name) return false;
    return own.port === '' ? port === '80' || port === '443' : own.port === port;
  });
}

/** Why a catalogue at the archive's own address is not read, in Spanish, for `what` (the catalogue, a page of it). */
export function ownAddressMessage(what: string, url: URL): string {
  return `${what} es la del propio archivo (${url.host}): cosecharlo archivaría de nuevo cada uno de sus registros, y en la cosecha siguiente también esas copias.`;
}

function withoutTrailingDot(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}
