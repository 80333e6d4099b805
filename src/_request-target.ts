/**
 * @module
 * Private: splits a request's absolute URL into the parts the service uses.
 *
 * What it buys: runtimes hand over request URLs already absolute and normalised, so slicing the
 * string is enough, where `new URL()` parses the whole URL again on every request (measured in
 * bench/RESULTS.md).
 */

/** Origin (`http://host:port`), path (still percent-encoded) and query (without `?`) of a URL. */
export interface RequestTarget {
  readonly origin: string;
  readonly path: string;
  readonly query: string;
}

/** The parts of an absolute `http(s)://` URL, or `undefined` for anything else. */
export function splitUrl(url: string): RequestTarget | undefined {
  const hostStart = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : -1;
  if (hostStart === -1) return undefined;
  const hashStart = url.indexOf("#");
  const end = hashStart === -1 ? url.length : hashStart;
  const pathStart = url.indexOf("/", hostStart);
  if (pathStart === -1 || pathStart > end) return { origin: url.slice(0, end), path: "/", query: "" };
  const queryStart = url.indexOf("?", pathStart);
  if (queryStart === -1 || queryStart > end) return { origin: url.slice(0, pathStart), path: url.slice(pathStart, end), query: "" };
  return { origin: url.slice(0, pathStart), path: url.slice(pathStart, queryStart), query: url.slice(queryStart + 1, end) };
}
