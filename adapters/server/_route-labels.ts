/**
 * @module
 * Private to the metrics: which route template a request URL belongs to, so that label values come
 * from the route table (`/v1/pets/{petId}`), never from the path a client sent, and a client cannot
 * make new series.
 *
 * The URL is walked in place, segment by segment, without splitting it or making strings: the
 * metrics add no allocation to a request. A path the app would first normalise (dot segments,
 * characters a URL must encode) counts as `other`.
 */

/** The label of every request whose path is no template. */
export const OTHER_ROUTE = "other";

/** The methods counted by name; any other counts as `other`, so the label values stay few. */
export const METHOD_LABELS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "other"];

/** Finds the index of a request URL's route template in the labels; the last label is `other`. */
export type RouteLabeler = (url: string) => number;

/** The route labels (the templates, then `other`) and a labeler over them. */
export function createRouteLabels(templates: readonly string[]): { readonly labels: readonly string[]; readonly labelOf: RouteLabeler } {
  const labels = [...new Set(templates), OTHER_ROUTE];
  const parts = labels.slice(0, -1).map((template) => template.split("/").slice(1));
  const labelOf: RouteLabeler = (url) => {
    const start = pathStart(url);
    if (start === -1) return parts.length;
    const end = pathEnd(url, start);
    for (let i = 0; i < parts.length; i++) if (matches(url, start, end, parts[i]!)) return i;
    return parts.length;
  };
  return { labels, labelOf };
}

/** The index of a request method in `METHOD_LABELS`. */
export function methodIndex(method: string): number {
  const index = METHOD_LABELS.indexOf(method);
  return index === -1 ? METHOD_LABELS.length - 1 : index;
}

/** Where the path of an absolute or path-only URL starts, or -1 when it has none. */
function pathStart(url: string): number {
  if (url.charCodeAt(0) === 0x2f) return 0;
  const scheme = url.indexOf("://");
  return scheme === -1 ? -1 : url.indexOf("/", scheme + 3);
}

function pathEnd(url: string, start: number): number {
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url.length : end;
}

/** Whether `url[start, end)` is the template's segments, `{name}` standing for any non-empty segment. */
function matches(url: string, start: number, end: number, segments: readonly string[]): boolean {
  let at = start;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (at >= end || url.charCodeAt(at) !== 0x2f) return false;
    at++;
    const slash = url.indexOf("/", at);
    const segmentEnd = slash === -1 || slash > end ? end : slash;
    const length = segmentEnd - at;
    if (segment.charCodeAt(0) === 0x7b) {
      if (length === 0 || url.charCodeAt(at) === 0x2e) return false; // a dot segment is resolved by the app first
    } else if (length !== segment.length || !url.startsWith(segment, at)) {
      return false;
    }
    at = segmentEnd;
  }
  return at === end;
}
