/**
 * robots.txt as RFC 9309 (the Robots Exclusion Protocol) defines it: groups of `User-agent` lines
 * followed by `Allow` and `Disallow` rules; the crawler obeys the groups naming its product token,
 * or else the `*` groups; among the rules that match a path, the longest pattern wins, and `Allow`
 * wins a tie. Patterns may use `*` (any characters) and a final `$` (end of the path).
 *
 * Beyond RFC 9309, a group's `Crawl-delay` (seconds between two requests, a de facto extension
 * Bing, Yandex and most portals' robots.txt use) is kept, for the job queue to pace the host.
 */

export interface RobotsRule {
  allow: boolean;
  /** The pattern as written (after percent-encoding), whose length decides between rules. */
  pattern: string;
  /** The pattern as a whole-path glob: `$` dropped where it anchors, else `*` appended (a prefix match). */
  glob: string;
}

export interface RobotsGroup {
  /** Product tokens, lower-cased (`*` for every crawler). */
  agents: string[];
  rules: RobotsRule[];
  /** The group's `Crawl-delay`, in seconds (the first one a group states); null when none. */
  crawlDelaySeconds: number | null;
}

export interface RobotsRules {
  groups: RobotsGroup[];
}

/** Non-ASCII characters as UTF-8 percent-escapes, and escapes upper-cased, so a pattern compares with a URL's path. */
function normalizePath(path: string): string {
  return path
    .replace(/[^\x00-\x7f]+/g, (text) => encodeURIComponent(text))
    .replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

function toGlob(pattern: string): string {
  return pattern.endsWith('$') ? pattern.slice(0, -1) : `${pattern}*`;
}

/**
 * Whether `glob` (with `*` for any characters) matches all of `text`. A two-pointer match that
 * backtracks only to the last `*`: linear-times-pattern at worst, where a regular expression built
 * from a hostile pattern of many stars could backtrack for minutes.
 */
function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && glob[g] !== '*' && glob[g] === text[t]) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      resume = t;
    } else if (star >= 0) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}

/** The product token a `User-agent` value names (`ArchivoAbierto/1.0` names `archivoabierto`). */
function productToken(value: string): string {
  return value === '*' ? '*' : (/^[A-Za-z_-]+/.exec(value)?.[0] ?? '').toLowerCase();
}

/** `Crawl-delay` values: seconds, possibly with decimals (`10`, `0.5`). */
const CRAWL_DELAY = /^\d{1,9}(\.\d+)?$/;

/** The groups of a robots.txt; lines it does not understand (Sitemap, typos) are skipped. */
export function parseRobotsTxt(text: string): RobotsRules {
  const groups: RobotsGroup[] = [];
  let current: RobotsGroup | undefined;
  let lastWasAgent = false;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], crawlDelaySeconds: null };
        groups.push(current);
      }
      current.agents.push(productToken(value));
      lastWasAgent = true;
    } else if (key === 'allow' || key === 'disallow') {
      lastWasAgent = false;
      // Rules before any User-agent belong to no group; an empty Disallow forbids nothing.
      if (!current || value === '') continue;
      const pattern = normalizePath(value);
      current.rules.push({ allow: key === 'allow', pattern, glob: toGlob(pattern) });
    } else if (key === 'crawl-delay') {
      lastWasAgent = false;
      if (current && current.crawlDelaySeconds === null && CRAWL_DELAY.test(value)) current.crawlDelaySeconds = Number(value);
    }
  }
  return { groups };
}

/** The groups a crawler named `token` obeys: those naming it, else the `*` groups. */
function groupsFor(robots: RobotsRules, token: string): RobotsGroup[] {
  const own = token.toLowerCase();
  const named = robots.groups.filter((group) => group.agents.includes(own));
  return named.length > 0 ? named : robots.groups.filter((group) => group.agents.includes('*'));
}

/**
 * The `Crawl-delay` a crawler named `token` is asked to keep between two requests, in
 * milliseconds (the longest its groups state); null when they state none.
 */
export function crawlDelayFor(robots: RobotsRules, token: string): number | null {
  const delays = groupsFor(robots, token).flatMap((group) => (group.crawlDelaySeconds === null ? [] : [group.crawlDelaySeconds]));
  return delays.length > 0 ? Math.round(Math.max(...delays) * 1000) : null;
}

/**
 * Whether a crawler named `token` may fetch `pathAndQuery` (a URL's path and query, as `URL`
 * encodes them). `/robots.txt` itself is always allowed.
 */
export function isAllowedByRobots(robots: RobotsRules, token: string, pathAndQuery: string): boolean {
  const path = normalizePath(pathAndQuery || '/');
  if (path === '/robots.txt') return true;
  let best: RobotsRule | undefined;
  for (const rule of groupsFor(robots, token).flatMap((group) => group.rules)) {
    if (!globMatches(rule.glob, path)) continue;
    const longer = !best || rule.pattern.length > best.pattern.length;
    const allowWinsTie = best && rule.pattern.length === best.pattern.length && rule.allow;
    if (longer || allowWinsTie) best = rule;
  }
  return best?.allow ?? true;
}
