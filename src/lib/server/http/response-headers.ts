/**
 * Changing a response's headers on its way out (security headers, CORS, caching). A `Response`
 * passed through as it was fetched has immutable headers: it is copied once, and changed there.
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
