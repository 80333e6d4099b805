/**
 * @module
 * `createApp`: the whole service as one function from a Fetch API `Request` to a `Response`, with
 * optional features plugged in (see `types.ts` for how plugs are asked).
 */
import type { _Answer } from "./_internal/_answer-now.ts";
import type { RequestTarget } from "./_internal/_request-target.ts";
import type { Route, RouteMatch } from "./routes.ts";
import type { PublicOriginOptions } from "./public-origin.ts";
import type { PetStore } from "./store.ts";
import type { App, ConnectionInfo, Plug, PlugHeaders, PlugSetup, PlugStep, PlugSteps } from "./types.ts";
import type { ApiKey, KeyList, KeyRing } from "./api-keys/mod.ts";
import { keyRingOf, tokenDigest } from "./api-keys/mod.ts";
import { insufficientScope, mayUse, unauthorized } from "./auth.ts";
import { Context } from "./context.ts";
import { errorResponse, internalErrorResponse } from "./errors.ts";
import { joinHeaders, NO_HEADERS, withHeaders } from "./_internal/_header-records.ts";
import { forwardedForReader } from "./_internal/_forwarded.ts";
import { _lastSoundHostCheck } from "./_internal/_host.ts";
import { createIdempotencyGuard } from "./_internal/_idempotency-guard.ts";
import { createPetTexts } from "./_internal/_pet-texts.ts";
import { plugAnswer, plugHeaders, plugStepsOf, refuseUnknownOptions } from "./_internal/_plug-checks.ts";
import { createOriginResolver } from "./public-origin.ts";
import { splitUrl } from "./_internal/_request-target.ts";
import { createRouteHeaders, createRouteMatcher, ROUTES } from "./routes.ts";
import { StoreUnavailableError } from "./store.ts";
import { _appAnsweringNow } from "./_internal/_answer-now.ts";

/** How to build the service; `publicUrl` and `trustProxy` say where its absolute URLs point. */
export interface AppOptions extends PublicOriginOptions {
  /** Where pets are kept. */
  readonly store: PetStore;
  /**
   * The API keys accepted: bearer tokens, or entries with a name, the key or its SHA-256, a scope and an
   * expiry (at least one), or a key file's keys (`parseKeyFile`); or a key ring (`createKeyRing`) the host
   * may replace keys in while the app serves.
   */
  readonly apiKeys: readonly ApiKey[] | KeyList | KeyRing;
  /** The path the API is mounted under, without a trailing slash (`""` for the root). Default `/v1`. */
  readonly basePath?: string;
  /** The largest accepted request body in bytes. Default 65536 (64 KiB). */
  readonly maxBodyBytes?: number;
  /** The realm named in `WWW-Authenticate`. Default `animal-store`. */
  readonly realm?: string;
  /** Called with every unexpected error, and the request it happened in, before the 500. Default `console.error`. */
  readonly onError?: (error: unknown, request?: Request) => void;
  /** Optional features, asked about every request before routing, each step at its time (see `Plug` in `types.ts`). Default none. */
  readonly plugs?: readonly Plug[];
}

/** The default largest request body: 64 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 65536;

// Every option, so a host's mistyped or removed one is refused rather than ignored (tsc holds this to `AppOptions`).
const OPTIONS: Readonly<Record<keyof AppOptions, true>> = Object.freeze({
  store: true, apiKeys: true, basePath: true, maxBodyBytes: true, realm: true, onError: true, plugs: true, publicUrl: true, trustProxy: true,
});

/** Builds the Animal Store service over a store, accepting the given API keys. */
export function createApp(options: AppOptions): App {
  return createAppWithRoutes(ROUTES, options);
}

