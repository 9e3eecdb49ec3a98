/**
 * `Retry-After` (RFC 9110 §10.2.3), which a server sends with a 429 or 503 to say when it may be
 * asked again: a number of seconds, or an HTTP date.
 */

/**
 * How long from `now` the server asks to wait, in milliseconds: 0 for a date already past, null
 * for a missing or unreadable value. Not bounded here: the queue bounds what it holds a host back.
 */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Math.min(Number(text), Number.MAX_SAFE_INTEGER / 1000) * 1000;
  // An HTTP date names its weekday and zone (`Wed, 21 Oct 2015 07:28:00 GMT`); a bare number or a word is not one.
  if (!/^[A-Za-z]{3},? /.test(text) && !/^[A-Za-z]+day, /.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
