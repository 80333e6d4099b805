/**
 * @module
 * What a route handler receives: the request's parts, the store, and the ways to answer. Every
 * answer made through the context carries the headers the app collected for the request (the plugs' and its route's: a
 * deprecated route's `Deprecation`, `Sunset` and successor `Link`), so no handler has to remember
 * them; the app puts them on anything else the handler returns (see `app.ts`). The context is
 * a class so that a request costs one object and no functions of its own.
 */
import type { PetTexts } from "./_internal/_pet-texts.ts";
import type { ErrorCode } from "./errors.ts";
import type { IdempotencyGuard } from "./idempotency.ts";
import type { Pet } from "./pet.ts";
import type { PetStore } from "./store.ts";
import { ifNoneMatchHits, notModified } from "./etag.ts";
import { errorResponse } from "./errors.ts";
import { joinHeaders } from "./_internal/_header-records.ts";
import { jsonResponse } from "./_internal/_json-response.ts";

/** What the app knows of a request before its handler runs. */
export interface ContextParts extends Pick<Context, "request" | "query" | "params" | "store" | "maxBodyBytes" | "baseUrl" | "idempotency"> {
  /** The headers every answer to the request carries (the plugs' and the route's; a frozen record, often empty). */
  readonly carried: Readonly<Record<string, string>>;
  /** The app's remembered texts, tags and tagged headers. */
  readonly texts: PetTexts;
}

/** Answers one matched request: now, or a promise where it waits (for the store, the body). */
export type RouteHandler = (context: Context) => Response | Promise<Response>;

/** Everything a route handler needs to answer one request, and whether an answer was made through it (and so carries the request's headers). */
export class Context {
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
  readonly #carried: Readonly<Record<string, string>>;
  readonly #texts: PetTexts;
  #made: Response | undefined;

  constructor(parts: ContextParts) {
    this.request = parts.request;
    this.query = parts.query;
    this.params = parts.params;
    this.store = parts.store;
    this.maxBodyBytes = parts.maxBodyBytes;
    this.baseUrl = parts.baseUrl;
    this.idempotency = parts.idempotency;
    this.#carried = parts.carried;
    this.#texts = parts.texts;
  }

  /** An answer carrying JSON text. */
  json(status: number, text: string, headers?: Readonly<Record<string, string>>): Response {
    return this.#mark(jsonResponse(status, text, this.#merged(headers)));
  }

  /** An answer carrying the error object for `code`. */
  error(code: ErrorCode, message: string, headers?: Readonly<Record<string, string>>): Response {
    return this.#mark(errorResponse(code, message, this.#merged(headers)));
  }

  /**
   * A 200 carrying JSON text with its strong `ETag` (made from the text, so it changes whenever the
   * text does); a 304 with no body when the request's `If-None-Match` names the tag or is `*`.
   */
  tagged(text: string, headers?: Readonly<Record<string, string>>): Response {
    const extra = this.#merged(headers);
    const tag = this.#texts.tag(text);
    if (!ifNoneMatchHits(this.request.headers.get("if-none-match"), tag)) {
      return this.#mark(new Response(text, { status: 200, headers: this.#texts.taggedHeaders(text, extra) }));
    }
    return this.#mark(notModified(text, { ...extra, etag: tag }));
  }

  /** A 200 carrying JSON text without an `ETag` (a page that still grows); a 304 only for `If-None-Match: *`. */
  untagged(text: string): Response {
    if (this.request.headers.get("if-none-match")?.trim() !== "*") return this.#mark(jsonResponse(200, text, this.#carried));
    return this.#mark(notModified(text, this.#carried));
  }

  /** An answer without a body (a 204), carrying the route's headers. */
  empty(status: number, headers?: Readonly<Record<string, string>>): Response {
    return this.#mark(new Response(null, { status, headers: this.#merged(headers) }));
  }

  /** The JSON text of a pet. */
  petJson(pet: Pet): string {
    return this.#texts.pet(pet);
  }

  /** The JSON text of a list of pets: a bare array. */
  pageJson(pets: readonly Pet[]): string {
    return this.#texts.page(pets);
  }

  /** Whether `response` is the last answer made through this context. */
  madeHere(response: Response): boolean {
    return response === this.#made;
  }

  #mark(response: Response): Response {
    this.#made = response;
    return response;
  }

  #merged(headers: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
    return headers === undefined ? this.#carried : joinHeaders(this.#carried, headers);
  }
}
