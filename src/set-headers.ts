/**
 * @module
 * `setHeaders`: the one way a `Wrap` (see `types.ts`) puts headers on an answer.
 *
 * It changes the answer in place where the answer's headers may change: every answer the core makes
 * has its own, and Node's `FastResponse` then keeps its text body for the fast path (a copy would
 * hand the body to a web stream). Where they may not (an answer of `fetch()`, `Response.redirect`
 * or `Response.error` on Deno and Node, whose headers are immutable), it sets them on a copy.
 */

/** `response` with `headers` set on it (replacing values it had), or on a copy where its headers are immutable; send what it returns. */
export function setHeaders(response: Response, headers: Readonly<Record<string, string>>): Response {
  try {
    for (const name of Object.keys(headers)) response.headers.set(name, headers[name]!);
    return response;
  } catch {
    // Immutable headers refuse the first name; a bad name or value is refused by the copy's too.
    const copied = new Headers(response.headers);
    for (const name of Object.keys(headers)) copied.set(name, headers[name]!);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: copied });
  }
}
