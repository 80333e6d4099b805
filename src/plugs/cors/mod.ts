/**
 * @module
 * CORS (the Fetch standard's protocol for pages on other origins): which origins may call the
 * service, the answer to their preflight, and the headers their actual answers carry: a plug, made
 * once per app with its header values.
 *
 * No credentials mode: the service authenticates with a bearer token a page sends in
 * `Authorization`, never with cookies, so it never sends `Access-Control-Allow-Credentials`, and
 * `*` is a safe choice for a public API.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "animal-store";
 * import { cors } from "animal-store/cors";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"], plugs: [cors(["https://app.example.com"])] });
 * ```
 */
import type { Json, Plug, PlugSteps, Validation } from "../../mod.ts";
import { OPENAPI_DOCUMENT } from "../../mod.ts";

/** The origins whose pages may call the service (each serialized: `https://app.example.com:8443`), or `*` for any. */
export type CorsOrigins = readonly string[] | "*";

/** The request headers a page may send: every header an operation of the served document reads (`declaredRequestHeaders`). */
export const CORS_ALLOWED_HEADERS: readonly string[] = Object.freeze(declaredRequestHeaders(OPENAPI_DOCUMENT));

/**
 * The request headers a document's operations read, sorted: `Authorization` (the key), `Content-Type`
 * where a body is taken, and every header parameter, but `Content-Encoding` (a page sends its body
 * as it is: only `identity` is taken) and the preflight's own.
 */
export function declaredRequestHeaders(document: Json): string[] {
  const names = new Set(["Authorization"]);
  const shared = field(field(document, "components"), "parameters");
  for (const item of Object.values(asObject(field(document, "paths")))) {
    for (const [method, operation] of Object.entries(asObject(item))) {
      if (method === "options" || method === "parameters") continue;
      if (field(operation, "requestBody") !== undefined) names.add("Content-Type");
      for (const each of asArray(field(operation, "parameters"))) {
        const reference = field(each, "$ref");
        const parameter = typeof reference === "string" ? field(shared, reference.split("/").pop()!) : each;
        const name = field(parameter, "name");
        if (field(parameter, "in") === "header" && typeof name === "string" && name !== "Content-Encoding") names.add(name);
      }
    }
  }
  return [...names].sort();
}

// A page reads these without being told (the Fetch standard's CORS-safelisted response-header names).
const SAFELISTED: readonly string[] = Object.freeze(["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"]);

/** The answer headers a page may read beyond the CORS-safelisted ones: every header the served document declares on an answer. */
export const CORS_EXPOSED_HEADERS: readonly string[] = Object.freeze(declaredAnswerHeaders(OPENAPI_DOCUMENT));

/** The header names a document declares on its answers (its paths' and its shared responses'), less the safelisted ones and CORS's own. */
export function declaredAnswerHeaders(document: Json): string[] {
  const names = new Set<string>();
  const visit = (value: Json | undefined): void => {
    if (value === null || typeof value !== "object") return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "headers" && isObject(inner)) for (const name of Object.keys(inner)) names.add(name);
      visit(inner);
    }
  };
  // Not `components.headers`: its keys name reusable definitions, not headers.
  visit(field(document, "paths"));
  visit(field(field(document, "components"), "responses"));
  return [...names].filter((name) => !SAFELISTED.includes(name.toLowerCase()) && !name.toLowerCase().startsWith("access-control-"));
}

