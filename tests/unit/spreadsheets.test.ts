import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseTable } from '../../src/lib/tabular/table.ts';
import {
  classifyFormat,
  formatIsoDate,
  formatIsoDuration,
  formatNumber,
  formatSerial,
} from '../../src/lib/server/spreadsheets/cell-format.ts';
import { readSheets, SpreadsheetError } from '../../src/lib/server/spreadsheets/index.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const SPREADSHEETS = fixturePath('files/spreadsheets');
const fixture = async (name: string) => new Uint8Array(await fs.readFile(path.join(SPREADSHEETS, name)));
const lines = (csv: string) => csv.split('\r\n').slice(0, -1);

/** A zip of `files` (deflated), as office suites write them. */
function zip(files: Record<string, string>): Uint8Array {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text, 'utf8');
    const compressed = zlib.deflateRawSync(data);
    const fileName = Buffer.from(name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0800, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(zlib.crc32(data), 14);
    header.writeUInt32LE(compressed.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(fileName.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(zlib.crc32(data), 16);
    entry.writeUInt32LE(compressed.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(fileName.length, 28);
    entry.writeUInt32LE(offset, 42);
    local.push(header, fileName, compressed);
    central.push(entry, fileName);
    offset += header.length + fileName.length + compressed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...local, directory, end]));
}

const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function xlsx(sheetData: string, { styles = '', date1904 = false } = {}): Uint8Array {
  return zip({
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<workbook ${MAIN} xmlns:r="${REL}"><workbookPr${date1904 ? ' date1904="1"' : ''}/><sheets><sheet name="Datos" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/styles" Target="/xl/styles.xml"/></Relationships>`,
    'xl/styles.xml': `<styleSheet ${MAIN}>${styles}</styleSheet>`,
    'xl/worksheets/sheet1.xml': `<worksheet ${MAIN}><sheetData>${sheetData}</sheetData></worksheet>`,
  });
}

function ods(rows: string): Uint8Array {
  return zip({
    mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
    'content.xml':
      '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">' +
      `<office:body><office:spreadsheet><table:table table:name="Datos">${rows}</table:table></office:spreadsheet></office:body></office:document-content>`,
  });
}

describe('the real spreadsheet fixtures', () => {
  it('the CNSS workbook (XLSX): its one sheet, header with accents and spaces as written, amounts without float noise', async () => {
    const [sheet, ...others] = await readSheets(await fixture('cnss-recaudos-sfs-2003-2023.xlsx'));
    expect(others).toEqual([]);
    expect(sheet).toMatchObject({ index: 0, name: 'Recaudo y Dispersión', rows: 246, columns: 7, truncated: false });
    const csv = lines(sheet!.csv);
    expect(csv[0]).toBe(
      'Año,Fecha, Recaudo, Dispersión a Instituciones involucradas con el SDSS ,' +
        '" Seguro Vejez, Discapacidad y Sobrevivencia (SVDS) ", Seguro Riesgos Laborales SRL , Seguro Familiar de Salud (SFS) ',
    );
    // The file stores 289981369.08999997: a reader sees 289,981,369.09.
    expect(csv.slice(1, 3)).toEqual(['2003, Julio ,266085484.56,0,0,0,0', '2003, Agosto ,289981369.09,0,0,0,0']);
    expect(csv.at(-1)).toBe('2023,Noviembre,16421399444.18,15880121218.6,7685582640.75,791770772.88,7402767804.97');
    expect(csv).toHaveLength(246);
  });

  it('the same workbook saved as ODS gives the same CSV, cell for cell (only the sheet name differs)', async () => {
    const [fromXlsx] = await readSheets(await fixture('cnss-recaudos-sfs-2003-2023.xlsx'));
    const [fromOds, ...others] = await readSheets(await fixture('cnss-recaudos-sfs-2003-2023.ods'));
    expect(others).toEqual([]);
    // LibreOffice wrote the sheet's name with underscores when it saved this copy.
    expect(fromOds).toMatchObject({ name: 'Recaudo_y_Dispersión', rows: 246, columns: 7, truncated: false });
    expect(fromOds!.csv).toBe(fromXlsx!.csv);
  });

  it('the CSV reads in the CSV search panel: header found, names trimmed', async () => {
    const [sheet] = await readSheets(await fixture('cnss-recaudos-sfs-2003-2023.ods'));
    const table = parseTable(sheet!.csv);
    expect(table?.columns).toEqual([
      'Año',
      'Fecha',
      'Recaudo',
      'Dispersión a Instituciones involucradas con el SDSS',
      'Seguro Vejez, Discapacidad y Sobrevivencia (SVDS)',
      'Seguro Riesgos Laborales SRL',
      'Seguro Familiar de Salud (SFS)',
    ]);
    expect(table?.rows[0]).toEqual(['2003', 'Julio', '266085484.56', '0', '0', '0', '0']);
    expect(table?.rows).toHaveLength(245);
  });

  it('the ONE workbook: nine sheets by year, title rows kept above the header, totals from formulas', async () => {
    const sheets = await readSheets(await fixture('one-primas-netas-seguros-2015-2023.xlsx'));
    expect(sheets.map((sheet) => [sheet.index, sheet.name])).toEqual(
      ['2015', '2016', '2017', '2018', '2019', '2020', '2021', '2022', '2023'].map((name, index) => [index, name]),
    );
    expect(sheets.every((sheet) => sheet.columns === 13 && !sheet.truncated)).toBe(true);
    const csv = lines(sheets[0]!.csv);
    expect(csv[0]).toBe(',,,,,,,,,,,,');
    expect(csv[1]).toBe('"Cuadro 10.1 REPÚBLICA DOMINICANA: Prima neta cobrada, por rama de seguros, según mes, 2015*",,,,,,,,,,,,');
    expect(csv[4]).toMatch(/^ {5}Mes,Total,Vida individual ,Vida colectivo ,Salud ,Accidentes {2}personales,Incendio y líneas aliadas,/);
    // B7 is =SUM(B9:B24), cached as 35628261631.849998.
    expect(csv[6]).toMatch(/^Total,35628261631\.85,134775184\.25,6178739927\.3,/);

    const table = parseTable(sheets[8]!.csv);
    expect(table?.columns.slice(0, 3)).toEqual(['Mes', 'Total', 'Vida individual']);
    expect(table?.rows[1]?.slice(0, 2)).toEqual(['Enero', '7588092446.5']);
    expect(table?.rows.map((row) => row[0])).toContain('Abril');
  });

  it('the legacy .xls (BIFF) file is out of scope: it is not a zip, and says so', async () => {
    await expect(readSheets(await fixture('one-companias-aseguradoras-1995-2022.xls'))).rejects.toThrow(SpreadsheetError);
  });
});

