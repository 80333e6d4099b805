/**
 * @module
 * The storage interface: everything the service needs from wherever pets are kept.
 *
 * A store assigns ids (positive integers, unique, never reused) and returns pets in ascending id
 * order. A miss is `undefined`, never an exception. To keep pets in SQL or a key-value store,
 * implement these four methods, and the optional ones for `Idempotency-Key`, the health check and
 * the id-keeping import; `storeChecks`, `idempotencyChecks`, `reopenChecks` and `importChecks` in
 * `animal-store/testing` check an implementation.
 *
 * **The append-only rule.** A stored pet never changes and the service never removes one; a new
 * pet's id is above every id the store ever handed out, even once pets are gone from the data by an
 * operator's hand (so an id is never reused). What relies on it: a pet's and a full page's strong
 * `ETag` (`pet.ts`, `get-pet.ts`, `list-pets.ts`, the document in `openapi/mod.ts`), the `after`
 * cursor that resumes a walk exactly, the in-memory index that only appends (`_pet-index.ts`), the
 * JSON-file store's journal with no compaction, and an exported file that lists every pet once. A
 * keyed create whose pet is gone from the data is made anew, in every store: there is no pet left
 * to replay, and the key names the new one from then on.
 */
import type { NewPet, Pet, PetStatus } from "./pet.ts";

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

/**
 * An idempotency key as it moves between stores, with the time its pet was created (milliseconds
 * since the epoch). `client` is the API key's digest, as the memory and PostgreSQL stores keep it;
 * the JSON-file store keeps only `clientMac`, an HMAC of it under the file's secret, which matches in
 * no other store.
 */
export type MovedKey =
  & { readonly key: string; readonly at: number }
  & ({ readonly client: string; readonly clientMac?: undefined } | { readonly clientMac: string; readonly client?: undefined });

/** A pet as an export carries it: with the idempotency key that created it, when younger than 24 hours. */
export interface MovedPet {
  readonly pet: Pet;
  readonly key?: MovedKey;
}

/** How an import may treat a store that already holds pets. */
export interface ImportOptions {
  /** Add the pets above the store's highest id instead of refusing a store that holds pets. Default false. */
  readonly append?: boolean;
}

/** What an import stored. */
export interface ImportSummary {
  /** How many pets were stored. */
  readonly count: number;
  /** The highest id stored (0 when none): new creates continue above it. */
  readonly lastId: number;
  /** How many idempotency keys were stored with their pets. */
  readonly keys: number;
  /** How many keys this store could not take (a JSON-file store's `clientMac` elsewhere, or older than 24 hours). */
  readonly keysLeft: number;
}

/**
 * Thrown when an import is refused: a pet out of order or invalid, or a store that holds pets.
 * `position` is the refused pet's place in the input, from 0 (absent for the store as a whole).
 */
export class ImportRefusedError extends Error {
  override name = "ImportRefusedError";
  readonly position: number | undefined;
  constructor(message: string, position?: number) {
    super(message);
    this.position = position;
  }
}

/** Whether a store can take writes now, and if not, why. */
export type StoreHealth = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** How long a store keeps an idempotency key at least: 24 hours, in milliseconds. */
export const IDEMPOTENCY_KEY_TTL_MS: number = 24 * 60 * 60 * 1000;

/** Where the service keeps its pets. */
export interface PetStore {
  /** Stores a new pet under the next id and resolves with it once it is safely kept. */
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
  /**
   * Every pet in ascending id order with its key younger than 24 hours, as one consistent snapshot:
   * pets created meanwhile are all in or all after the last one. Optional: without it `exportPets`
   * walks `list` and carries no keys.
   */
  exportPets?(): AsyncIterable<MovedPet>;
  /**
   * Stores pets under their own ids, all or nothing, and continues numbering above the last. Rejects
   * with `ImportRefusedError` an id not above the previous one nor above every id the store handed
   * out, and a store that holds pets unless `append`. Optional: without it a store cannot be imported
   * into. Call it through `importPets`, which also checks each pet.
   */
  importPets?(pets: AsyncIterable<MovedPet>, options?: ImportOptions): Promise<ImportSummary>;
  /** Whether the store can take writes now, for `GET /health`. Optional: without it, the store counts as healthy. */
  health?(): Promise<StoreHealth>;
  /** Finishes pending writes and releases the store's resources. */
  close(): Promise<void>;
}

/** Thrown by a store that cannot serve requests now (e.g. its disk failed); answered with 503. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
