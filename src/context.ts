/**
 * @module
 * What a route handler receives: the request's parts, the store, and the ways to answer. Every
 * answer made through the context carries the headers the app prepared for the request's route (a
 * deprecated route's `Deprecation`, `Sunset` and successor `Link`), so no handler has to remember
 * them; the app puts them on anything else the handler returns (see `app.ts`).
 */
import type { PetTexts } from "./_pet-texts.ts";
import type { ErrorCode } from "./errors.ts";
import type { IdempotencyGuard } from "./idempotency.ts";
import type { Pet } from "./pet.ts";
import type { PetStore } from "./store.ts";
import { ifNoneMatchHits } from "./etag.ts";
import { errorResponse } from "./errors.ts";
import { jsonResponse, utf8Length } from "./json-response.ts";

/** Everything a route handler needs to answer one request. */
export interface Context {
  readonly request: Request;
  /** The query string without its `?`, e.g. `limit=5`. */
  readonly query: string;
  /** Path parameters by name, e.g. `petId`, still percent-encoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly store: PetStore;
  readonly maxBodyBytes: number;
  /** The absolute URL the API is served under, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** The app's idempotency-key bookkeeping: keyed creates in flight. */
  readonly idempotency: IdempotencyGuard;
  /** An answer carrying JSON text. */
  json(status: number, text: string, headers?: Readonly<Record<string, string>>): Response;
  /** An answer carrying the error object for `code`. */
  error(code: ErrorCode, message: string, headers?: Readonly<Record<string, string>>): Response;
  /**
   * A 200 carrying JSON text that never changes, with its strong `ETag`; a 304 with no body when the
   * request's `If-None-Match` names the tag or is `*`.
   */
  unchanging(text: string, headers?: Readonly<Record<string, string>>): Response;
  /** A 200 carrying JSON text that may change (no `ETag`); a 304 only for `If-None-Match: *`. */
  current(text: string): Response;
  /** The JSON text of a pet. */
  petJson(pet: Pet): string;
  /** The JSON text of a list of pets: a bare array. */
  pageJson(pets: readonly Pet[]): string;
}

/** Answers one matched request. */
export type RouteHandler = (context: Context) => Promise<Response>;

/** What the app knows of a request before its handler runs. */
export interface ContextParts {
  readonly request: Request;
  readonly query: string;
  readonly params: Readonly<Record<string, string>>;
  readonly store: PetStore;
  readonly maxBodyBytes: number;
  readonly baseUrl: string;
  readonly idempotency: IdempotencyGuard;
  /** The headers prepared for the route, put on every answer (a frozen record, often empty). */
  readonly prepared: Readonly<Record<string, string>>;
  /** The app's remembered texts, tags and tagged headers. */
  readonly texts: PetTexts;
}

/** A handler's context, and whether an answer was made through it (and so carries the prepared headers). */
export interface MadeContext {
  readonly context: Context;
  madeHere(response: Response): boolean;
}

/** The context of one request. */
export function createContext(parts: ContextParts): MadeContext {
  const { request, prepared, texts } = parts;
  let made: Response | undefined;
  function mark(response: Response): Response {
    made = response;
    return response;
  }
  function merged(headers: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
    if (headers === undefined) return prepared;
    return prepared === NO_HEADERS ? headers : joinHeaders(prepared, headers);
  }
  const context: Context = {
    request,
    query: parts.query,
    params: parts.params,
    store: parts.store,
    maxBodyBytes: parts.maxBodyBytes,
    baseUrl: parts.baseUrl,
    idempotency: parts.idempotency,
    json: (status, text, headers) => mark(jsonResponse(status, text, merged(headers))),
    error: (code, message, headers) => mark(errorResponse(code, message, merged(headers))),
    unchanging(text, headers) {
      const extra = merged(headers);
      const tag = texts.tag(text);
      if (!ifNoneMatchHits(request.headers.get("if-none-match"), tag)) {
        return mark(new Response(text, { status: 200, headers: texts.taggedHeaders(text, extra) }));
      }
      return mark(notModified(text, { ...extra, etag: tag }));
    },
    current(text) {
      if (request.headers.get("if-none-match")?.trim() !== "*") return mark(jsonResponse(200, text, prepared));
      return mark(notModified(text, prepared));
    },
    petJson: texts.pet,
    pageJson: texts.page,
  };
  return { context, madeHere: (response) => response === made };
}

/** Both sets of headers; a name in both (two `Link`s) gets both values, as `Headers.append` would. */
function joinHeaders(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): Record<string, string> {
  const joined: Record<string, string> = { ...a };
  for (const [name, value] of Object.entries(b)) joined[name] = joined[name] === undefined ? value : `${joined[name]}, ${value}`;
  return joined;
}

/** Headers for no route in particular. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * A 304 with the given headers and no body. It declares the 200's `Content-Length`, as RFC 9110 §8.6
 * allows, so no adapter adds a wrong one.
 */
function notModified(text: string, headers: Readonly<Record<string, string>>): Response {
  return new Response(null, { status: 304, headers: { ...headers, "content-length": String(utf8Length(text)) } });
}
