/**
 * Changing a response's headers on its way out (security headers, CORS, caching, compression). A
 * `Response` passed through as it was fetched has immutable headers: it is copied once, and
 * changed there.
 */
export function withEditedHeaders(response: Response, edit: (headers: Headers) => void): Response {
  try {
    edit(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    edit(copy.headers);
    return copy;
  }
}

/** A `Vary` value with `name` added once (a `*` already covers it). */
export function varyWith(existing: string | null | undefined, name: string): string {
  if (!existing) return name;
  const names = existing.split(',').map((listed) => listed.trim().toLowerCase());
  return names.includes('*') || names.includes(name.toLowerCase()) ? existing : `${existing}, ${name}`;
}