/** Builds the service over a route table of its own (tests mark routes deprecated this way). */
export function createAppWithRoutes(routes: readonly Route[], options: AppOptions): App {
  refuseUnknownOptions(options, Object.keys(OPTIONS));
  const basePath = options.basePath ?? "/v1";
  if (basePath !== "" && (!basePath.startsWith("/") || basePath.endsWith("/"))) {
    throw new RangeError(`Cannot create app: basePath must start and not end with "/", got "${basePath}"`);
  }
  const keys = keyRingOf(options.apiKeys);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const realm = options.realm ?? "animal-store";
  const onError = options.onError ?? ((error: unknown) => console.error("animal-store: unexpected error", error));
  const matchRoute = createRouteMatcher(routes);
  const texts = createPetTexts();
  const idempotency = createIdempotencyGuard(tokenDigest);
  const originOf = createOriginResolver(options);
  const isHostValue = _lastSoundHostCheck();
  const routeHeaders = createRouteHeaders();
  const setup: PlugSetup = {
    basePath,
    keys,
    store: options.store,
    forwardedFor: forwardedForReader(options.trustProxy ?? false),
    methodsAt: (path) => plugPaths.get(path) ?? routeMethodsAt(path),
    baseUrlOf: (request) => originOf(request.headers, splitUrl(request.url)?.origin ?? "") + basePath,
    reports: () => reporting.map((plug) => ({ plug: plug.name!, report: plug.report!() })),
  };
  // Set once the plugs are made: a plug reads the others' reports while answering, never while being made.
  let reporting: readonly PlugSteps[] = [];
  const plugs = plugStepsOf(options.plugs ?? [], setup);
  const plugPaths = new Map(plugs.flatMap((plug) => Object.entries(plug.paths ?? {})));
  const marks: readonly PlugHeaders[] = plugs.flatMap((plug) => plug.headers ?? []);
  // Every early step, then every late one: one list, asked in order.
  const steps: readonly PlugStep[] = [...plugs.flatMap((plug) => plug.early ?? []), ...plugs.flatMap((plug) => plug.late ?? [])];
  reporting = plugs.filter((plug) => plug.report !== undefined);
  const basePrefix = `${basePath}/`;

  // `_answerNow`: an answer ready now goes back as it is, not as a promise, so the adapters and wraps
  // that know the device send it in the same turn (measured in bench/RESULTS.md, issue 53, third round).
  function answerNow(request: Request, connection?: ConnectionInfo): _Answer {
    const carried: Carried = { headers: NO_HEADERS, context: undefined };
    try {
      const answered = respond(request, connection, carried);
      if (answered instanceof Promise || request.method === "HEAD") return answerLater(request, answered, carried);
      return withRouteHeaders(answered, carried);
    } catch (error) {
      return failed(request, error, carried);
    }
  }

  async function answerLater(request: Request, answered: _Answer, carried: Carried): Promise<Response> {
    try {
      const response = withRouteHeaders(await answered, carried);
      // HEAD is answered as GET, without the body; a 304 has none and already declares its 200's length.
      return request.method === "HEAD" && response.status !== 304 ? await withoutBody(response) : response;
    } catch (error) {
      return failed(request, error, carried);
    }
  }

  /** The answer to an error thrown or rejected while answering: 503 for a store that cannot serve now, else the 500, reported. */
  function failed(request: Request, error: unknown, carried: Carried): Response {
    if (error instanceof StoreUnavailableError) {
      const path = splitUrl(request.url)?.path ?? request.url;
      return errorResponse("service_unavailable", `Cannot ${request.method} ${path}: ${error.message}`, carried.headers);
    }
    onError(error, request);
    return internalErrorResponse(carried.headers);
  }

  // `respond` and `dispatch` are not async: a request's answer is awaited at most once, in
  // `answerLater`, and a request goes through two promises fewer: `_awaitedOnce` (measured in bench/RESULTS.md, issue 53).
  function respond(request: Request, connection: ConnectionInfo | undefined, carried: Carried): _Answer {
    const target = splitUrl(request.url);
    const path = target?.path ?? "";
    // The plugs first: the headers every answer carries, then the steps; the first answer ends the
    // asking and carries the headers collected before it.
    for (const mark of marks) {
      const headers = mark(request, path);
      if (headers !== undefined) carried.headers = joinHeaders(carried.headers, plugHeaders(headers));
    }
    for (const step of steps) {
      const outcome = step(request, path, connection);
      if (outcome === undefined) continue;
      if (outcome.answer !== undefined) return Promise.resolve(outcome.answer).then((answer) => withHeaders(plugAnswer(answer), carried.headers));
      carried.headers = joinHeaders(carried.headers, plugHeaders(outcome.headers));
    }
    const host = request.headers.get("host");
    // Deno builds the URL from Host, so a Host holding "/" or "?" would move the path: refuse it
    // before the path is routed (RFC 9112 §3.2 asks for 400 too).
    if (host !== null && !isHostValue(host)) {
      return errorResponse("invalid_header", `Cannot answer ${request.method}: "Host" must be a host name or IP address with an optional port, got ${JSON.stringify(host)}`, carried.headers);
    }
    if (target === undefined) return errorResponse("not_found", `Cannot find ${JSON.stringify(request.url)}: not an http URL`, carried.headers);
    if (!target.path.startsWith(basePrefix)) {
      return errorResponse("not_found", `Cannot find ${target.path}: the API is served under ${basePrefix}`, carried.headers);
    }
    const method = request.method === "HEAD" ? "GET" : request.method;
    const match = matchRoute(method, target.path.slice(basePath.length));
    const baseUrl = originOf(request.headers, target.origin) + basePath;
    carried.headers = joinHeaders(carried.headers, routeHeaders(match, baseUrl));
    return dispatch(request, match, target, baseUrl, carried);
  }

  /**
   * The key is checked before routing, so an unknown path or method without a key answers 401; its
   * scope once the operation is known, so a read-only key's write answers 403 (a 404 or 405 first).
   */
  function dispatch(request: Request, match: RouteMatch | undefined, target: RequestTarget, baseUrl: string, carried: Carried): _Answer {
    const headers = carried.headers;
    const check = match?.route?.public ? undefined : keys.keyOf(request);
    if (check !== undefined && check.outcome !== "valid") return unauthorized(check, realm, headers);
    if (match === undefined) return errorResponse("not_found", `Cannot ${request.method} ${target.path}: no such resource`, headers);
    if (match.route === undefined) {
      const { allow } = match;
      return errorResponse("method_not_allowed", `Cannot ${request.method} ${target.path}: allowed methods are ${allow}`, { ...headers, allow });
    }
    if (check !== undefined && !mayUse(check.key.scope, match.route.method)) return insufficientScope(request.method, target.path, realm, headers);
    const { store } = options;
    carried.context = new Context({ request, query: target.query, params: match.params, store, maxBodyBytes, baseUrl, idempotency, carried: headers, texts });
    return match.route.handler(carried.context);
  }

  /** The methods the routes answer at a path (for a CORS preflight); `undefined` where none does or one answers OPTIONS. */
  function routeMethodsAt(path: string): string | undefined {
    if (!path.startsWith(`${basePath}/`)) return undefined;
    const match = matchRoute("OPTIONS", path.slice(basePath.length));
    return match === undefined || match.route !== undefined ? undefined : match.allow;
  }

  return _appAnsweringNow(answerNow, onError);
}

/**
 * What a request's answer carries, collected as it is routed: the headers every answer carries, the 500
 * included (the plugs' and the route's), and the context its handler was given, once it was.
 */
interface Carried {
  headers: Readonly<Record<string, string>>;
  context: Context | undefined;
}

/** An answer the handler made some other way, with the route's headers put on it. */
function withRouteHeaders(answered: Response, carried: Carried): Response {
  const { context } = carried;
  return context === undefined || carried.headers === NO_HEADERS || context.madeHere(answered) ? answered : withHeaders(answered, carried.headers);
}

/** The answer to HEAD: GET's status and headers, the length of GET's body, and no body. */
async function withoutBody(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  // The core's answers declare their length; an answer that does not is read to learn it.
  if (!headers.has("content-length")) headers.set("content-length", String((await response.arrayBuffer()).byteLength));
  return new Response(null, { status: response.status, headers });
}
