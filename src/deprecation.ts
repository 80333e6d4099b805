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

/** The headers every answer of a deprecated operation carries, its successor linked under `baseUrl`. */
export function deprecationHeaders(deprecation: Deprecation, baseUrl: string): Record<string, string> {
  return {
    deprecation: deprecation.since,
    sunset: deprecation.sunset,
    link: `<${baseUrl}${deprecation.successor}>; rel="successor-version"`,
  };
}
