/**
 * robots.txt rules as RFC 9309 states them (its section 2.2.2 and the examples of section 5),
 * for the archive's own product token.
 */
import { describe, expect, it } from 'vitest';
import { crawlDelayFor, isAllowedByRobots, parseRobotsTxt } from '../../src/lib/server/capture/index.ts';

const allowed = (text: string, path: string, token = 'ArchivoAbierto') => isAllowedByRobots(parseRobotsTxt(text), token, path);

describe('robots.txt', () => {
  it('obeys the group naming the archive over the * group, whatever the case and version', () => {
    const text = 'User-agent: *\nDisallow: /\n\nUser-agent: archivoabierto/2.0\nDisallow: /privado\n';
    expect(allowed(text, '/datos.csv')).toBe(true);
    expect(allowed(text, '/privado/x.csv')).toBe(false);
    expect(allowed(text, '/datos.csv', 'OtroRobot')).toBe(false);
  });

  it('merges the groups that name the same crawler, and groups of several user agents', () => {
    const text = 'User-agent: a\nUser-agent: ArchivoAbierto\nDisallow: /uno\n\nUser-agent: ArchivoAbierto\nDisallow: /dos\n';
    expect(allowed(text, '/uno')).toBe(false);
    expect(allowed(text, '/dos')).toBe(false);
    expect(allowed(text, '/tres')).toBe(true);
    expect(allowed(text, '/uno', 'a')).toBe(false);
    expect(allowed(text, '/dos', 'a')).toBe(true);
  });

  it('lets the longest matching rule win, and Allow win a tie', () => {
    const text = 'User-agent: *\nDisallow: /datos/\nAllow: /datos/publicos/\nDisallow: /datos/publicos/borrador\nAllow: /igual\nDisallow: /igual\n';
    expect(allowed(text, '/datos/x.csv')).toBe(false);
    expect(allowed(text, '/datos/publicos/x.csv')).toBe(true);
    expect(allowed(text, '/datos/publicos/borrador.csv')).toBe(false);
    expect(allowed(text, '/igual')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /igual\nAllow: /igual\n', '/igual')).toBe(true);
  });

  it('reads * as any characters and a final $ as the end of the path', () => {
    const text = 'User-agent: *\nDisallow: /*.xls$\nDisallow: /buscar*q=\nAllow: /$\nDisallow: /\n';
    expect(allowed(text, '/a/b.xls')).toBe(false);
    expect(allowed(text, '/a/b.xlsx')).toBe(false); // `Disallow: /` still applies
    expect(allowed(text, '/')).toBe(true);
    expect(allowed(text, '/buscar?x=1&q=2')).toBe(false);
    const files = 'User-agent: *\nDisallow: /*.xls$\n';
    expect(allowed(files, '/a/b.xlsx')).toBe(true);
    expect(allowed(files, '/a/b.xls')).toBe(false);
    expect(allowed(files, '/a/b.xls?v=1')).toBe(true);
  });

  it('matches a pattern of many stars against a long path quickly (no backtracking blow-up)', () => {
    const text = `User-agent: *\nDisallow: /${'a*'.repeat(40)}b$\n`;
    const started = performance.now();
    expect(allowed(text, `/${'a'.repeat(5_000)}`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('skips comments, unknown lines, an empty Disallow and rules outside any group', () => {
    const text = 'Disallow: /antes\n# comentario\nUser-agent: * # todos\nCrawl-delay: 10\nSitemap: https://x/s.xml\nDisallow:\n';
    expect(allowed(text, '/antes')).toBe(true);
    expect(allowed(text, '/cualquiera')).toBe(true);
  });

  it('compares paths percent-encoded, and always allows /robots.txt', () => {
    const text = 'User-agent: *\nDisallow: /año/\nDisallow: /robots.txt\n';
    expect(allowed(text, '/a%C3%B1o/x.csv')).toBe(false);
    expect(allowed(text, '/a%c3%b1o/x.csv')).toBe(false);
    expect(allowed(text, '/robots.txt')).toBe(true);
  });

  it('allows everything when no group applies, or the file is empty', () => {
    expect(allowed('User-agent: otro\nDisallow: /\n', '/x')).toBe(true);
    expect(allowed('', '/x')).toBe(true);
  });

  it("keeps the Crawl-delay of the archive's groups, else of the * groups, in milliseconds", () => {
    const delay = (text: string, token = 'ArchivoAbierto') => crawlDelayFor(parseRobotsTxt(text), token);
    const text = 'User-agent: *\nCrawl-delay: 10\nDisallow: /tmp\n\nUser-agent: ArchivoAbierto\nCrawl-delay: 2.5\nAllow: /\n';
    expect(delay(text)).toBe(2500);
    expect(delay(text, 'OtroRobot')).toBe(10_000);
    // A Crawl-delay line does not end the group's User-agent lines' effect on its rules.
    expect(allowed(text, '/tmp/x', 'OtroRobot')).toBe(false);
    expect(delay('User-agent: *\nDisallow: /x\n')).toBeNull();
    // Unreadable values are ignored; of two groups naming the archive, the longer pause stands.
    expect(delay('User-agent: *\nCrawl-delay: pronto\nCrawl-delay: -3\n')).toBeNull();
    expect(delay('User-agent: ArchivoAbierto\nCrawl-delay: 1\n\nUser-agent: archivoabierto\nCrawl-delay: 30\n')).toBe(30_000);
    // Before any User-agent it belongs to no group.
    expect(delay('Crawl-delay: 5\nUser-agent: *\nDisallow:\n')).toBeNull();
  });
});
