/**
 * Office Open XML workbooks (ECMA-376: `.xlsx`, transitional or strict): the workbook's sheet
 * list and relationships, shared strings, the number formats of `styles.xml`, then each
 * worksheet streamed row by row. Cells show their cached values: formulas are never evaluated,
 * and a string that looks like a formula (`=HYPERLINK(…)`) stays the string it is.
 */
import { builtinFormatKind, classifyFormat, formatBoolean, formatIsoDate, formatXlsxNumber, type ValueKind } from './cell-format.ts';
import type { Budget } from './limits.ts';
import { RowCells } from './sheet-table.ts';
import type { SheetSink } from './sink.ts';
import { attribute, parseEntry, type XmlHandlers, type XmlTag } from './xml.ts';
import type { ZipArchive } from './zip.ts';

interface Relationship {
  type: string;
  target: string;
}

/** `target` resolved against the folder of `base` (a part path), as OPC resolves relationship targets. */
function resolvePart(base: string, target: string): string {
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    // Not percent-encoded after all: use it as it is.
  }
  const parts = decoded.startsWith('/') ? [] : base.split('/').slice(0, -1);
  for (const segment of decoded.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

/** The relationships of `part` (from `dir/_rels/name.rels`), by id. */
async function relationshipsOf(zip: ZipArchive, part: string, budget: Budget): Promise<Map<string, Relationship>> {
  const slash = part.lastIndexOf('/');
  const relsPath = `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
  const relationships = new Map<string, Relationship>();
  await parseEntry(zip, relsPath, budget, budget.limits.maxMetadataBytes, {
    open(tag) {
      if (tag.local !== 'Relationship') return;
      const id = attribute(tag, 'Id');
      const target = attribute(tag, 'Target');
      if (id && target && attribute(tag, 'TargetMode') !== 'External') {
        relationships.set(id, { type: attribute(tag, 'Type') ?? '', target: resolvePart(part, target) });
      }
    },
    close() {},
    text() {},
  });
  return relationships;
}

const ofType = (relationships: Map<string, Relationship>, type: string) =>
  [...relationships.values()].find((relationship) => relationship.type.endsWith(`/${type}`));

interface WorkbookSheet {
  name: string;
  relationshipId: string;
}

async function readWorkbook(zip: ZipArchive, part: string, budget: Budget) {
  const sheets: WorkbookSheet[] = [];
  let date1904 = false;
  await parseEntry(zip, part, budget, budget.limits.maxMetadataBytes, {
    open(tag) {
      if (tag.local === 'workbookPr') date1904 = ['1', 'true'].includes(attribute(tag, 'date1904') ?? '');
      if (tag.local === 'sheet') {
        const relationshipId = Object.values(tag.attributes).find((attr) => attr.local === 'id' && attr.uri.endsWith('/relationships'))?.value;
        if (relationshipId) sheets.push({ name: attribute(tag, 'name') ?? '', relationshipId });
      }
    },
    close() {},
    text() {},
  });
  return { sheets, date1904 };
}

/** OOXML escapes characters XML cannot hold as `_xHHHH_` (and a literal `_x` as `_x005F_x`). */
function unescapeOoxml(text: string): string {
  return text.includes('_x') ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
}

/** Collects the text of `<t>` elements, leaving out phonetic runs (`<rPh>`), up to `max` characters. */
class RichText {
  text = '';
  private inT = false;
  private phonetic = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  open(tag: XmlTag): void {
    if (tag.local === 'rPh') this.phonetic += 1;
    else if (tag.local === 't' && this.phonetic === 0) this.inT = true;
  }

  close(tag: XmlTag): void {
    if (tag.local === 'rPh') this.phonetic -= 1;
    else if (tag.local === 't') this.inT = false;
  }

  add(text: string): void {
    // One character past the limit is kept, so that `RowCells.put` sees the cell was cut.
    if (this.inT && this.text.length <= this.max) this.text = (this.text + text).slice(0, this.max + 1);
  }
}

async function readSharedStrings(zip: ZipArchive, part: string | undefined, budget: Budget): Promise<string[]> {
  const strings: string[] = [];
  if (!part) return strings;
  let item: RichText | null = null;
  await parseEntry(zip, part, budget, budget.limits.maxPartBytes, {
    open(tag) {
      if (tag.local === 'si') item = new RichText(budget.limits.maxCellChars);
      else item?.open(tag);
    },
    close(tag) {
      if (tag.local === 'si' && item) {
        strings.push(unescapeOoxml(item.text));
        item = null;
      } else item?.close(tag);
    },
    text(text) {
      item?.add(text);
    },
  });
  return strings;
}

/** What each cell style (`cellXfs`, by index) shows a number as. */
async function readStyles(zip: ZipArchive, part: string | undefined, budget: Budget): Promise<ValueKind[]> {
  const kinds: ValueKind[] = [];
  if (!part) return kinds;
  const custom = new Map<number, string>();
  const formatIds: number[] = [];
  let inCellXfs = false;
  await parseEntry(zip, part, budget, budget.limits.maxMetadataBytes, {
    open(tag) {
      if (tag.local === 'numFmt') custom.set(Number(attribute(tag, 'numFmtId')), attribute(tag, 'formatCode') ?? '');
      else if (tag.local === 'cellXfs') inCellXfs = true;
      else if (tag.local === 'xf' && inCellXfs) formatIds.push(Number(attribute(tag, 'numFmtId') ?? 0));
    },
    close(tag) {
      if (tag.local === 'cellXfs') inCellXfs = false;
    },
    text() {},
  });
  for (const id of formatIds) {
    const code = custom.get(id);
    kinds.push(code !== undefined ? classifyFormat(code) : builtinFormatKind(id));
  }
  return kinds;
}

/** 0-based column of a cell reference such as `AB12`, or undefined. */
function columnOf(reference: string | undefined): number | undefined {
  const letters = reference ? /^\$?([A-Za-z]{1,3})/.exec(reference)?.[1] : undefined;
  if (!letters) return undefined;
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column - 1;
}

interface Workbook {
  strings: string[];
  kinds: ValueKind[];
  date1904: boolean;
}

interface CellState {
  column: number | undefined;
  type: string;
  style: number;
  value: string;
  inValue: boolean;
  inline: RichText | null;
}

function cellText(cell: CellState, workbook: Workbook): string {
  const value = cell.value;
  if (cell.type !== 'inlineStr' && value === '') return '';
  switch (cell.type) {
    case 's':
      return workbook.strings[Number(value)] ?? '';
    case 'inlineStr':
      return unescapeOoxml(cell.inline?.text ?? value);
    case 'str':
      return unescapeOoxml(value);
    case 'b':
      return formatBoolean(value.trim() === '1' || value.trim() === 'true');
    case 'e':
      return value;
    case 'd':
      return formatIsoDate(value);
    default: {
      if (value.trim() === '') return '';
      const number = Number(value);
      if (Number.isNaN(number)) return value;
      return formatXlsxNumber(number, workbook.kinds[cell.style] ?? 'number', workbook.date1904);
    }
  }
}

/** Streams one worksheet part into a table of the sink. */
async function readWorksheet(zip: ZipArchive, part: string, workbook: Workbook, budget: Budget, sink: SheetSink, index: number, name: string) {
  const table = sink.table();
  const limits = budget.limits;
  let inSheetData = false;
  let row: RowCells | null = null;
  let nextRow = 0;
  let cell: CellState | null = null;
  const handlers: XmlHandlers = {
    open(tag) {
      if (tag.local === 'sheetData') inSheetData = true;
      else if (!inSheetData) return;
      else if (tag.local === 'row') {
        const number = Number(attribute(tag, 'r'));
        // Rows the file leaves out are blank; a row number going backwards is taken as the next row.
        if (Number.isInteger(number) && number - 1 > nextRow) {
          table.addBlankRows(number - 1 - nextRow);
          nextRow = number - 1;
        }
        row = new RowCells(limits);
      } else if (tag.local === 'c' && row) {
        // Past the workbook's budget of cells, the sheet ends with the rows read until then.
        if (!budget.countCell()) {
          table.stop();
          row = null;
          return;
        }
        cell = {
          column: columnOf(attribute(tag, 'r')),
          type: attribute(tag, 't') ?? 'n',
          style: Number(attribute(tag, 's') ?? 0),
          value: '',
          inValue: false,
          inline: null,
        };
      } else if (cell) {
        if (tag.local === 'v') cell.inValue = true;
        else if (tag.local === 'is') cell.inline = new RichText(limits.maxCellChars);
        else cell.inline?.open(tag);
      }
    },
    close(tag) {
      if (!inSheetData) return;
      if (tag.local === 'sheetData') inSheetData = false;
      else if (tag.local === 'row' && row) {
        table.addRow(row);
        nextRow += 1;
        row = null;
      } else if (tag.local === 'c' && cell && row) {
        row.put(cellText(cell, workbook), cell.column);
        cell = null;
      } else if (cell) {
        if (tag.local === 'v') cell.inValue = false;
        else cell.inline?.close(tag);
      }
    },
    text(text) {
      if (!cell) return;
      if (cell.inValue && cell.value.length <= limits.maxCellChars) cell.value = (cell.value + text).slice(0, limits.maxCellChars + 1);
      else cell.inline?.add(text);
    },
  };
  // A sheet larger than the limits keeps the rows read until then.
  const outcome = await parseEntry(zip, part, budget, limits.maxPartBytes, handlers, { stop: () => table.full, cut: true });
  if (outcome === 'cut') table.truncated = true;
  sink.end(index, name, table);
  await sink.flush();
}

/** Reads every worksheet of an XLSX into `sink`, in workbook order. */
export async function readXlsx(zip: ZipArchive, budget: Budget, sink: SheetSink): Promise<void> {
  const root = await relationshipsOf(zip, '', budget);
  const workbookPart = ofType(root, 'officeDocument')?.target ?? 'xl/workbook.xml';
  const { sheets, date1904 } = await readWorkbook(zip, workbookPart, budget);
  const relationships = await relationshipsOf(zip, workbookPart, budget);
  const workbook: Workbook = {
    strings: await readSharedStrings(zip, ofType(relationships, 'sharedStrings')?.target, budget),
    kinds: await readStyles(zip, ofType(relationships, 'styles')?.target, budget),
    date1904,
  };
  for (const [index, sheet] of sheets.slice(0, budget.limits.maxSheets).entries()) {
    if (budget.cellsExhausted) break;
    const relationship = relationships.get(sheet.relationshipId);
    // Chart sheets, dialog sheets and macro sheets hold no cells.
    if (!relationship?.type.endsWith('/worksheet')) continue;
    await readWorksheet(zip, relationship.target, workbook, budget, sink, index, sheet.name);
  }
}
