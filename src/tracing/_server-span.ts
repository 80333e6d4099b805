/**
 * @module
 * Private to the tracing feature: what a request's server span is called and carries, following the
 * stable HTTP semantic conventions. Only what identifies the operation and the server is taken from
 * a request: its method, the route template it matched, scheme, host, port, `User-Agent`, and the name
 * of the API key it came with. Never a path as sent, a query, a key or a header that may carry a
 * secret, or a body.
 */
import type { RouteMatcher } from "../routes.ts";
import type { OtelAttributes, OtelSpan } from "./otel-api.ts";
import { STATUS_ERROR } from "./otel-api.ts";
import { splitUrl } from "../_internal/_request-target.ts";

/** How a request's span starts: its name and first attributes. */
export interface SpanStart {
  readonly name: string;
  readonly attributes: OtelAttributes;
}

// The methods the conventions name; any other is `_OTHER`, so a client cannot make new values.
const KNOWN_METHODS: readonly string[] = Object.freeze(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/**
 * The span of a request to an app under `basePath`: named `GET /v1/pets/{petId}` by the route
 * template it matches, or by its method alone when it matches none (a 404, a plug's path).
 */
export function serverSpanStart(request: Request, matchRoute: RouteMatcher, basePath: string): SpanStart {
  const method = KNOWN_METHODS.includes(request.method) ? request.method : "_OTHER";
  const target = splitUrl(request.url);
  const attributes: Record<string, string | number> = { "http.request.method": method };
  const route = target === undefined ? undefined : routeOf(request.method, target.path, matchRoute, basePath);
  if (route !== undefined) attributes["http.route"] = route;
  if (target !== undefined && target.origin !== "") Object.assign(attributes, serverAttributes(target.origin));
  const agent = request.headers.get("user-agent");
  if (agent !== null) attributes["user_agent.original"] = agent;
  const name = method === "_OTHER" ? "HTTP" : route === undefined ? method : `${method} ${route}`;
  return { name, attributes };
}

/** The attribute naming the API key a request came with (its name, never the key): no convention has one. */
export const KEY_NAME_ATTRIBUTE = "animal_store.api_key.name";

/**
 * Ends a request's span with its answer's status and the name of its key when it had a known one:
 * on a 5xx, status ERROR and the error's type (the status, as the conventions say when no exception is known).
 */
export function endServerSpan(span: OtelSpan, status: number, keyName?: string): void {
  span.setAttribute("http.response.status_code", status);
  if (keyName !== undefined) span.setAttribute(KEY_NAME_ATTRIBUTE, keyName);
  if (status >= 500) {
    span.setAttribute("error.type", String(status));
    span.setStatus({ code: STATUS_ERROR });
  }
  span.end();
}

/** The template of the route a path matches under `basePath`, e.g. `/v1/pets/{petId}`; `undefined` when none has the path. */
function routeOf(method: string, path: string, matchRoute: RouteMatcher, basePath: string): string | undefined {
  if (!path.startsWith(`${basePath}/`)) return undefined;
  const match = matchRoute(method === "HEAD" ? "GET" : method, path.slice(basePath.length));
  return match?.route === undefined ? undefined : `${basePath}${match.route.path}`;
}

/** `url.scheme`, `server.address` and `server.port` of an origin such as `https://[::1]:8443`. */
function serverAttributes(origin: string): Record<string, string | number> {
  const schemeEnd = origin.indexOf("://");
  const scheme = origin.slice(0, schemeEnd);
  const authority = origin.slice(schemeEnd + 3);
  // The port follows the last `:` unless that `:` is inside an IPv6 literal's brackets.
  const colon = authority.lastIndexOf(":");
  const hasPort = colon !== -1 && colon > authority.lastIndexOf("]");
  const address = hasPort ? authority.slice(0, colon) : authority;
  const port = hasPort ? Number(authority.slice(colon + 1)) : scheme === "https" ? 443 : 80;
  return { "url.scheme": scheme, "server.address": address.startsWith("[") ? address.slice(1, -1) : address, "server.port": port };
}
