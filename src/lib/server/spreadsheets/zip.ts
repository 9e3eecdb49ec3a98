/**
 * The few parts of a zip an XLSX or ODS reader needs, read from the file's bytes in memory.
 *
 * The central directory is read by hand (it is a small, fixed layout) so that every entry's
 * declared sizes and offsets are checked before anything is inflated, and parts are inflated with
 * fflate's streaming `Inflate` in small steps: the bytes that actually come out are counted
 * against the limits as they come, whatever the directory claims, so a zip bomb stops at the
 * limit instead of filling memory. Only `stored` and `deflate` entries are read, never encrypted
 * ones; zip64 sizes and offsets are understood.
 */
import { Inflate } from 'fflate';
import { SpreadsheetError, type Budget } from './limits.ts';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  flags: number;
}

export interface ZipArchive {
  bytes: Uint8Array;
  entries: Map<string, ZipEntry>;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATE = 8;
/**
 * Compressed bytes handed to the inflater at a time: at most about 4 MiB come out of each (deflate
 * expands at most about 1032 times), so a reader stopped by a budget overshoots it by little.
 */
const STEP = 4 * 1024;

const names = new TextDecoder('utf-8');

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function bigToNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new SpreadsheetError('zip64 con tamaños imposibles');
  return Number(value);
}

function findEndOfCentralDirectory(data: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end.
  const lowest = Math.max(0, data.byteLength - 22 - 0xffff);
  for (let offset = data.byteLength - 22; offset >= lowest; offset -= 1) {
    if (data.getUint32(offset, true) === EOCD) return offset;
  }
  throw new SpreadsheetError('no es un archivo zip (falta su directorio central)');
}

/** Reads the central directory; throws a `SpreadsheetError` for anything malformed or too large. */
export function openZip(bytes: Uint8Array, maxEntries: number): ZipArchive {
  const data = view(bytes);
  if (bytes.byteLength < 22) throw new SpreadsheetError('archivo demasiado corto para ser un zip');
  const eocd = findEndOfCentralDirectory(data);
  let count = data.getUint16(eocd + 10, true);
  let directoryOffset = data.getUint32(eocd + 16, true);
  if ((count === 0xffff || directoryOffset === 0xffffffff) && eocd >= 20 && data.getUint32(eocd - 20, true) === ZIP64_LOCATOR) {
    const record = bigToNumber(data.getBigUint64(eocd - 12, true));
    if (record + 56 > bytes.byteLength || data.getUint32(record, true) !== ZIP64_EOCD) {
      throw new SpreadsheetError('directorio zip64 dañado');
    }
    count = bigToNumber(data.getBigUint64(record + 32, true));
    directoryOffset = bigToNumber(data.getBigUint64(record + 48, true));
  }
  if (count > maxEntries) throw new SpreadsheetError(`el zip declara ${count} entradas (máximo ${maxEntries})`);

  const entries = new Map<string, ZipEntry>();
  let offset = directoryOffset;
  for (let i = 0; i < count; i += 1) {
    if (offset + 46 > bytes.byteLength || data.getUint32(offset, true) !== CENTRAL_ENTRY) {
      throw new SpreadsheetError('directorio central del zip dañado');
    }
    const nameLength = data.getUint16(offset + 28, true);
    const extraLength = data.getUint16(offset + 30, true);
    const commentLength = data.getUint16(offset + 32, true);
    const end = offset + 46 + nameLength + extraLength + commentLength;
    if (end > bytes.byteLength) throw new SpreadsheetError('directorio central del zip dañado');
    const entry: ZipEntry = {
      name: names.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)),
      flags: data.getUint16(offset + 8, true),
      method: data.getUint16(offset + 10, true),
      compressedSize: data.getUint32(offset + 20, true),
      uncompressedSize: data.getUint32(offset + 24, true),
      localHeaderOffset: data.getUint32(offset + 42, true),
    };
    readZip64Extra(data, offset + 46 + nameLength, extraLength, entry);
    // Names are compared without a leading slash or backslashes, as writers vary.
    const key = entry.name.replaceAll('\\', '/').replace(/^\/+/, '');
    if (!entries.has(key)) entries.set(key, entry);
    offset = end;
  }
  return { bytes, entries };
}

