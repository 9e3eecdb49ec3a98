/**
 * One CSV field, written for the spreadsheets people open our CSVs in (the catalogue's exports, the
 * sheets taken out of XLSX and ODS files). A text that starts like a formula (`=`, `+`, `-`, `@`, a
 * tab or a carriage return) is prefixed with `'`, so that Excel or LibreOffice shows it instead of
 * running it (OWASP, "CSV injection"): the archive's copies come from strangers' files and
 * catalogues. A number written as text ("-2.5", "+1e3") stays as it is: it runs nothing, and it is data.
 */

/**
 * What a spreadsheet would read as the start of a formula; and a text that already starts with
 * apostrophes before one, so that defusing always adds one and `undefusedField` can take exactly
 * that one back («'=x» is written «''=x»).
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** A number as a spreadsheet reads one: harmless, and data that must not change. */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const NEEDS_QUOTES = /[",\r\n]/;

const needsDefusing = (text: string) => FORMULA_START.test(text) && !PLAIN_NUMBER.test(text);

/** A value as one CSV field: formula starts defused, quoted when it holds a quote, comma or line break. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && needsDefusing(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A field's text as it was before `csvField` defused it: what the archive's own pages show of a
 * CSV it wrote (a sheet's preview in the record page's search), where a «'-» in place of a
 * spreadsheet's «-» would only puzzle the reader. Nothing a page shows is run as a formula.
 */
export function undefusedField(text: string): string {
  return text.startsWith("'") && needsDefusing(text.slice(1)) ? text.slice(1) : text;
}
