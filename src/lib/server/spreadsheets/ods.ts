/**
 * OpenDocument spreadsheets (ODF 1.2+ `.ods`): every `table:table` of `content.xml`, streamed.
 *
 * Cells carry their value in `office:value-type` and `office:*-value` attributes, and the text a
 * reader sees in `text:p` paragraphs; values are formatted like the XLSX reader's so the two
 * formats agree. Repeated rows and cells (`table:number-rows-repeated`,
 * `table:number-columns-repeated`) are expanded only when they hold something: the million empty
 * rows LibreOffice writes at the end of a sheet are counted, never written.
 */
import { formatBoolean, formatIsoDate, formatIsoDuration, formatNumber, formatPercent } from './cell-format.ts';
import type { Budget } from './limits.ts';
import { RowCells, type SheetTable } from './sheet-table.ts';
import type { SheetSink } from './sink.ts';
import { attribute, parseEntry, type XmlTag } from './xml.ts';
import type { ZipArchive } from './zip.ts';

const OFFICE = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
const TABLE = 'urn:oasis:names:tc:opendocument:xmlns:table:1.0';
const TEXT = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
const CALCEXT = 'urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0';

function repeated(tag: XmlTag, name: string): number {
  const count = Number(attribute(tag, name, TABLE) ?? 1);
  return Number.isInteger(count) && count > 0 ? count : 1;
}

/**
 * The text of a cell's paragraphs. ODF collapses white space inside a paragraph (runs become one
 * space, none at either end); spaces that count are written as `text:s`, tabs and breaks as
 * elements of their own.
 */
class CellText {
  readonly paragraphs: string[] = [];
  private current = '';
  private collapsible = false;
  private depth = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get inParagraph(): boolean {
    return this.depth > 0;
  }

  startParagraph(): void {
    if (this.depth++ === 0) {
      this.current = '';
      this.collapsible = false;
    }
  }

  endParagraph(): void {
    if (--this.depth > 0) return;
    this.paragraphs.push(this.collapsible ? this.current.slice(0, -1) : this.current);
  }

  /** Appends `text`, keeping one character past the limit so that `RowCells.put` sees the cut. */
  private append(text: string): void {
    this.current = (this.current + text).slice(0, this.max + 1);
  }

  /** Literal characters: `text:s`, `text:tab`, `text:line-break`. */
  literal(text: string): void {
    if (this.depth === 0 || this.current.length > this.max) return;
    this.append(text);
    this.collapsible = false;
  }

  text(text: string): void {
    if (this.depth === 0 || this.current.length > this.max) return;
    let collapsed = text.replace(/[ \t\r\n]+/g, ' ');
    if (collapsed.startsWith(' ') && (this.collapsible || this.current === '')) collapsed = collapsed.slice(1);
    if (collapsed === '') return;
    this.append(collapsed);
    this.collapsible = collapsed.endsWith(' ');
  }
}

interface CellState {
  tag: XmlTag;
  repeat: number;
  text: CellText;
  /** Depth inside content that is not the cell's text: annotations, notes, frames, nested tables. */
  skip: number;
}

function cellValue(cell: CellState): string {
  const { tag } = cell;
  const type = attribute(tag, 'value-type', OFFICE) ?? attribute(tag, 'value-type', CALCEXT);
  const text = cell.text.paragraphs.join('\n');
  const number = (name: string) => {
    const value = attribute(tag, name, OFFICE);
    return value === undefined || value.trim() === '' ? Number.NaN : Number(value);
  };
  switch (type) {
    case 'float':
    case 'currency':
      return Number.isFinite(number('value')) ? formatNumber(number('value')) : text;
    case 'percentage':
      return Number.isFinite(number('value')) ? formatPercent(number('value')) : text;
    case 'date': {
      const value = attribute(tag, 'date-value', OFFICE);
      return value ? formatIsoDate(value) : text;
    }
    case 'time': {
      const value = attribute(tag, 'time-value', OFFICE);
      return value ? formatIsoDuration(value) : text;
    }
    case 'boolean': {
      const value = attribute(tag, 'boolean-value', OFFICE);
      return value ? formatBoolean(value === 'true' || value === '1') : text;
    }
    case 'string':
      return attribute(tag, 'string-value', OFFICE) ?? text;
    default:
      return text;
  }
}

