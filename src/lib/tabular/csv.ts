/**
 * CSV text into rows of fields, a piece of text at a time. The delimiter and the line ending are
 * guessed by papaparse on the opening text, as before; the rows are then cut by a small
 * resumable parser that follows papaparse's rules (a field is quoted only when it starts with a
 * quote, `""` inside quotes is a quote, spaces may sit between a closing quote and what follows,
 * a stray quote inside a quoted field is kept), so a field, a quote or a CRLF split between two
 * pieces reads the same as in one piece. papaparse's own chunking wants a File or a URL it
 * fetches itself, which would bypass the encoding detection.
 *
 * One departure from papaparse: in a file whose rows end in LF, a row ending in CRLF ends there
 * too. Such files are common (rows appended by a Windows tool to a file written elsewhere), and
 * papaparse would keep the CR in the row's last field (a stray «\r» column in a comparison of
 * versions) or, after a closing quote, read the rest of the file into that field.
 */
import Papa from 'papaparse';

export type Newline = '\n' | '\r\n' | '\r';

export interface Dialect {
  delimiter: string;
  newline: Newline;
}

const DELIMITERS = [',', ';', '\t', '|'];

/** papaparse's guesses on the opening text (a few rows are enough: it looks at ten). */
export function sniffDialect(opening: string): Dialect {
  const { meta } = Papa.parse<string[]>(opening, { preview: 1, skipEmptyLines: 'greedy', delimitersToGuess: DELIMITERS });
  const newline = meta.linebreak === '\r\n' || meta.linebreak === '\r' ? meta.linebreak : '\n';
  return { delimiter: meta.delimiter || ',', newline };
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

// The parser's states.
/** At the first character of a field. */
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Just after a quote inside a quoted field (possibly followed by spaces, kept in `#spaces`). */
const AFTER_QUOTE = 3;
/** After a CR, when rows end in CRLF or in LF: a LF ends the row, anything else makes the CR text. */
const AFTER_CR = 4;

const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c || code === 0xa0;

export class CsvParser {
  readonly #delimiter: number;
  readonly #delimiterText: string;
  readonly #newline: Newline;
  #state: number = FIELD_START;
  /** Where to return after a CR that turns out not to end the row. */
  #crFrom = UNQUOTED;
  #field = '';
  #spaces = '';
  #row: string[] = [];

  constructor(dialect: Dialect) {
    if (dialect.delimiter.length !== 1) throw new Error(`Unsupported delimiter ${JSON.stringify(dialect.delimiter)}`);
    this.#delimiter = dialect.delimiter.charCodeAt(0);
    this.#delimiterText = dialect.delimiter;
    this.#newline = dialect.newline;
  }

  /** Parses `text`, calling `onRow` for every row completed in it. */
  push(text: string, onRow: (fields: string[]) => void): void {
    const delimiter = this.#delimiter;
    const newline = this.#newline;
    const n = text.length;
    let i = 0;
    let nextQuote = text.indexOf('"');
    if (nextQuote === -1) nextQuote = n;
    while (i < n) {
      if (nextQuote < i) {
        nextQuote = text.indexOf('"', i);
        if (nextQuote === -1) nextQuote = n;
      }
      // Fast path, papaparse's own when there are no quotes: a whole line, cut at the delimiters.
      if (this.#state === FIELD_START) {
        const end = text.indexOf(newline, i);
        if (end !== -1 && end < nextQuote) {
          const lineEnd = newline === '\n' && end > i && text.charCodeAt(end - 1) === CR ? end - 1 : end;
          const fields = text.slice(i, lineEnd).split(this.#delimiterText);
          const row = this.#row.length ? this.#row.concat(fields) : fields;
          this.#row = [];
          onRow(row);
          i = end + newline.length;
          continue;
        }
      }
      switch (this.#state) {
        case FIELD_START:
          if (text.charCodeAt(i) === QUOTE) {
            this.#state = QUOTED;
            i += 1;
            break;
          }
          this.#state = UNQUOTED;
        // falls through: an unquoted field starts here
        case UNQUOTED: {
          let j = i;
          let code = 0;
          for (; j < n; j += 1) {
            code = text.charCodeAt(j);
            if (code === delimiter || code === LF || code === CR) break;
          }
          if (j === n) {
            this.#field += text.slice(i, n);
            i = n;
          } else if (code === delimiter) {
            this.#endField(text.slice(i, j));
            i = j + 1;
          } else if ((code === LF && newline === '\n') || (code === CR && newline === '\r')) {
            this.#endField(text.slice(i, j));
            this.#endRow(onRow);
            i = j + 1;
          } else if (code === CR && newline !== '\r') {
            // CRLF, this file's line ending or a row's own in a LF file; a lone CR stays text.
            this.#field += text.slice(i, j);
            this.#crFrom = UNQUOTED;
            this.#state = AFTER_CR;
            i = j + 1;
          } else {
            // A line break that is not this file's: text.
            this.#field += text.slice(i, j + 1);
            i = j + 1;
          }
          break;
        }
        case QUOTED: {
          const quote = text.indexOf('"', i);
          if (quote === -1) {
            this.#field += text.slice(i);
            i = n;
          } else {
            this.#field += text.slice(i, quote);
            this.#spaces = '';
            this.#state = AFTER_QUOTE;
            i = quote + 1;
          }
          break;
        }
        case AFTER_QUOTE: {
          const code = text.charCodeAt(i);
          if (code === QUOTE && !this.#spaces) {
            this.#field += '"';
            this.#state = QUOTED;
            i += 1;
          } else if (code === delimiter) {
            this.#endField('');
            i += 1;
          } else if ((code === LF && newline === '\n') || (code === CR && newline === '\r')) {
            this.#endField('');
            this.#endRow(onRow);
            i += 1;
          } else if (code === CR && newline !== '\r') {
            this.#crFrom = AFTER_QUOTE;
            this.#state = AFTER_CR;
            i += 1;
          } else if (isSpace(code)) {
            this.#spaces += text[i];
            i += 1;
          } else {
            // A quote that closes nothing: it and what follows belong to the field.
            this.#field += `"${this.#spaces}`;
            this.#spaces = '';
            this.#state = QUOTED;
          }
          break;
        }
        case AFTER_CR:
          if (text.charCodeAt(i) === LF) {
            this.#endField('');
            this.#endRow(onRow);
            i += 1;
          } else if (this.#crFrom === UNQUOTED) {
            this.#field += '\r';
            this.#state = UNQUOTED;
          } else {
            this.#field += `"${this.#spaces}\r`;
            this.#spaces = '';
            this.#state = QUOTED;
          }
          break;
      }
    }
  }

  /** The end of the text: the last row, if it has no line break after it. */
  end(onRow: (fields: string[]) => void): void {
    if (this.#state === AFTER_CR && this.#crFrom === UNQUOTED) this.#field += '\r';
    if (this.#state !== FIELD_START || this.#row.length > 0) {
      this.#endField('');
      this.#endRow(onRow);
    }
  }

  #endField(rest: string): void {
    this.#row.push(this.#field + rest);
    this.#field = '';
    this.#state = FIELD_START;
  }

  #endRow(onRow: (fields: string[]) => void): void {
    const row = this.#row;
    this.#row = [];
    onRow(row);
  }
}

/** Whether every field of a row is blank (papaparse's `skipEmptyLines: 'greedy'`). */
export const isBlankRow = (fields: string[]) => fields.every((field) => field.trim() === '');
