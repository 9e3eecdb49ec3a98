/**
 * Text a contributor types, as the archive keeps it and measures it (issue #16, item 15).
 *
 * Invisible characters must neither fill a length minimum (a title of 20 zero-width spaces is not
 * a title) nor change how a stored name reads (a right-to-left override, U+202E, shows
 * "fdp.exe" as "exe.pdf"). So before any check the text is cleaned: control characters (Unicode
 * Cc) other than tab and line breaks, format characters (Cf: zero-width spaces and joiners, bidi
 * marks, embeddings, overrides and isolates, the byte-order mark, soft hyphens, tags …) and the
 * other default-ignorable code points (Hangul fillers …) are removed. Two exceptions keep emoji
 * whole: a zero-width joiner between two pictographs, and variation selectors.
 *
 * Lengths are then counted in what a reader sees: grapheme clusters (a letter with its accents is
 * one), with every run of white space counted once. Shared by the upload wizard, the upload
 * endpoint and the spreadsheet previews' sheet names, so browser and server agree.
 */

/** C0 and C1 controls but tab, line feed and carriage return; Cf; other default-ignorables. */
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const VARIATION_SELECTOR = /^\p{Variation_Selector}$/u;
/** What may sit between a pictograph and the joiner that follows it: a variation selector, a skin tone. */
const EMOJI_TRAILER = /^[\p{Variation_Selector}\p{Emoji_Modifier}]$/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** Blank characters that are not white space to `\s` but read as nothing. */
const BLANK = /[\u2800\u3164\uFFA0]/gu;

export interface CleanOptions {
  /** Titles and names: every run of white space, line breaks included, becomes one space. */
  singleLine?: boolean;
}

/** Whether the zero-width joiner at `index` joins two pictographs (an emoji sequence). */
function joinsEmoji(text: string, index: number): boolean {
  // A few code points back are enough (pictograph, selector, skin tone), and keep this linear.
  const before = [...text.slice(Math.max(0, index - 8), index)].reverse().find((character) => !EMOJI_TRAILER.test(character));
  const after = String.fromCodePoint(text.codePointAt(index + 1) ?? 0);
  return before !== undefined && PICTOGRAPH.test(before) && PICTOGRAPH.test(after);
}

/** `text` without invisible and control characters (see above), trimmed. */
export function stripControls(text: string, { singleLine = false }: CleanOptions = {}): string {
  const visible = text.replace(INVISIBLE, (character, index: number, whole: string) => {
    if (VARIATION_SELECTOR.test(character)) return character;
    if (character === '\u200D' && joinsEmoji(whole, index)) return character;
    return '';
  });
  return (singleLine ? visible.replace(/\s+/gu, ' ') : visible).trim();
}

/**
 * The first `max` characters of `text`, counted in code points, so a cut never falls inside a
 * surrogate pair (half an emoji is text no header, JSON document or database column takes).
 */
export function firstCharacters(text: string, max: number): string {
  // No longer in UTF-16 units than `max`, it is no longer in code points either.
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

const graphemes = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter('es', { granularity: 'grapheme' }) : null;

/** How many characters of `text` a reader sees: graphemes, runs of white space once, invisibles none. */
export function visibleLength(text: string): number {
  const seen = stripControls(text, { singleLine: true }).replace(BLANK, '').replace(/\s+/gu, ' ').trim();
  if (!graphemes) return [...seen].length;
  let count = 0;
  for (const _ of graphemes.segment(seen)) count += 1;
  return count;
}

/** Folds a label for comparison: no accents, no case, single spaces. */
export function foldLabel(label: string): string {
  return label.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}
