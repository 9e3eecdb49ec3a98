/**
 * Motion a reader asked their system to reduce (`prefers-reduced-motion`, WCAG 2.3.3): scrolls jump
 * instead of gliding and charts appear drawn instead of growing. Browsers leave both to the page:
 * neither `scrollTo({ behavior: 'smooth' })` nor chart.js's animations look at the setting.
 * Browser only.
 */
export function prefersReducedMotion(): boolean {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** The `behavior` of a scroll the page makes on the reader's behalf. */
export function scrollBehavior(): ScrollBehavior {
  return prefersReducedMotion() ? 'auto' : 'smooth';
}
