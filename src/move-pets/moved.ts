/**
 * @module
 * What moves between stores: each pet with its recent idempotency key, how an import treats a store
 * that holds pets, what it reports, and how it refuses.
 */
import type { Pet } from "../pet.ts";

/**
 * An idempotency key as it moves between stores, with the time its pet was created (milliseconds
 * since the epoch). `client` is the API key's digest, as the memory and PostgreSQL stores keep it;
 * the JSON-file store keeps only `clientMac`, an HMAC of it under the file's secret, which another
 * store matches only when given that secret (`ImportOptions.clientMacSecrets`).
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
  /**
   * The secrets the `clientMac` of the pets' keys were made under (a JSON-file store's, or those a
   * PostgreSQL store took with such keys), read once the pets are consumed (an export states them
   * on its last line). A store that takes them matches those keys for 24 hours; without them the
   * keys stay behind.
   */
  readonly clientMacSecrets?: () => readonly string[];
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

/** The optional store methods that move pets in and out, part of `PetStore`. */
export interface MovingStore {
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
  /**
   * The secrets the `clientMac` of the keys `exportPets` carries were made under, for an export to
   * carry along (see `ImportOptions.clientMacSecrets`). Optional: a store that keeps API key digests
   * has none.
   */
  clientMacSecrets?(): Promise<readonly string[]>;
}