describe('cell values as a reader sees them', () => {
  it('numbers: 15 significant digits, no float noise, no exponent for large integers', () => {
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    // eslint-disable-next-line no-loss-of-precision -- the float noise is the point: this literal is 1234.56 plus one ulp.
    expect(formatNumber(1234.5600000000001)).toBe('1234.56');
    expect(formatNumber(-0)).toBe('0');
    expect(formatNumber(16429856571.440001)).toBe('16429856571.44');
    expect(formatNumber(Number.NaN)).toBe('');
  });

  it('Excel serial dates, with the phantom 29 February 1900 and the 1904 system', () => {
    expect(formatSerial(45000, 'date')).toBe('2023-03-15');
    expect(formatSerial(45000.75, 'date')).toBe('2023-03-15 18:00:00');
    expect(formatSerial(1, 'date')).toBe('1900-01-01');
    expect(formatSerial(59, 'date')).toBe('1900-02-28');
    expect(formatSerial(60, 'date')).toBe('1900-02-29');
    expect(formatSerial(61, 'date')).toBe('1900-03-01');
    expect(formatSerial(0, 'date', true)).toBe('1904-01-01');
    expect(formatSerial(0.999999, 'time')).toBe('00:00:00');
    expect(formatSerial(-1, 'date')).toBeNull();
  });

  it('ISO dates and durations (ODS values)', () => {
    expect(formatIsoDate('2023-03-15')).toBe('2023-03-15');
    expect(formatIsoDate('2023-03-15T00:00:00')).toBe('2023-03-15');
    expect(formatIsoDate('2023-03-15T23:59:59.7')).toBe('2023-03-16');
    expect(formatIsoDuration('PT14H05M00S')).toBe('14:05:00');
    expect(formatIsoDuration('PT36H00M00S')).toBe('36:00:00');
  });

  it('number formats by what they show', () => {
    expect(classifyFormat('General')).toBe('number');
    expect(classifyFormat('_-* #,##0\\ _P_t_s_-;\\-* #,##0\\ _P_t_s_-;_-* "- "_P_t_s_-;_-@_-')).toBe('number');
    expect(classifyFormat('_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)')).toBe('number');
    expect(classifyFormat('[Black][>0.05]#,##0.0;[Black][<-0.05]\\-#,##0.0;;')).toBe('number');
    expect(classifyFormat('0.0%')).toBe('percent');
    expect(classifyFormat('mmm\\ dd\\,\\ yyyy')).toBe('date');
    expect(classifyFormat('mmm-yy')).toBe('date');
    expect(classifyFormat('[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy')).toBe('date');
    expect(classifyFormat('h:mm AM/PM')).toBe('time');
    expect(classifyFormat('[h]:mm:ss')).toBe('duration');
    expect(classifyFormat('"Fecha de corte"')).toBe('number');
  });
});

