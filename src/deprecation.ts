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
function deprecationHeaders(deprecation: Deprecation, baseUrl: string): Readonly<Record<string, string>> {
  return Object.freeze({
    deprecation: deprecation.since,
    sunset: deprecation.sunset,
    link: `<${baseUrl}${deprecation.successor}>; rel="successor-version"`,
  });
}

/**
 * `deprecationHeaders` for one app, handing out the same record while the base URL stays the same
 * (nearly every request), so whoever keeps headers per record finds them by reference: making the
 * record and comparing its contents was 0.17 µs of a getPet request on Node 20 (bench/RESULTS.md).
 * Only the last record per deprecation is kept, so a client sending many Host names costs a miss.
 */
export function createDeprecationHeaders(): (deprecation: Deprecation, baseUrl: string) => Readonly<Record<string, string>> {
  const lastMade = new Map<Deprecation, { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }>();
  return (deprecation, baseUrl) => {
    const last = lastMade.get(deprecation);
    if (last?.baseUrl === baseUrl) return last.headers;
    const headers = deprecationHeaders(deprecation, baseUrl);
    lastMade.set(deprecation, { baseUrl, headers });
    return headers;
  };
}
