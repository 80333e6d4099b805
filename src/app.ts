/**
 * @module
 * `createApp`: the whole service as one function from a Fetch API `Request` to a `Response`.
 */
import type { AuthOutcome } from "./auth.ts";
import type { CorsOrigins } from "./cors.ts";
import type { RequestTarget } from "./_request-target.ts";
import type { Deprecation } from "./deprecation.ts";
import type { Route, RouteMatch } from "./routes.ts";
import type { PublicOriginOptions } from "./public-origin.ts";
import type { PetStore } from "./store.ts";
import type { RateLimit } from "./rate-limit.ts";
import { createKeyChecker } from "./auth.ts";
import { joinHeaders, NO_HEADERS, RequestContext } from "./context.ts";
import { createCors } from "./cors.ts";
import { createIdempotencyGuard } from "./idempotency.ts";
import { createDeprecationHeaders } from "./deprecation.ts";
import { errorResponse, internalErrorResponse } from "./errors.ts";
import { isHostValue } from "./_host.ts";
import { createPetTexts } from "./_pet-texts.ts";
import { createOriginResolver } from "./public-origin.ts";
import { createReferencePage, REFERENCE_PAGE_METHODS } from "./reference-page.ts";
import { splitUrl } from "./_request-target.ts";
import { createRouteMatcher, ROUTES } from "./routes.ts";
import { createRateLimiter } from "./rate-limit.ts";
import { StoreUnavailableError } from "./store.ts";

/** A Fetch API request handler, as `Bun.serve`, `Deno.serve` and most host frameworks take it. */
export type Handler = (request: Request, connection?: ConnectionInfo) => Promise<Response>;

/**
 * Where a request came from, as the runtimes pass it as the handler's second argument: Bun's
 * server (`requestIP`) or Deno's handler info (`remoteAddr`); `serveNode` passes the first. Read
 * only by the rate limit, for requests without a valid key.
 */
export interface ConnectionInfo {
  /** The address of the connection `request` came on (Bun's `server.requestIP`). */
  requestIP?(request: Request): { readonly address: string } | null;
  /** The address of the connection the request came on (Deno's `ServeHandlerInfo.remoteAddr`). */
  readonly remoteAddr?: { readonly hostname?: string };
}

/** How to build the service; `publicUrl` and `trustProxy` say where its absolute URLs point. */
export interface AppOptions extends PublicOriginOptions {
  /** Where pets are kept. */
  readonly store: PetStore;
  /** The bearer tokens accepted on every operation; at least one. */
  readonly apiKeys: readonly string[];
  /** The path the API is mounted under, without a trailing slash (`""` for the root). Default `/v1`. */
  readonly basePath?: string;
  /** The largest accepted request body in bytes. Default 65536 (64 KiB). */
  readonly maxBodyBytes?: number;
  /** The realm named in `WWW-Authenticate`. Default `animal-store`. */
  readonly realm?: string;
  /**
   * Called with every unexpected error, and the request it happened in, before it is answered with
   * 500. Default `console.error`.
   */
  readonly onError?: (error: unknown, request?: Request) => void;
  /** Limit each API key (and each client address, for requests without a valid key) to this rate. Default: no limit. */
  readonly rateLimit?: RateLimit;
  /**
   * The origins whose pages may call the API from a browser (CORS), each as a browser sends it in
   * `Origin` (`https://app.example.com`), or `"*"` for any. Default: none, and no CORS headers.
   */
  readonly corsOrigins?: CorsOrigins;
  /** Whether `GET /` (outside the base path, no key) answers the HTML reference page of the API. Default `false`. */
  readonly referencePage?: boolean;
}

/** The service: a Fetch API handler, and the `onError` that adapters report their own failures to. */
export interface App {
  /** Answers a request; never rejects (an unexpected error is passed to `onError` and answered with 500). */
  readonly fetch: Handler;
  /** Where unexpected errors go, also those an adapter meets while sending an answer. */
  readonly onError: (error: unknown, request?: Request) => void;
}

