/**
 * @module
 * The storage interface: everything the service needs from wherever pets are kept.
 *
 * A store assigns ids and returns pets in ascending id order. A miss is `undefined`, never an
 * exception. To keep pets in SQL or a key-value store, implement these four methods, and the
 * optional ones for `Idempotency-Key`, the health check and moving pets; the checks of
 * `animal-store/testing` check an implementation.
 *
 * **Pets are only added.** A stored pet never changes and the service never removes one; a new
 * id is above every id the store ever handed out, even once pets are gone from the data by an
 * operator's hand: ids are never reused. A keyed create whose pet is gone is made anew in every
 * store (nothing is left to replay). `STORE_METHODS` says what each method does to pets; a method
 * that changes or removes one ends the rule, and each place below, by what breaks it, must change
 * in the same work (`test/pets-only-added.test.ts` has a test per place, failing until it does):
 *
 * - `operations/get-pet.ts` (a change): the document tells clients a pet never changes; its `ETag`
 *   and 304 already follow the pet's text, so a changed pet gets a new tag.
 * - `operations/list-pets.ts` (a change, a removal): the document says a full page never changes;
 *   and a walk filtered by status misses a pet whose status changed behind its cursor.
 * - `operations/create-pet.ts` (a change): a keyed retry is compared with the stored pet, so it
 *   answers 422 once the pet changed; it must be compared with what the key created.
 * - `pet.ts` (a change): texts and tags are remembered per frozen pet (`withId`,
 *   `_internal/_pet-texts.ts`), so a changed pet must be a new object, never the old one altered.
 * - `_internal/_pet-index.ts` (a change, a removal; the memory and file stores): the index only
 *   appends, and a pet stays in its status's list for good.
 * - `adapters/json-file-store/_journal.ts` and `adapters/postgres-store/mod.ts` (a change, a
 *   removal): the file holds creations only, and the database's rows are only inserted.
 * - Exports (a change, a removal; `move-pets/mod.ts`, each store's `exportPets`): a snapshot of
 *   pets as they were made.
 * - The metrics and the traces measure every method by its row (`wrapStore`): only the row.
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
  /** Whether the store can take writes now, for `GET /health` (readiness). Optional: without it, the store counts as healthy. */
  health?(): Promise<StoreHealth>;
  /**
   * Whether the store can still recover by itself, for `GET /health/live`: not ok only when nothing
   * but reopening it (a restart) can help, never while it waits on something that may come back (a
   * database). Asked on every liveness probe, so it waits on nothing remote. Optional: without it,
   * the store counts as live.
   */
  live?(): Promise<StoreHealth>;
  /** Finishes pending writes and releases the store's resources. */
  close(): Promise<void>;
}

/** How a wrapper of a store (the server's metrics, the tracing feature) treats one of its methods, and what the method does to stored pets. */
export type StoreMethod =
  /** Measured: each call counted, timed and traced as one operation, `label` naming its series. */
  | { readonly label: string; readonly pets: PetEffect }
  /** Passed through unmeasured, for the reason given. */
  | { readonly unmeasured: string; readonly pets: PetEffect };

/**
 * What a store method does to the pets a store holds. Only reading and adding keep the rule above:
 * a method that changes a pet (`"changes"`) or removes one (`"removes"`) widens this type, and then
 * every place the rule names changes with it.
 */
export type PetEffect = "none" | "reads" | "adds";

/**
 * Every method of `PetStore` and how wrappers treat it. Typed against the interface, so a method
 * added to `PetStore` does not compile until it has a row here, and the wrappers, which read the
 * rows, measure it from then on: nothing passes a wrapper unmeasured without a reason written here.
 */
export const STORE_METHODS: { readonly [Method in keyof PetStore]-?: StoreMethod } = Object.freeze({
  create: { label: "create", pets: "adds" },
  createWithKey: { label: "create_with_key", pets: "adds" },
  get: { label: "get", pets: "reads" },
  list: { label: "list", pets: "reads" },
  health: { label: "health", pets: "none" },
  live: { unmeasured: "asked by every liveness probe, it waits on nothing remote: no time worth a series of its own", pets: "none" },
  exportPets: { unmeasured: "an export is a command of its own (`animal-store export`), never under a server's metrics", pets: "reads" },
  importPets: { unmeasured: "an import is a command of its own (`animal-store import`), never under a server's metrics", pets: "adds" },
  clientMacSecrets: { unmeasured: "read once by an export, a command of its own, never under a server's metrics", pets: "none" },
  close: { unmeasured: "ends the store, once, when its server stops", pets: "none" },
});

/** Runs one call of a measured store method (`method` as `PetStore` names it, `label` from its row) and resolves as it does. */
export type AroundStoreCall = <T>(method: string, label: string, call: () => Promise<T>) => Promise<T>;

/**
 * `store` with every measured method run through `around` (how the metrics count and the tracing
 * spans a store's work), every other method of the table passed through bound to the store, and any
 * member beyond `PetStore` kept as it is.
 */
export function wrapStore(store: PetStore, around: AroundStoreCall): PetStore {
  const wrapped: Record<string, unknown> = { ...store };
  for (const [method, row] of Object.entries(STORE_METHODS)) {
    // Read through the prototype too: a store may be a class instance, whose methods a spread misses.
    const own = (store as unknown as Record<string, unknown>)[method];
    if (typeof own !== "function") continue;
    wrapped[method] = "label" in row ? (...args: unknown[]) => around(method, row.label, () => own.apply(store, args)) : own.bind(store);
  }
  return wrapped as unknown as PetStore;
}

/** Thrown by a store that cannot serve requests now (e.g. its disk failed); answered with 503. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
