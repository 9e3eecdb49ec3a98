/**
 * The media ranges of an `Accept` header (RFC 9110 §12.5.1): each type with its parameters and
 * weight. One reading for every negotiation the archive makes: a CAR or a raw block from the
 * gateway, Turtle or JSON-LD for the catalogue's own IRIs.
 */

export interface MediaRange {
  /** `type/subtype`, lower-cased; wildcards as written. */
  type: string;
  /** Its parameters other than none, lower-cased and unquoted (`q` among them when given). */
  params: Map<string, string>;
  /** Its weight: 1 when not given, 0 when unreadable. */
  q: number;
}

/** The media ranges of an `Accept` header, parameters lower-cased, unquoted. */
export function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((piece) => piece.trim());
    const params = new Map<string, string>();
    for (const piece of rest) {
      const eq = piece.indexOf('=');
      if (eq > 0) params.set(piece.slice(0, eq).trim().toLowerCase(), piece.slice(eq + 1).trim().replace(/^"|"$/g, '').toLowerCase());
    }
    const q = params.has('q') ? Number(params.get('q')) : 1;
    return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
  });
}

/** The weight an `Accept` header gives `type` by name, the highest if named twice (0 when not named). */
export function acceptWeight(accept: string | null, type: string): number {
  return Math.max(0, ...mediaRanges(accept ?? '').filter((range) => range.type === type).map((range) => range.q));
}