/** The default largest request body: 64 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 65536;

/** Builds the Animal Store service over a store, accepting the given API keys. */
export function createApp(options: AppOptions): App {
  return createAppWithRoutes(ROUTES, options);
}

/** Builds the service over a route table of its own (tests mark routes deprecated this way). */
export function createAppWithRoutes(routes: readonly Route[], options: AppOptions): App {
  const basePath = options.basePath ?? "/v1";
  if (basePath !== "" && (!basePath.startsWith("/") || basePath.endsWith("/"))) {
    throw new RangeError(`Cannot create app: basePath must start and not end with "/", got "${basePath}"`);
  }
  const checkKey = createKeyChecker(options.apiKeys);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const realm = options.realm ?? "animal-store";
  const onError = options.onError ?? ((error: unknown) => console.error("animal-store: unexpected error", error));
  const matchRoute = createRouteMatcher(routes);
  const texts = createPetTexts();
  const idempotency = createIdempotencyGuard();
  const originOf = createOriginResolver(options);
  const deprecationHeaders = createDeprecationHeaders();
  const referencePage = options.referencePage === true ? createReferencePage(basePath) : undefined;
  const cors = options.corsOrigins === undefined ? undefined : createCors(options.corsOrigins, methodsAt);
  const { rateLimit } = options;
  const limiter = rateLimit === undefined ? undefined : createRateLimiter(rateLimit, { apiKeys: options.apiKeys, trustProxy: options.trustProxy ?? false });

  /** The headers every answer of the matched route carries, whatever answers it. */
  function preparedHeaders(match: RouteMatch | undefined, baseUrl: string): Readonly<Record<string, string>> {
    const deprecation = deprecationOf(match);
    return deprecation === undefined ? NO_HEADERS : deprecationHeaders(deprecation, baseUrl);
  }

  async function fetch(request: Request, connection?: ConnectionInfo): Promise<Response> {
    // The headers every answer of this request carries, the 500 included, once they are known.
    const prepared = { headers: NO_HEADERS };
    try {
      const response = await respond(request, connection, prepared);
      // HEAD is answered as GET, without the body; a 304 has none and already declares its 200's length.
      return request.method === "HEAD" && response.status !== 304 ? await withoutBody(response) : response;
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        const path = splitUrl(request.url)?.path ?? request.url;
        return errorResponse("service_unavailable", `Cannot ${request.method} ${path}: ${error.message}`, prepared.headers);
      }
      onError(error, request);
      return internalErrorResponse(prepared.headers);
    }
  }

  async function respond(request: Request, connection: ConnectionInfo | undefined, prepared: { headers: Readonly<Record<string, string>> }): Promise<Response> {
    // A preflight is answered before anything else; every other answer carries the CORS headers.
    const crossOrigin = cors?.(request);
    if (crossOrigin?.preflight !== undefined) return crossOrigin.preflight;
    prepared.headers = crossOrigin?.headers ?? NO_HEADERS;
    // Counted next, so every request counts and every answer carries what is left.
    const admission = limiter?.(request, connection);
    if (admission?.refused !== undefined) return withHeaders(admission.refused, prepared.headers);
    prepared.headers = joinHeaders(prepared.headers, admission?.headers ?? NO_HEADERS);
    const host = request.headers.get("host");
    // Deno builds the URL from Host, so a Host holding "/" or "?" would move the path: refuse it
    // before the URL is read (RFC 9112 §3.2 asks for 400 too).
    if (host !== null && !isHostValue(host)) {
      return errorResponse("invalid_header", `Cannot answer ${request.method}: "Host" must be a host name or IP address with an optional port, got ${JSON.stringify(host)}`, prepared.headers);
    }
    const target = splitUrl(request.url);
    if (target === undefined) return errorResponse("not_found", `Cannot find ${JSON.stringify(request.url)}: not an http URL`, prepared.headers);
    if (referencePage !== undefined && target.path === "/") return await referencePage(request, originOf(request.headers, target.origin) + basePath);
    if (!target.path.startsWith(`${basePath}/`)) {
      return errorResponse("not_found", `Cannot find ${target.path}: the API is served under ${basePath}/`, prepared.headers);
    }
    const method = request.method === "HEAD" ? "GET" : request.method;
    const match = matchRoute(method, target.path.slice(basePath.length));
    const baseUrl = originOf(request.headers, target.origin) + basePath;
    prepared.headers = joinHeaders(prepared.headers, preparedHeaders(match, baseUrl));
    return await dispatch(request, match, target, baseUrl, prepared.headers);
  }

  /** The key is checked before routing, so an unknown path or method without a key answers 401. */
  async function dispatch(request: Request, match: RouteMatch | undefined, target: RequestTarget, baseUrl: string, prepared: Readonly<Record<string, string>>): Promise<Response> {
    const outcome = match?.route?.public ? "ok" : checkKey(request.headers.get("authorization"));
    if (outcome !== "ok") return unauthorized(outcome, realm, prepared);
    if (match === undefined) return errorResponse("not_found", `Cannot ${request.method} ${target.path}: no such resource`, prepared);
    if (match.route === undefined) {
      const { allow } = match;
      return errorResponse("method_not_allowed", `Cannot ${request.method} ${target.path}: allowed methods are ${allow}`, { ...prepared, allow });
    }
    const { store } = options;
    const context = new RequestContext({ request, query: target.query, params: match.params, store, maxBodyBytes, baseUrl, idempotency, prepared, texts });
    const response = await match.route.handler(context);
    // An answer the handler made some other way gets the route's headers here.
    return prepared === NO_HEADERS || context.madeHere(response) ? response : withHeaders(response, prepared);
  }

  /** The methods a request's path answers, for a CORS preflight; `undefined` where nothing does. */
  function methodsAt(request: Request): string | undefined {
    const path = splitUrl(request.url)?.path;
    if (path === "/" && referencePage !== undefined) return REFERENCE_PAGE_METHODS;
    if (path === undefined || !path.startsWith(`${basePath}/`)) return undefined;
    const match = matchRoute(request.method, path.slice(basePath.length));
    return match === undefined || match.route !== undefined ? undefined : match.allow;
  }

  return { fetch, onError };
}

