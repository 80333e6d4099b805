/**
 * @module
 * The headers that mark a deprecated operation: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a
 * `Link` to its replacement, from the facts its route declares.
 */

/** When a deprecated operation became deprecated, when it goes away, and what replaces it. */
export interface Deprecation {
  /** When it became deprecated, as an RFC 9745 date: `@` and Unix seconds. */
  readonly since: string;
  /** When it is removed, as an RFC 8594 HTTP-date. */
  readonly sunset: string;
  /** The path of its successor under the base path, e.g. `/pets`. */
  readonly successor: string;
}

/** The response with the deprecation headers added, its successor linked under `baseUrl`. */
export function markDeprecated(response: Response, deprecation: Deprecation, baseUrl: string): Response {
  response.headers.set("deprecation", deprecation.since);
  response.headers.set("sunset", deprecation.sunset);
  response.headers.set("link", `<${baseUrl}${deprecation.successor}>; rel="successor-version"`);
  return response;
}
