/**
 * @module
 * Private to `routes.ts`: matching a request path against a route's path template.
 */

/** The parameters of `segments` (a path split at `/`) matched against a template's `parts`, e.g. `{ petId: "7" }`; `undefined` when they do not match. */
export function matchTemplate(parts: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const segment = segments[i]!;
    if (part.startsWith("{")) {
      if (segment === "") return undefined;
      params[part.slice(1, -1)] = segment;
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}