/** Zip64 extended information (id 1) holds, in order, the fields whose 32-bit value is all ones. */
function readZip64Extra(data: DataView, start: number, length: number, entry: ZipEntry): void {
  let offset = start;
  while (offset + 4 <= start + length) {
    const id = data.getUint16(offset, true);
    const size = data.getUint16(offset + 2, true);
    if (id === 1) {
      let field = offset + 4;
      const next = (): number => {
        if (field + 8 > offset + 4 + size) throw new SpreadsheetError('campo zip64 dañado');
        const value = bigToNumber(data.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
      return;
    }
    offset += 4 + size;
  }
}

/** The entry's compressed bytes, located through its local header. */
function compressedData(zip: ZipArchive, entry: ZipEntry): Uint8Array {
  const data = view(zip.bytes);
  const at = entry.localHeaderOffset;
  if (at + 30 > zip.bytes.byteLength || data.getUint32(at, true) !== LOCAL_HEADER) {
    throw new SpreadsheetError(`cabecera local dañada: ${entry.name}`);
  }
  const start = at + 30 + data.getUint16(at + 26, true) + data.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > zip.bytes.byteLength) throw new SpreadsheetError(`entrada cortada: ${entry.name}`);
  return zip.bytes.subarray(start, end);
}

/**
 * Streams one entry's inflated bytes to `onChunk`, at most `maxBytes` of them and within the
 * budget's total; `onChunk` answering `false` stops early. Past a limit it throws, or with `cut`
 * it hands over the bytes that fit and stops. Resolves true when the whole entry was read.
 */
export async function streamEntry(
  zip: ZipArchive,
  entry: ZipEntry,
  budget: Budget,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => Promise<boolean | void> | boolean | void,
  { cut = false } = {},
): Promise<boolean> {
  if (entry.flags & 1) throw new SpreadsheetError(`entrada cifrada: ${entry.name}`);
  if (entry.method !== STORED && entry.method !== DEFLATE) {
    throw new SpreadsheetError(`método de compresión ${entry.method} no admitido: ${entry.name}`);
  }
  const input = compressedData(zip, entry);
  let produced = 0;
  let overflow = false;
  const inflated: Uint8Array[] = [];
  const count = (chunk: Uint8Array): void => {
    if (overflow) return;
    const allowed = Math.min(maxBytes - produced, budget.remaining());
    if (cut && chunk.byteLength > allowed) {
      // What fits is still read: a cut sheet keeps every row that ends before the limit.
      if (allowed > 0) count(chunk.subarray(0, allowed));
      overflow = true;
      return;
    }
    if (produced + chunk.byteLength > maxBytes) throw new SpreadsheetError(`${entry.name} pasa de ${maxBytes} bytes descomprimida`);
    budget.inflate(chunk.byteLength);
    produced += chunk.byteLength;
    inflated.push(chunk);
  };
  const inflater = entry.method === DEFLATE ? new Inflate((chunk) => count(chunk)) : null;
  for (let offset = 0; offset < input.byteLength || offset === 0; offset += STEP) {
    const end = Math.min(offset + STEP, input.byteLength);
    const step = input.subarray(offset, end);
    if (!inflater) count(step);
    else {
      try {
        inflater.push(step, end === input.byteLength);
      } catch (error) {
        if (error instanceof SpreadsheetError) throw error;
        throw new SpreadsheetError(`datos comprimidos dañados en ${entry.name}`);
      }
    }
    for (const chunk of inflated.splice(0)) {
      if (chunk.byteLength > 0 && (await onChunk(chunk)) === false) return false;
    }
    if (overflow) return false;
    await budget.pace();
  }
  return true;
}

/** A whole (small) entry as text, or null when the zip has no such entry. */
export async function readEntryText(zip: ZipArchive, name: string, budget: Budget, maxBytes: number): Promise<string | null> {
  const entry = zip.entries.get(name);
  if (!entry) return null;
  const decoder = new TextDecoder('utf-8');
  let text = '';
  await streamEntry(zip, entry, budget, maxBytes, (chunk) => {
    text += decoder.decode(chunk, { stream: true });
  });
  return text + decoder.decode();
}