function isObject(value: Json | undefined): value is { readonly [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function field(value: Json | undefined, key: string): Json | undefined {
  return isObject(value) ? value[key] : undefined;
}

function asObject(value: Json | undefined): { readonly [key: string]: Json } {
  return isObject(value) ? value : {};
}

function asArray(value: Json | undefined): readonly Json[] {
  return Array.isArray(value) ? value : [];
}

/** How long a browser may keep a preflight's answer: 2 hours, the most Chromium keeps (Firefox keeps up to 24). */
export const CORS_MAX_AGE_SECONDS = 7200;

/** What is wrong with an origin as `cors` takes it, or `undefined` when it is a serialized http(s) origin. */
export function corsOriginProblem(origin: string): string | undefined {
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    return `must hold http or https origins such as https://app.example.com, got "${origin}"`;
  }
  // An origin is exactly what a browser sends in `Origin`: no path (not even "/"), no user, lowercase, no default port.
  return parsed.origin === origin ? undefined : `must hold origins as a browser sends them in Origin ("${parsed.origin}"), got "${origin}"`;
}

/** Reads a `CORS_ORIGINS` value: `*`, or comma-separated origins (spaces around commas are ignored); `[]` when empty. */
export function parseCorsOrigins(text: string): Validation<CorsOrigins> {
  const origins = text.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "");
  if (origins.length === 1 && origins[0] === "*") return { ok: true, value: "*" };
  if (origins.includes("*")) return { ok: false, issues: [`must be "*" alone or a list of origins, got "${text}"`] };
  const issues = origins.flatMap((origin) => corsOriginProblem(origin) ?? []);
  return issues.length === 0 ? { ok: true, value: Object.freeze(origins) } : { ok: false, issues };
}

/**
 * CORS for an app: every answer to a request from an allowed origin carries
 * `Access-Control-Allow-Origin` and `-Expose-Headers` (its `headers` step: every plug's answers too),
 * and a preflight from one to a path the app answers is answered 204 without a key (its late step,
 * after a rate limit has counted it). With a list of origins every answer also says `Vary: Origin`, since whether it
 * carries them depends on `Origin`. The headers are frozen records made once per origin, which the
 * app puts on every answer as it makes it (see `context.ts`).
 */
export function cors(origins: CorsOrigins): Plug {
  if (origins !== "*") {
    const problem = origins.map(corsOriginProblem).find((found) => found !== undefined);
    if (problem !== undefined) throw new RangeError(`Cannot create app: cors origins ${problem}`);
  }
  return ({ methodsAt }) => corsSteps(origins, methodsAt);
}

function corsSteps(origins: CorsOrigins, methodsAt: (path: string) => string | undefined): PlugSteps {
  const anyOrigin = origins === "*";
  const exposed = CORS_EXPOSED_HEADERS.join(", ");
  const preflightHeaders = Object.freeze({
    "access-control-allow-headers": CORS_ALLOWED_HEADERS.join(", "),
    "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
    ...(anyOrigin ? { "access-control-allow-origin": "*" } : { vary: "Origin" }),
  });
  const notAllowed = Object.freeze(anyOrigin ? {} : { vary: "Origin" });
  // One record per allowed origin (or one for all, with "*"), made once.
  const allowedHeaders = new Map(
    (anyOrigin ? ["*"] : origins).map((origin) => [
      origin,
      Object.freeze({ ...(anyOrigin ? {} : { vary: "Origin" }), "access-control-allow-origin": origin, "access-control-expose-headers": exposed }),
    ]),
  );

  return {
    name: "cors",
    headers: (request) => {
      // With "*" every answer carries it, whatever the Origin, or none.
      const origin = anyOrigin ? "*" : request.headers.get("origin");
      return (origin === null ? undefined : allowedHeaders.get(origin)) ?? notAllowed;
    },
    late: (request, path) => {
      const origin = request.headers.get("origin");
      // Only `headers.get`: the core reads no more of a request (src/_internal/_fetch-contract.ts).
      if (origin === null || request.method !== "OPTIONS" || request.headers.get("access-control-request-method") === null) return undefined;
      if (!anyOrigin && !allowedHeaders.has(origin)) return undefined;
      const methods = methodsAt(path);
      if (methods === undefined) return undefined;
      const own = anyOrigin ? {} : { "access-control-allow-origin": origin };
      return { answer: new Response(null, { status: 204, headers: { ...preflightHeaders, ...own, "access-control-allow-methods": methods } }) };
    },
  };
}
