/**
 * Hostile spreadsheets built in memory for tests (issue #16): zips whose parts inflate a
 * thousandfold, assembled from raw deflate pieces so that a gigabyte of XML costs megabytes.
 */
import zlib from 'node:zlib';

export const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
export const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export interface Part {
  name: string;
  /** Raw deflate. */
  deflated: Buffer;
  /** The uncompressed size the zip declares (1 KB unless given): a zip bomb lies about it. */
  declaredSize?: number;
}

/** Raw deflate of `text` ending on a full flush, not final: such pieces concatenate, and one piece may repeat. */
const openPiece = (text: string) => zlib.deflateRawSync(text, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
export const part = (name: string, text: string): Part => ({ name, deflated: zlib.deflateRawSync(text) });

/** A part of `head`, `body` repeated `times` (deflated once, the bytes repeated) and `tail`. */
export const repeatedPart = (name: string, head: string, body: string, times: number, tail: string): Part => ({
  name,
  deflated: Buffer.concat([openPiece(head), ...Array<Buffer>(times).fill(openPiece(body)), zlib.deflateRawSync(tail)]),
});

/** A zip of `parts`; sizes declared as each part says (1 KB by default) and CRCs as zero (the reader trusts neither). */
export function zip(parts: Part[]): Uint8Array {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const { name, deflated, declaredSize = 1024 } of parts) {
    const fileName = Buffer.from(name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(deflated.length, 18);
    header.writeUInt32LE(declaredSize, 22);
    header.writeUInt16LE(fileName.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(deflated.length, 20);
    entry.writeUInt32LE(declaredSize, 24);
    entry.writeUInt16LE(fileName.length, 28);
    entry.writeUInt32LE(offset, 42);
    chunks.push(header, fileName, deflated);
    central.push(entry, fileName);
    offset += header.length + fileName.length + deflated.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...chunks, directory, end]));
}

/** A one-sheet workbook around `sheet` (the part `xl/worksheets/sheet1.xml`), with shared strings when given. */
export function workbook(sheet: Part, sharedStrings?: Part): Uint8Array {
  return zip([
    part('xl/workbook.xml', `<workbook ${MAIN} xmlns:r="${REL}"><sheets><sheet name="Hoja1" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    part(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
        (sharedStrings ? `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : '') +
        '</Relationships>',
    ),
    sheet,
    ...(sharedStrings ? [sharedStrings] : []),
  ]);
}

export const ROW = `<row>${'<c><v>1</v></c>'.repeat(100)}</row>`;
/** About 1 MiB of rows, a hundred cells each. */
const ROWS = ROW.repeat(Math.floor(2 ** 20 / ROW.length));

/**
 * A sheet of a hundred cells a row that inflates to `bytes` (1 GiB: about 3 MB of file); `tag`
 * makes files with otherwise the same content differ.
 */
export const gigabyteSheet = (bytes = 2 ** 30, tag = '') =>
  workbook(repeatedPart('xl/worksheets/sheet1.xml', `<worksheet ${MAIN}>${tag ? `<!--${tag}-->` : ''}<sheetData>`, ROWS, Math.round(bytes / ROWS.length), '</sheetData></worksheet>'));

/** One cell at ALL1 and one at A1000000: about 1 KB that used to write a 191 MB preview. */
export const farApartCells = () =>
  workbook(
    part(
      'xl/worksheets/sheet1.xml',
      `<worksheet ${MAIN}><sheetData><row r="1"><c r="ALL1" t="inlineStr"><is><t>Derecha</t></is></c></row>` +
        '<row r="1000000"><c r="A1000000" t="inlineStr"><is><t>Abajo</t></is></c></row></sheetData></worksheet>',
    ),
  );

