/**
 * What a page looks like to a visitor whose browser runs no script (a locked-down office, a text
 * browser, a crawler): one stylesheet, inside `<noscript>` in every page's head (`Base.astro`), and
 * the data attributes that opt elements into it. Reading, searching, browsing and downloading work
 * without scripts; signing in, uploading, copying and verifying in the browser do not, and say so.
 *
 * - `data-needs-script`: a control only a script makes work (a copy button, «Verificar», the
 *   wallet's sign-in button, the CSV mini-search, the theme switch), not shown at all;
 * - `data-chart-canvas` / `data-chart-numbers`: a chart's canvas, hidden, and the table of its
 *   numbers (kept for screen readers as `sr-only`), shown in its place;
 * - tabs (`[data-tabs]`): every panel shown, one after the other, and the tab strip hidden;
 * - `<noscript>` messages where a task needs a script, saying so.
 *
 * In Tailwind's `base` layer: its preflight hides `[hidden]` with an `!important` there, and an
 * important declaration in a layer beats any outside one, whatever their specificity.
 */
export const NO_SCRIPT_STYLE = `@layer base{${[
  '[data-needs-script]{display:none!important}',
  '[data-chart-canvas]{display:none!important}',
  'table[data-chart-numbers]{position:static!important;width:auto!important;height:auto!important;margin:.75rem 0 0!important;overflow:visible!important;clip:auto!important;clip-path:none!important;white-space:normal!important;font-size:.875rem}',
  'table[data-chart-numbers] th,table[data-chart-numbers] td{padding:.125rem 1rem .125rem 0;text-align:left;font-weight:400}',
  // Its caption repeats the line above the chart: kept for screen readers only.
  'table[data-chart-numbers] caption{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}',
  '[data-tabs] [role=tablist]{display:none!important}',
  '[data-tabs] [role=tabpanel][hidden]{display:block!important}',
].join('')}}`;
