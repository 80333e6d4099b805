/**
 * @module
 * Conditional requests (RFC 9110 §13): a client that already holds an answer names its strong
 * entity tag in `If-None-Match` and gets 304 with no body while the answer is the same
 * (`Context.tagged`). A tag is a hash of the answer's JSON text (`_internal/_entity-tag.ts`), so it
 * changes whenever the text does.
 */
import { utf8Length } from "./_internal/_json-response.ts";

/**
 * Whether an `If-None-Match` value names `tag` (weak comparison, as RFC 9110 §13.1.2 asks for this
 * header) or is `*`: then the client's copy is current.
 */
export function ifNoneMatchHits(header: string | null, tag: string): boolean {
  if (header === null) return false;
  for (const part of header.split(",")) {
    const candidate = part.trim();
    if (candidate === "*" || candidate === tag || candidate === `W/${tag}`) return true;
  }
  return false;
}

/**
 * A 304 for the 200 that would carry `text`, with the given headers and no body. It declares the
 * 200's `Content-Length`, as RFC 9110 §8.6 allows, so no adapter adds a wrong one.
 */
export function notModified(text: string, headers: Readonly<Record<string, string>>): Response {
  return new Response(null, { status: 304, headers: { ...headers, "content-length": String(utf8Length(text)) } });
}
