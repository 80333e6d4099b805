/**
 * @module
 * `createApp`: the whole service as one function from a Fetch API `Request` to a `Response`.
 */
import type { AuthOutcome } from "./auth.ts";
import type { CorsOrigins } from "./cors.ts";
import type { RequestTarget } from "./_request-target.ts";
import type { RouteMatch } from "./routes.ts";
import type { PublicOriginOptions } from "./public-origin.ts";
import type { PetStore } from "./store.ts";
import { createKeyChecker } from "./auth.ts";
import { withCors } from "./cors.ts";
import { createIdempotencyGuard } from "./idempotency.ts";
import { createDeprecationHeaders } from "./deprecation.ts";
import { errorResponse, internalErrorResponse } from "./errors.ts";
import { isHostValue } from "./_host.ts";
import { createPetTexts } from "./_pet-texts.ts";
import { createOriginResolver } from "./public-origin.ts";
import { createReferencePage, REFERENCE_PAGE_METHODS } from "./reference-page.ts";
import { splitUrl } from "./_request-target.ts";
import { createRouteMatcher, ROUTES } from "./routes.ts";
import { StoreUnavailableError } from "./store.ts";

/** A Fetch API request handler, as `Bun.serve`, `Deno.serve` and most host frameworks take it. */
export type Handler = (request: Request) => Promise<Response>;

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
  const basePath = options.basePath ?? "/v1";
  if (basePath !== "" && (!basePath.startsWith("/") || basePath.endsWith("/"))) {
    throw new RangeError(`Cannot create app: basePath must start and not end with "/", got "${basePath}"`);
  }
  const checkKey = createKeyChecker(options.apiKeys);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const realm = options.realm ?? "animal-store";
  const onError = options.onError ?? ((error: unknown) => console.error("animal-store: unexpected error", error));
  const matchRoute = createRouteMatcher(ROUTES);
  const texts = createPetTexts();
  const idempotency = createIdempotencyGuard();
  const originOf = createOriginResolver(options);
  const deprecationHeaders = createDeprecationHeaders();
  const referencePage = options.referencePage === true ? createReferencePage(basePath) : undefined;

  async function respond(request: Request): Promise<Response> {
    const host = request.headers.get("host");
    // Deno builds the URL from Host, so a Host holding "/" or "?" would move the path: refuse it
    // before the URL is read (RFC 9112 §3.2 asks for 400 too).
    if (host !== null && !isHostValue(host)) {
      return errorResponse("invalid_header", `Cannot answer ${request.method}: "Host" must be a host name or IP address with an optional port, got ${JSON.stringify(host)}`);
    }
    const target = splitUrl(request.url);
    if (target === undefined) return errorResponse("not_found", `Cannot find ${JSON.stringify(request.url)}: not an http URL`);
    if (referencePage !== undefined && target.path === "/") return await referencePage(request, originOf(request.headers, target.origin) + basePath);
    if (!target.path.startsWith(`${basePath}/`)) {
      return errorResponse("not_found", `Cannot find ${target.path}: the API is served under ${basePath}/`);
    }
    // HEAD is answered wherever GET is: the same answer, without its body.
    const method = request.method === "HEAD" ? "GET" : request.method;
    const match = matchRoute(method, target.path.slice(basePath.length));
    const baseUrl = originOf(request.headers, target.origin) + basePath;
    return await dispatch(request, match, target, baseUrl);
  }

  /** The key is checked before routing, so an unknown path or method without a key answers 401. */
  async function dispatch(request: Request, match: RouteMatch | undefined, target: RequestTarget, baseUrl: string): Promise<Response> {
    const deprecation = match?.route?.deprecation;
    // Given to each answer as it is made, not set on it afterwards: on Bun, setting headers on a
    // finished Response was 18% of a getPet request's JavaScript samples (bench/RESULTS.md).
    const headers = deprecation === undefined ? NO_HEADERS : deprecationHeaders(deprecation, baseUrl);
    const outcome = match?.route?.public ? "ok" : checkKey(request.headers.get("authorization"));
    if (outcome !== "ok") return unauthorized(outcome, realm, headers);
    if (match === undefined) return errorResponse("not_found", `Cannot ${request.method} ${target.path}: no such resource`);
    if (match.route === undefined) {
      const { allow } = match;
      return errorResponse("method_not_allowed", `Cannot ${request.method} ${target.path}: allowed methods are ${allow}`, { allow });
    }
    const { store } = options;
    return await match.route.handler({ request, query: target.query, params: match.params, store, maxBodyBytes, baseUrl, headers, texts, idempotency });
  }

  async function fetch(request: Request): Promise<Response> {
    try {
      const response = await respond(request);
      // A 304 has no body and already declares its 200's length.
      return request.method === "HEAD" && response.status !== 304 ? await withoutBody(response) : response;
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        const path = splitUrl(request.url)?.path ?? request.url;
        return errorResponse("service_unavailable", `Cannot ${request.method} ${path}: ${error.message}`);
      }
      onError(error, request);
      return internalErrorResponse();
    }
  }

  /** The methods a request's path answers, for a CORS preflight; `undefined` where nothing does. */
  function methodsAt(request: Request): string | undefined {
    const path = splitUrl(request.url)?.path;
    if (path === "/" && referencePage !== undefined) return REFERENCE_PAGE_METHODS;
    if (path === undefined || !path.startsWith(`${basePath}/`)) return undefined;
    const match = matchRoute(request.method, path.slice(basePath.length));
    return match === undefined || match.route !== undefined ? undefined : match.allow;
  }

  // Without origins nothing is added: not even a check per request.
  return { fetch: options.corsOrigins === undefined ? fetch : withCors(fetch, options.corsOrigins, methodsAt), onError };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

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
  const length = (await response.arrayBuffer()).byteLength;
  const headers = new Headers(response.headers);
  headers.set("content-length", String(length));
  return new Response(null, { status: response.status, headers });
}