const isCell = (tag: XmlTag) => tag.uri === TABLE && (tag.local === 'table-cell' || tag.local === 'covered-table-cell');

/** Reads every sheet of an ODS into `sink`, in document order. */
export async function readOds(zip: ZipArchive, budget: Budget, sink: SheetSink): Promise<void> {
  const limits = budget.limits;
  let sheetCount = 0;
  /** The sheet being read; its table is null past the sheet limit. */
  let sheet: { index: number; name: string; table: SheetTable | null } | null = null;
  let row: { cells: RowCells; repeat: number } | null = null;
  let cell: CellState | null = null;

  const openInCell = (current: CellState, tag: XmlTag) => {
    if (current.skip > 0) current.skip += 1;
    else if (tag.uri === TEXT && (tag.local === 'p' || tag.local === 'h')) current.text.startParagraph();
    else if (tag.uri === TEXT && tag.local === 's') {
      const count = Number(attribute(tag, 'c', TEXT) ?? 1);
      current.text.literal(' '.repeat(Number.isInteger(count) && count > 0 ? Math.min(count, limits.maxCellChars) : 1));
    } else if (tag.uri === TEXT && tag.local === 'tab') current.text.literal('\t');
    else if (tag.uri === TEXT && tag.local === 'line-break') current.text.literal('\n');
    // Spans, links and the like are transparent; notes, annotations, frames and anything else
    // inside a cell (a nested table included) are not part of what the cell shows.
    else if (tag.uri !== TEXT || tag.local === 'note' || tag.local === 'ruby-text') current.skip = 1;
  };

  const endSheet = (truncated: boolean) => {
    if (sheet?.table) {
      if (truncated) sheet.table.truncated = true;
      sink.end(sheet.index, sheet.name, sheet.table);
    }
    sheet = null;
  };

  const closeInCell = (current: CellState, tag: XmlTag) => {
    if (current.skip > 0) current.skip -= 1;
    else if (tag.uri === TEXT && (tag.local === 'p' || tag.local === 'h')) current.text.endParagraph();
  };

  const outcome = await parseEntry(
    zip,
    'content.xml',
    budget,
    limits.maxPartBytes,
    {
      open(tag) {
        if (cell) return openInCell(cell, tag);
        if (tag.uri !== TABLE) return;
        if (tag.local === 'table' && !sheet) {
          const index = sheetCount++;
          sheet = { index, name: attribute(tag, 'name', TABLE) ?? '', table: index < limits.maxSheets ? sink.table() : null };
        } else if (tag.local === 'table-row' && sheet) {
          row = { cells: new RowCells(limits), repeat: repeated(tag, 'number-rows-repeated') };
        } else if (isCell(tag) && row) {
          // Past the workbook's budget of cells, the sheet ends with the rows read until then.
          if (!budget.countCell()) {
            sheet?.table?.stop();
            row = null;
            return;
          }
          cell = { tag, repeat: repeated(tag, 'number-columns-repeated'), text: new CellText(limits.maxCellChars), skip: 0 };
        }
      },
      close(tag) {
        if (cell && !(cell.skip === 0 && isCell(tag))) return closeInCell(cell, tag);
        if (cell && row) {
          row.cells.put(cellValue(cell), undefined, cell.repeat);
          cell = null;
        } else if (tag.uri === TABLE && tag.local === 'table-row' && row) {
          sheet?.table?.addRow(row.cells, row.repeat);
          row = null;
        } else if (tag.uri === TABLE && tag.local === 'table') {
          endSheet(false);
        }
      },
      text(text) {
        if (cell && cell.skip === 0) cell.text.text(text);
      },
    },
    { afterStep: () => sink.flush(), stop: () => budget.cellsExhausted, cut: true },
  );
  // Cut at a size limit, or out of cells: the sheet being read keeps the rows read until then;
  // later ones are lost.
  if (outcome === 'cut' || outcome === 'stopped') {
    endSheet(true);
    await sink.flush();
  }
}
