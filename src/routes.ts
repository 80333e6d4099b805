/**
 * @module
 * Every endpoint of the API in one table, the matcher that finds a request's route, and the headers
 * a route's facts mean: a deprecated route's `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and
 * `Link` to its successor. The operations are declared in `operations/`, one module each.
 */
import type { Context } from "./context.ts";
import type { Deprecation, Route } from "./operation.ts";
import { routeOf } from "./operation.ts";
import { OPERATIONS } from "./operations/mod.ts";
import { OPENAPI_JSON } from "./openapi/mod.ts";
import { NO_HEADERS } from "./_internal/_header-records.ts";
import { matchTemplate } from "./_internal/_path-template.ts";

export type { Deprecation, Route } from "./operation.ts";

/** The API's routes: every operation, then the document itself, which holds no data, so tools read it without a key. The first match wins. */
export const ROUTES: readonly Route[] = Object.freeze([
  ...OPERATIONS.map(routeOf),
  { method: "GET", path: "/openapi.json", handler: openApiDocument, public: true },
]);

/** The route for a method and path with the path's parameters, or, when only the method is wrong, the `Allow` value and the path's routes. */
export type RouteMatch =
  | { readonly route: Route; readonly params: Readonly<Record<string, string>> }
  | { readonly route: undefined; readonly allow: string; readonly routes: readonly Route[] };

/** Matches a method and a path (relative to the base path); `undefined` when no route has the path. */
export type RouteMatcher = (method: string, path: string) => RouteMatch | undefined;

/** A matcher over a route table: each route is matched on its own method and path, the first match wins. */
export function createRouteMatcher(routes: readonly Route[]): RouteMatcher {
  const templates = routes.map((route) => ({ route, parts: route.path.split("/") }));
  return (method, path) => {
    const segments = path.split("/");
    const others: Route[] = [];
    for (const { route, parts } of templates) {
      const params = matchTemplate(parts, segments);
      if (params === undefined) continue;
      if (route.method === method) return { route, params };
      others.push(route);
    }
    return others.length === 0 ? undefined : { route: undefined, allow: allowHeader(others.map((route) => route.method)), routes: others };
  };
}

/**
 * The headers every answer of the matched route carries, whatever answers it: a deprecated route's,
 * its successor linked under `baseUrl`. A 405 names no route but the path, and `Deprecation` and
 * `Sunset` speak of a path (RFC 9745, RFC 8594): it carries them when every route of the path is
 * deprecated alike, the path itself going away, and none once a route of it stays (docs/decisions.md).
 */
export type RouteHeaders = (match: RouteMatch | undefined, baseUrl: string) => Readonly<Record<string, string>>;

/**
 * An app's `RouteHeaders`, remembering each deprecation's last record and the base URL it was made
 * for: a server's requests share one base URL, so they share one frozen record, by which the tagged
 * answer's headers (`_internal/_pet-texts.ts`) are then found by reference: `_lastRouteHeaders`
 * (measured in bench/RESULTS.md, issue 53).
 */
export function createRouteHeaders(): RouteHeaders {
  const _lastRouteHeaders = new WeakMap<Deprecation, { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }>();
  return (match, baseUrl) => {
    const deprecation = match === undefined ? undefined : match.route !== undefined ? match.route.deprecation : sharedDeprecation(match.routes);
    if (deprecation === undefined) return NO_HEADERS;
    const last = _lastRouteHeaders.get(deprecation);
    if (last?.baseUrl === baseUrl) return last.headers;
    const headers = Object.freeze({
      deprecation: deprecation.since,
      sunset: deprecation.sunset,
      link: `<${baseUrl}${deprecation.successor}>; rel="successor-version"`,
    });
    _lastRouteHeaders.set(deprecation, { baseUrl, headers });
    return headers;
  };
}

function sharedDeprecation(routes: readonly Route[]): Deprecation | undefined {
  const [first, ...rest] = routes;
  return rest.every((route) => sameDeprecation(route.deprecation, first?.deprecation)) ? first?.deprecation : undefined;
}

/** Whether two deprecations say the same, written as one object or as two. */
function sameDeprecation(a: Deprecation | undefined, b: Deprecation | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.since === b.since && a.sunset === b.sunset && a.successor === b.successor);
}

/** The `Allow` value for the methods a path answers: HEAD wherever GET is. */
function allowHeader(methods: readonly string[]): string {
  const allowed = methods.includes("GET") ? [...methods, "HEAD"] : [...methods];
  return allowed.sort().join(", ");
}

async function openApiDocument(context: Context): Promise<Response> {
  return context.json(200, OPENAPI_JSON, { "cache-control": "public, max-age=300" });
}
