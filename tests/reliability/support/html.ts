/**
 * Where stored markup would become markup of the page: the tags of a payload met where the HTML
 * tokenizer would start a tag (in text, or after a payload closed a script element early). The
 * same characters inside a quoted attribute value (`content="<script>…"`) or inside a script's
 * own text are inert, as a browser reads them, and are not reported.
 */

const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);

/** Snippets around each place where one of `markers` (each starting with `<`) would open a tag. */
export function liveMarkup(html: string, markers: readonly string[]): string[] {
  const found: string[] = [];
  const lower = html.toLowerCase();
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf('<', i);
    if (open < 0) break;
    if (html.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    for (const marker of markers) {
      if (html.startsWith(marker, open)) found.push(`…${html.slice(Math.max(0, open - 100), open + 80)}…`);
    }
    const name = /^<\/?([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(open, open + 40));
    if (!name) {
      i = open + 1;
      continue;
    }
    // The end of the tag, skipping quoted attribute values (which may hold any `>`).
    let j = open + name[0].length;
    let quote: string | null = null;
    for (; j < html.length; j += 1) {
      const char = html[j]!;
      if (quote) {
        if (char === quote) quote = null;
      } else if (char === '"' || char === "'") quote = char;
      else if (char === '>') break;
    }
    i = j + 1;
    const tag = name[1]!.toLowerCase();
    const closing = html[open + 1] === '/';
    if (!closing && RAW_TEXT.has(tag)) {
      // Raw text runs to the first `</tag`, whatever comes between: that is how a payload's own
      // `</script>` closes a JSON-LD block early and lets what follows become markup.
      const end = lower.indexOf(`</${tag}`, i);
      i = end < 0 ? html.length : end;
    }
  }
  return found;
}
