/**
 * Streaming XML over a zip entry: bytes are inflated, decoded and parsed a step at a time, so a
 * sheet of a hundred megabytes never exists whole in memory, as bytes or as a tree.
 *
 * saxes is a strict, non-validating parser: it knows only XML's five predefined entities and
 * character references, and never expands entities a DOCTYPE declares (an undefined entity is an
 * error), so "billion laughs" files and external entities cannot reach anything.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { SpreadsheetError, type Budget } from './limits.ts';
import { streamEntry, type ZipArchive } from './zip.ts';

export type XmlTag = SaxesTagNS;

export interface XmlHandlers {
  open(tag: XmlTag): void;
  close(tag: XmlTag): void;
  text(text: string): void;
}

/** The value of the attribute `local` in namespace `uri` ('' for an unprefixed one), or undefined. */
export function attribute(tag: XmlTag, local: string, uri = ''): string | undefined {
  for (const key in tag.attributes) {
    const attr = tag.attributes[key];
    if (attr && attr.local === local && attr.uri === uri) return attr.value;
  }
  return undefined;
}

/** The encoding of an XML part from its first bytes: UTF-8 unless a UTF-16 byte order mark says otherwise. */
function encodingOf(head: Uint8Array): string {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

export interface ParseOptions {
  /** Checked after each step: true ends the parse early (the rest is neither inflated nor parsed). */
  stop?: () => boolean;
  /** Past the size limits, end the parse where it is (`'cut'`) instead of throwing. */
  cut?: boolean;
  /** Awaited after each step and at the end: where a reader hands finished work on. */
  afterStep?: () => Promise<void>;
}

/**
 * Parses the zip entry `name` with `handlers`: `'complete'` once it is all read, `'stopped'` when
 * `stop()` ended it, `'cut'` when it was cut at a size limit, `'missing'` when the zip has no such entry.
 */
export async function parseEntry(
  zip: ZipArchive,
  name: string,
  budget: Budget,
  maxBytes: number,
  handlers: XmlHandlers,
  { stop = () => false, afterStep = async () => {}, cut = false }: ParseOptions = {},
): Promise<'complete' | 'stopped' | 'cut' | 'missing'> {
  const entry = zip.entries.get(name);
  if (!entry) return 'missing';
  const parser = new SaxesParser({ xmlns: true, position: false });
  parser.on('opentag', (tag) => handlers.open(tag));
  parser.on('closetag', (tag) => handlers.close(tag));
  parser.on('text', (text) => handlers.text(text));
  parser.on('cdata', (text) => handlers.text(text));
  let decoder: TextDecoder | undefined;
  const fail = (error: unknown): never => {
    if (error instanceof SpreadsheetError) throw error;
    throw new SpreadsheetError(`XML no válido en ${name}: ${error instanceof Error ? error.message : String(error)}`);
  };
  const whole = await streamEntry(
    zip,
    entry,
    budget,
    maxBytes,
    async (chunk) => {
      decoder ??= new TextDecoder(encodingOf(chunk));
      try {
        parser.write(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        fail(error);
      }
      await afterStep();
      return !stop();
    },
    { cut },
  );
  const outcome = stop() ? 'stopped' : whole ? 'complete' : 'cut';
  if (outcome === 'complete') {
    try {
      parser.write(decoder?.decode() ?? '');
      parser.close();
    } catch (error) {
      fail(error);
    }
  }
  await afterStep();
  return outcome;
}
