/**
 * @module
 * What a route handler receives, and the handler type itself.
 */
import type { IdempotencyGuard } from "./idempotency.ts";
import type { PetTexts } from "./_pet-texts.ts";
import type { PetStore } from "./store.ts";

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
  /**
   * Headers every answer of the route carries: a deprecated route's `Deprecation`, `Sunset` and
   * successor `Link`, none otherwise. The handler of a route the table marks deprecated puts them on
   * each response it makes.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The app's remembered JSON texts of pets and pages. */
  readonly texts: PetTexts;
  /** The app's idempotency-key bookkeeping: keyed creates in flight. */
  readonly idempotency: IdempotencyGuard;
}

/** Answers one matched request. */
export type RouteHandler = (context: Context) => Promise<Response>;