/**
 * The deprecation of the matched route; for a path whose routes answer other methods only (a 405),
 * theirs when every one of them is deprecated, since the path itself is then going away.
 */
function deprecationOf(match: RouteMatch | undefined): Deprecation | undefined {
  if (match === undefined) return undefined;
  if (match.route !== undefined) return match.route.deprecation;
  const [first, ...rest] = match.routes;
  return rest.every((route) => route.deprecation === first?.deprecation) ? first?.deprecation : undefined;
}

/** `response` with `headers` set on a copy of it, or as it is when there are none. */
function withHeaders(response: Response, headers: Readonly<Record<string, string>>): Response {
  if (headers === NO_HEADERS) return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}

function unauthorized(outcome: Exclude<AuthOutcome, "ok">, realm: string, headers: Readonly<Record<string, string>>): Response {
  // RFC 6750 §3: name the error only when a bearer token was sent.
  const challenge = outcome === "missing" ? `Bearer realm="${realm}"` : `Bearer realm="${realm}", error="invalid_token"`;
  const message = outcome === "missing"
    ? "Missing API key: send it as Authorization: Bearer <key>"
    : "Invalid API key: the bearer token is not a known key";
  return errorResponse("unauthorized", message, { ...headers, "www-authenticate": challenge });
}

/** The answer to HEAD: GET's status and headers, the length of GET's body, and no body. */
async function withoutBody(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  // The core's answers declare their length; an answer that does not is read to learn it.
  if (!headers.has("content-length")) headers.set("content-length", String((await response.arrayBuffer()).byteLength));
  return new Response(null, { status: response.status, headers });
}
