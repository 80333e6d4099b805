/**
 * @module
 * Private: splits a request's URL into the parts the service uses, and brings its path to the one
 * form every runtime agrees on.
 *
 * What it buys: runtimes hand over request URLs that are usually already normal, so slicing the
 * string is enough, where `new URL()` parses the whole URL again on every request (measured in
 * bench/RESULTS.md). Only a path with dot segments or characters a URL must percent-encode is
 * parsed, so that `/v1/x/../pets` and `{petId}` mean on Deno and Node what Bun (which normalises
 * every URL itself) already makes of them.
 */

/** Origin (`http://host:port`, `""` for a path-only URL), path (still percent-encoded) and query (without `?`) of a request URL. */
export interface RequestTarget {
  readonly origin: string;
  readonly path: string;
  readonly query: string;
}

// Anything outside the characters a URL path keeps as they are, a dot segment, or an encoded dot.
const NEEDS_NORMALISING = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|\/\.\.?(?:\/|$)|%2e/i;

/**
 * The parts of an absolute `http(s)://` URL, or of a path-only one (Bun's `request.url` for a
 * request without a valid `Host`); `undefined` for anything else. A `#fragment`, which every
 * runtime hands over as sent, is left out, as a URL parser does (docs/decisions.md).
 */
export function splitUrl(url: string): RequestTarget | undefined {
  const hostStart = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : url.startsWith("/") ? 0 : -1;
  if (hostStart === -1) return undefined;
  const hashStart = url.indexOf("#");
  const end = hashStart === -1 ? url.length : hashStart;
  const pathStart = url.indexOf("/", hostStart);
  if (pathStart === -1 || pathStart > end) return { origin: url.slice(0, end), path: "/", query: "" };
  const queryStart = url.indexOf("?", pathStart);
  const pathEnd = queryStart === -1 || queryStart > end ? end : queryStart;
  const query = pathEnd === end ? "" : url.slice(queryStart + 1, end);
  return { origin: url.slice(0, pathStart), path: normalisePath(url.slice(pathStart, pathEnd)), query };
}

/** The path as a WHATWG URL parser leaves it: dot segments resolved, unsafe characters percent-encoded. */
function normalisePath(path: string): string {
  return NEEDS_NORMALISING.test(path) ? new URL(`http://host${path}`).pathname : path;
}

/**
 * The path and query of a request URL as the runtime handed them over, not normalised: what the access
 * log records and what the standalone server's own paths (`/health`) are matched against, without a
 * second split of the URL.
 */
export function rawTarget(url: string): string {
  const hostStart = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : 0;
  const pathStart = hostStart === 0 ? 0 : url.indexOf("/", hostStart);
  return pathStart === -1 ? "/" : url.slice(pathStart);
}
