/**
 * @module
 * The types the core and its features share, at the bottom of the import order: the handler, the
 * app, where a request came from, a JSON value, and the two seams for optional features. Nothing
 * here imports a module that imports it back.
 *
 * Which seam: a feature that decides before routing (answers the request, or gives headers every
 * answer carries: CORS, a rate limit, the reference page, `/health`) is a `Plug`, passed to
 * `createApp`. A feature that observes or decorates the answer (the access log, the metrics, a
 * `Server-Timing` header) is a `Wrap`, put around the app: `wrap(createApp(…))`. A plug never sees
 * the answer; a wrap sees every request and every answer, the plugs' and the 500 included, but
 * does not take part in routing. A wrap puts headers on an answer with `setHeaders` alone.
 *
 * A plug is made once per app from what the app tells it (`PlugSetup`) and gives steps the app asks
 * about every request before routing, each kind at its time whatever the plugs' order: first every
 * plug's `headers` (headers every answer to the request carries, whoever makes it: CORS's), then
 * every `early` step (an answer before anything is counted: `/health`, a maintenance 503), then every
 * `late` step (an answer or headers after: a rate limit counts there, CORS answers a preflight, the
 * reference page its page). The first answer ends the asking; it carries every plug's `headers`
 * and the headers of the steps asked before it. The list's order matters only among steps of one
 * kind: a plug that counts in its `late` step counts the answers of the plugs after it. A plug tells
 * the health check and the metrics what it is doing through `report`, which every plug may read
 * (`PlugSetup.reports`).
 */
import type { KeyRing } from "./api-keys/mod.ts";
import type { PetStore } from "./store.ts";

/** A JSON value. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/**
 * Where a request came from, as the runtimes pass it as the handler's second argument: Bun's
 * server (`requestIP`) or Deno's handler info (`remoteAddr`); `serveNode` passes the first. Read
 * only by plugs (the rate limit, for requests without a valid key).
 */
export interface ConnectionInfo {
  /** The address of the connection `request` came on (Bun's `server.requestIP`). */
  requestIP?(request: Request): { readonly address: string } | null;
  /** The address of the connection the request came on (Deno's `ServeHandlerInfo.remoteAddr`). */
  readonly remoteAddr?: { readonly hostname?: string };
}

/** A Fetch API request handler, as `Bun.serve`, `Deno.serve` and most host frameworks take it. */
export type Handler = (request: Request, connection?: ConnectionInfo) => Promise<Response>;

/** The service: a Fetch API handler, and the `onError` that adapters report their own failures to. */
export interface App {
  /** Answers a request; never rejects (an unexpected error is passed to `onError` and answered with 500). */
  readonly fetch: Handler;
  /** Where unexpected errors go, also those an adapter meets while sending an answer. */
  readonly onError: (error: unknown, request?: Request) => void;
}

/** What the app tells a plug when it makes it, once per app. */
export interface PlugSetup {
  /** The path the API is mounted under, e.g. `/v1` (`""` for the root). */
  readonly basePath: string;
  /** The keys the app accepts: `keys.keyOf(request)` is the key a request carries, looked up once for the whole app. */
  readonly keys: KeyRing;
  /** Where the app keeps pets. */
  readonly store: PetStore;
  /** The client address the trusted proxy forwarded (without a port, not yet checked), or `undefined` when none is trusted or sent. */
  forwardedFor(headers: Headers): string | undefined;
  /** The methods the app answers at a path (its routes' and its plugs'), as an `Allow` value; `undefined` where nothing answers. */
  methodsAt(path: string): string | undefined;
  /** The absolute URL of the API as a request reached it, e.g. `https://pets.example/v1`. */
  baseUrlOf(request: Request): string;
  /** What each plug of the app that reports says of itself now (the health check and the metrics read it). */
  reports(): readonly NamedReport[];
}

/** What a plug says of itself, read whenever the health check or the metrics look. */
export interface PlugReport {
  /** Why the app cannot take writes now (`GET /health` answers 503 with it), or `undefined` while it can. */
  readonly unready?: string | undefined;
  /** Numbers an operator watches, by name (lowercase letters, digits, `_`): the metrics serve each as `animal_store_plug_<name>`. */
  readonly gauges?: Readonly<Record<string, { readonly value: number; readonly help: string }>>;
}

/** A plug's report under its name. */
export interface NamedReport {
  readonly plug: string;
  readonly report: PlugReport;
}

/** What a step makes of a request: an answer (maybe still being made), headers every answer carries, or nothing. */
export type PlugOutcome =
  | { readonly answer: Response | Promise<Response>; readonly headers?: undefined }
  | { readonly answer?: undefined; readonly headers: Readonly<Record<string, string>> }
  | undefined;

/** One step of a plug: the request, its path (percent-encoded, dot segments resolved) and where it came from. */
export type PlugStep = (request: Request, path: string, connection: ConnectionInfo | undefined) => PlugOutcome;

/** Headers every answer to a request carries, whoever makes it, or none: the request and its path. */
export type PlugHeaders = (request: Request, path: string) => Readonly<Record<string, string>> | undefined;

/** What a plug does with every request, before routing. Synchronous, so a plug costs a call where it has nothing to do. */
export interface PlugSteps {
  /** The plug's name, e.g. `cors`: an app refuses two plugs of one name (their headers would be sent twice). */
  readonly name?: string;
  /** Asked first, every plug's: headers every answer to the request carries, the plugs' answers included (CORS's). */
  readonly headers?: PlugHeaders;
  /** Asked next, every plug's in list order: an answer before anything is counted (`/health`, a maintenance 503). */
  readonly early?: PlugStep;
  /** Asked last, every plug's in list order: an answer (a 429, a preflight, a page) or headers every later answer carries (`RateLimit`). */
  readonly late?: PlugStep;
  /** The paths outside the base path the plug answers, each with its methods as an `Allow` value: `{ "/": "GET, HEAD" }`. */
  readonly paths?: Readonly<Record<string, string>>;
  /** What the plug is doing now, for the health check and the metrics (a named plug only). */
  report?(): PlugReport;
}

/** An optional feature, made once per app from what the app tells it. */
export type Plug = (setup: PlugSetup) => PlugSteps;

/**
 * An optional feature that observes or decorates the answer: given an app, the app that answers
 * through it. Its `fetch` calls the given app's and may read the request before and the answer
 * after; it keeps the given app's `onError`. Headers go on the answer through `setHeaders`.
 */
export type Wrap = (app: App) => App;
