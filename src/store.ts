/**
 * @module
 * The storage interface: everything the service needs from wherever pets are kept.
 *
 * A store assigns ids (positive integers, unique, never reused) and returns pets in ascending id
 * order. A miss is `undefined`, never an exception. To keep pets in SQL or a key-value store,
 * implement these four methods; `test/store-contract.ts` checks an implementation.
 */
import type { NewPet, Pet, PetStatus } from "./pet.ts";

/** Which page of pets to return: ids above `after`, at most `limit` of them, of one status or all. */
export interface PageQuery {
  readonly limit: number;
  readonly after: number;
  readonly status?: PetStatus;
}

/** Where the service keeps its pets. */
export interface PetStore {
  /** Stores a new pet under the next id and resolves with it once it is safely kept. */
  create(pet: NewPet): Promise<Pet>;
  /** The pet with this id, or `undefined` when there is none. */
  get(id: number): Promise<Pet | undefined>;
  /** The pets matching the query, in ascending id order. */
  list(query: PageQuery): Promise<Pet[]>;
  /** Finishes pending writes and releases the store's resources. */
  close(): Promise<void>;
}

/** Thrown by a store that cannot serve requests now (e.g. its disk failed); answered with 503. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
