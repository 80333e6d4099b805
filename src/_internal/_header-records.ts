/**
 * @module
 * Private: headers as the app collects them for a request, frozen records rather than `Headers`
 * (see `context.ts`): none, two sets joined, and a set put on an answer made some other way.
 */

// RFC 9110 §5.6.2: a field name is a token. The Fetch API refuses NUL, CR, LF and anything past
// U+00FF (not a byte) in a value.
/** A header name the Fetch API takes. */
export const HEADER_NAME: RegExp = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What the Fetch API refuses in a header value. */
export const FORBIDDEN_IN_HEADER_VALUE: RegExp = /[\0\r\n\u0100-\uffff]/;

/** The first of `headers` the Fetch API would refuse, as its name, or `undefined` when all are sound. */
export function refusedHeader(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (!HEADER_NAME.test(name) || typeof value !== "string" || FORBIDDEN_IN_HEADER_VALUE.test(value)) return name;
  }
  return undefined;
}

/** Headers for no route in particular. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Both sets of headers; a name in both (two `Link`s) gets both values, as `Headers.append` would. */
export function joinHeaders(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (a === NO_HEADERS) return b;
  if (b === NO_HEADERS) return a;
  const joined: Record<string, string> = { ...a };
  for (const [name, value] of Object.entries(b)) joined[name] = joined[name] === undefined ? value : `${joined[name]}, ${value}`;
  return joined;
}

/** `response` with `headers` set on a copy of it, or as it is when there are none. */
export function withHeaders(response: Response, headers: Readonly<Record<string, string>>): Response {
  if (headers === NO_HEADERS) return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