describe('an XLSX and an ODS with the same cells give the same CSV', () => {
  const header = ['Fecha', 'Fecha y hora', 'Proporción', 'Monto', 'Hora', 'Duración', 'Entero', 'Lógico', 'Texto'];
  const styles =
    '<numFmts count="5"><numFmt numFmtId="164" formatCode="dd/mm/yyyy\\ hh:mm"/><numFmt numFmtId="165" formatCode="0.0%"/>' +
    '<numFmt numFmtId="166" formatCode="#,##0.00\\ &quot;RD$&quot;"/><numFmt numFmtId="167" formatCode="h:mm"/><numFmt numFmtId="168" formatCode="[h]:mm:ss"/></numFmts>' +
    '<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>' +
    '<cellXfs count="8"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="167"/><xf numFmtId="168"/><xf numFmtId="3"/></cellXfs>';
  const workbook = xlsx(
    `<row r="1">${header.map((name, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>${name}</t></is></c>`).join('')}</row>` +
      '<row r="2"><c r="A2" s="1"><v>45000</v></c><c r="B2" s="2"><v>45000.5</v></c><c r="C2" s="3"><v>0.155</v></c>' +
      '<c r="D2" s="4"><v>1234.5600000000001</v></c><c r="E2" s="5"><v>0.58402777777777781</v></c><c r="F2" s="6"><v>1.5</v></c>' +
      '<c r="G2" s="7"><v>1234567</v></c><c r="H2" t="b"><v>1</v></c><c r="I2" t="inlineStr"><is><t>Niño, "ñandú"</t></is></c></row>' +
      // Row 3 is missing (blank); row 4 starts at column C.
      '<row r="4"><c r="C4" t="inlineStr"><is><r><t>Línea 1</t></r><r><t xml:space="preserve">\nLínea 2</t></r></is></c></row>',
    { styles },
  );
  const cell = (attributes: string, text = '') => `<table:table-cell ${attributes}><text:p>${text}</text:p></table:table-cell>`;
  const spreadsheet = ods(
    `<table:table-row>${header.map((name) => cell('office:value-type="string"', name)).join('')}<table:table-cell table:number-columns-repeated="16375"/></table:table-row>` +
      '<table:table-row>' +
      cell('office:value-type="date" office:date-value="2023-03-15"', '15/03/2023') +
      cell('office:value-type="date" office:date-value="2023-03-15T12:00:00"', '15/03/2023 12:00') +
      cell('office:value-type="percentage" office:value="0.155"', '15.5%') +
      cell('office:value-type="currency" office:currency="DOP" office:value="1234.56"', '1,234.56 RD$') +
      cell('office:value-type="time" office:time-value="PT14H01M00S"', '14:01') +
      cell('office:value-type="time" office:time-value="PT36H00M00S"', '36:00:00') +
      cell('office:value-type="float" office:value="1234567"', '1,234,567') +
      cell('office:value-type="boolean" office:boolean-value="true"', 'VERDADERO') +
      '<table:table-cell office:value-type="string"><text:p>Niño, <text:span>"ñandú"</text:span></text:p>' +
      '<office:annotation><text:p>Un comentario que no es parte de la celda</text:p></office:annotation></table:table-cell>' +
      '</table:table-row>' +
      '<table:table-row><table:table-cell table:number-columns-repeated="1024"/></table:table-row>' +
      '<table:table-row><table:covered-table-cell table:number-columns-repeated="2"/>' +
      '<table:table-cell office:value-type="string"><text:p>Línea 1</text:p><text:p>Línea 2</text:p></table:table-cell></table:table-row>' +
      '<table:table-row table:number-rows-repeated="1048572"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>',
  );
  const expected = [
    'Fecha,Fecha y hora,Proporción,Monto,Hora,Duración,Entero,Lógico,Texto',
    '2023-03-15,2023-03-15 12:00:00,15.5%,1234.56,14:01:00,36:00:00,1234567,VERDADERO,"Niño, ""ñandú"""',
    ',,,,,,,,',
    ',,"Línea 1\nLínea 2",,,,,,',
  ];

  it('XLSX', async () => {
    const [sheet] = await readSheets(workbook);
    expect(lines(sheet!.csv)).toEqual(expected);
    expect(sheet).toMatchObject({ name: 'Datos', rows: 4, columns: 9, truncated: false });
  });

  it('ODS', async () => {
    const [sheet] = await readSheets(spreadsheet);
    expect(lines(sheet!.csv)).toEqual(expected);
    expect(sheet).toMatchObject({ name: 'Datos', rows: 4, columns: 9, truncated: false });
  });

  it('a workbook in the 1904 date system', async () => {
    const [sheet] = await readSheets(xlsx('<row r="1"><c r="A1" s="1"><v>0</v></c><c r="B1" s="1"><v>43538</v></c></row>', { styles, date1904: true }));
    expect(sheet!.csv).toBe('1904-01-01,2023-03-15\r\n');
  });

  it('ODF white space: runs collapse, text:s keeps spaces', async () => {
    const [sheet] = await readSheets(
      ods('<table:table-row><table:table-cell office:value-type="string"><text:p>  dos   espacios <text:s text:c="2"/>y\tfin  </text:p></table:table-cell></table:table-row>'),
    );
    expect(sheet!.csv).toBe('dos espacios   y fin\r\n');
  });
});
