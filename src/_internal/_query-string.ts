/**
 * @module
 * Private: splits a URL query string into its name–value pairs.
 *
 * What it buys: this is what `URLSearchParams` does, without building one, for a query that
 * usually holds one or two pairs; `URLSearchParams` was the largest single cost of a list request
 * on Bun (profiled, see bench/RESULTS.md). `test/validators.property.test.ts` checks it agrees.
 */

/** The decoded name–value pairs of a query (`limit=5&status=sold`, without `?`), in order; empty parts skipped. */
export function parseQuery(query: string): [name: string, value: string][] {
  const pairs: [string, string][] = [];
  if (query === "") return pairs;
  for (const part of query.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    pairs.push(equals === -1 ? [decode(part), ""] : [decode(part.slice(0, equals)), decode(part.slice(equals + 1))]);
  }
  return pairs;
}

/**
 * A name or value decoded as `application/x-www-form-urlencoded` (`+` is a space). A broken percent
 * escape leaves the text as written, which no parameter accepts, so the error message shows it.
 */
function decode(text: string): string {
  if (!text.includes("%") && !text.includes("+")) return text;
  const spaced = text.replaceAll("+", " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
