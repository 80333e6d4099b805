/**
 * @module
 * The storage interface: everything the service needs from wherever pets are kept.
 *
 * A store assigns ids and returns pets in ascending id order. A miss is `undefined`, never an
 * exception. To keep pets in SQL or a key-value store, implement these four methods, and the
 * optional ones for `Idempotency-Key`, the health check and moving pets; the checks of
 * `animal-store/testing` check an implementation.
 *
 * **The append-only rule.** A stored pet never changes and the service never removes one; a new
 * id is above every id the store ever handed out, even once pets are gone from the data by an
 * operator's hand: ids are never reused. What relies on it: the strong `ETag` of a pet and of a full
 * page (`pet.ts`, `get-pet.ts`, `list-pets.ts`, `openapi/mod.ts`), the `after` cursor, the index
 * that only appends (`_internal/_pet-index.ts`), the JSON-file journal with no compaction, and
 * exports. A keyed create whose pet is gone is made anew in every store (nothing is left to replay).
 */
import type { NewPet, Pet, PetStatus } from "./pet.ts";
import type { MovingStore } from "./move-pets/moved.ts";

/** Which page of pets to return: ids above `after`, at most `limit` of them, of one status or all. */
export interface PageQuery {
  readonly limit: number;
  readonly after: number;
  readonly status?: PetStatus;
}

/**
 * Who asked for a create and under which `Idempotency-Key`: a create with the same client and key
 * is a retry of the first.
 */
export interface IdempotencyKey {
  /** A digest of the API key the request carried, never the key itself: keys are scoped per API key. */
  readonly client: string;
  /** The `Idempotency-Key` the client sent. */
  readonly key: string;
}

/** What a keyed create resolved with: the pet, and whether the key had produced it before. */
export interface KeyedCreate {
  readonly pet: Pet;
  /** True when the key was already taken: `pet` is the one its first create stored, and nothing was stored now. */
  readonly replayed: boolean;
}

/** Whether a store can take writes now, and if not, why. */
export type StoreHealth = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** How long a store keeps an idempotency key at least: 24 hours, in milliseconds. */
export const IDEMPOTENCY_KEY_TTL_MS: number = 24 * 60 * 60 * 1000;

/** Where the service keeps its pets (and, optionally, how pets move in and out: `MovingStore`). */
export interface PetStore extends MovingStore {
  /** Stores a new pet under the next id and resolves with it once it is safely kept; ids end at `MAX_EXACT_INTEGER` (2^53 − 1), past it this rejects with `StoreUnavailableError`. */
  create(pet: NewPet): Promise<Pet>;
  /** The pet with this id, or `undefined` when there is none. */
  get(id: number): Promise<Pet | undefined>;
  /** The pets matching the query, in ascending id order. */
  list(query: PageQuery): Promise<Pet[]>;
  /**
   * Stores a new pet together with `key`, or, when `key` already produced a pet in the last 24
   * hours, stores nothing and resolves with that pet. Optional: without it, creates that carry an
   * `Idempotency-Key` answer 501.
   */
  createWithKey?(pet: NewPet, key: IdempotencyKey): Promise<KeyedCreate>;
  /** Whether the store can take writes now, for `GET /health`. Optional: without it, the store counts as healthy. */
  health?(): Promise<StoreHealth>;
  /** Finishes pending writes and releases the store's resources. */
  close(): Promise<void>;
}

/** Thrown by a store that cannot serve requests now (e.g. its disk failed); answered with 503. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
