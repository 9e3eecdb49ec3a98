/** `Retry-After` as RFC 9110 §10.2.3 writes it: seconds, or an HTTP date in any of its three forms. */
import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/lib/server/capture/index.ts';

describe('Retry-After', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');

  it('reads seconds and HTTP dates as a wait from now', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sun, 01 Mar 2026 12:30:00 GMT', now)).toBe(30 * 60_000);
    expect(retryAfterMs('Sunday, 01-Mar-26 12:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Sun Mar  1 12:01:00 2026', now)).toBe(60_000);
    // A date already past asks for no wait.
    expect(retryAfterMs('Sat, 28 Feb 2026 12:00:00 GMT', now)).toBe(0);
  });

  it('gives null for what it cannot read, never a guess', () => {
    for (const value of [null, undefined, '', 'mañana', '-5', '1.5', '2026-03-01', 'Sun, 99 Foo 2026 GMT']) expect(retryAfterMs(value, now), String(value)).toBeNull();
  });
});
