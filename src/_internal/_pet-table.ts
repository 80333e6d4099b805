/**
 * @module
 * Private, for the stores that hold their pets in memory (the memory store, and the JSON-file store
 * once its file is loaded): the pets in id order with the ids handed out, and the idempotency keys of
 * the last 24 hours; the pets as one export, and an import, all or nothing.
 */
import type { ImportOptions, ImportSummary, MovedKey, MovedPet } from "../move-pets/moved.ts";
import type { NewPet, Pet } from "../pet.ts";
import type { IdempotencyKey, PageQuery } from "../store.ts";
import { createKeyTable } from "./_idempotency-keys.ts";
import { importSummary, refuseUnlessAbove, refuseUnlessEmpty } from "./_import-rules.ts";
import { addPet, createNumbering, createPetIndex, pageOf, petById } from "./_pet-index.ts";

/** An idempotency key with the time its pet was created, in milliseconds since the epoch. */
export interface KeyAt extends IdempotencyKey {
  readonly at: number;
}

/** Pets in id order and the keys that created them, held in memory. */
export interface PetTable {
  /** How many pets it holds. */
  readonly size: number;
  /** The highest id handed out or held: `number` gives the next one. */
  readonly lastId: number;
  /** How many ids are left to hand out: none above 2^53 − 1, the end of the API's `petId`. */
  readonly idsLeft: number;
  /** How many idempotency keys it holds (those past 24 hours included until they are pushed out). */
  readonly keysHeld: number;
  /** The pet with this id, or `undefined`. */
  get(id: number): Pet | undefined;
  /** The page of pets the query asks for. */
  list(query: PageQuery): Pet[];
  /** The pet `key` created, unless it is unknown or older than 24 hours at `now`. */
  keyed(key: IdempotencyKey, now: number): Pet | undefined;
  /**
   * `pet` under the next id, not yet held (a store that writes first adds it once written); throws
   * `idsUsedUp()` once every id is handed out.
   */
  number(pet: NewPet): Pet;
  /** Holds a pet whose id is above every pet held, with the key that created it; ids continue above it. */
  add(pet: Pet, key?: KeyAt): void;
  /** Ids continue above `id`: one handed out before, whose pet is gone. */
  passTo(id: number): void;
  /** The pets held now as one snapshot, each with its key younger than 24 hours as `movedKey` makes it. */
  exportPets(movedKey: (key: KeyAt) => MovedKey): AsyncIterable<MovedPet>;
}

/** An empty table, keeping at most `maxKeys` idempotency keys (see `_idempotency-keys.ts`). */
export function createPetTable(maxKeys?: number): PetTable {
  const index = createPetIndex();
  const numbering = createNumbering(0);
  const keys = createKeyTable(maxKeys);
  return {
    get size() {
      return index.all.length;
    },
    get lastId() {
      return numbering.last;
    },
    get idsLeft() {
      return numbering.left;
    },
    get keysHeld() {
      return keys.size;
    },
    get: (id) => petById(index, id),
    list: (query) => pageOf(index, query),
    keyed: (key, now) => petById(index, keys.find(key, now) ?? 0),
    number: (pet) => numbering.next(pet),
    add(pet, key) {
      addPet(index, pet);
      numbering.passTo(pet.id);
      if (key !== undefined) keys.add(key, pet.id, key.at);
    },
    passTo: (id) => numbering.passTo(id),
    async *exportPets(movedKey) {
      const end = index.all.length; // pets added from now on come after the snapshot
      const young = keys.byPet(Date.now());
      for (let i = 0; i < end; i++) {
        const pet = index.all[i]!;
        const key = young.get(pet.id);
        yield key === undefined ? { pet } : { pet, key: movedKey(key) };
      }
    },
  };
}

/**
 * Imports `pets` into `table` all or nothing: gathered first, then held at once. Keys kept as a
 * client's digest come along; a JSON-file store's `clientMac` stays behind, counted.
 */
export async function importIntoTable(table: PetTable, pets: AsyncIterable<MovedPet>, options: ImportOptions): Promise<ImportSummary> {
  const append = options.append === true;
  refuseUnlessEmpty(table.size, append);
  const floor = () => (append ? table.lastId : 0);
  const taken: MovedPet[] = [];
  for await (const moved of pets) {
    refuseUnlessAbove(moved.pet.id, taken.length === 0 ? floor() : taken[taken.length - 1]!.pet.id, taken.length);
    taken.push(moved);
  }
  // Creates may have come in while the pets were read.
  refuseUnlessEmpty(table.size, append);
  if (taken[0] !== undefined) refuseUnlessAbove(taken[0].pet.id, floor(), 0);
  let stored = 0;
  for (const { pet, key } of taken) {
    const digest = key?.client === undefined ? undefined : { client: key.client, key: key.key, at: key.at };
    table.add(pet, digest);
    if (digest !== undefined) stored++;
  }
  const lastId = taken[taken.length - 1]?.pet.id ?? 0;
  return importSummary({ count: taken.length, lastId, withKey: taken.filter((moved) => moved.key !== undefined).length }, stored);
}
