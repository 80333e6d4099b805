/**
 * @module
 * Private, shared by the stores' `exportPets` and `importPets`: the refusals every store makes the
 * same way, the summary each returns, and the export of an in-memory index and the import into one.
 */
import type { ImportOptions, ImportSummary, MovedKey, MovedPet } from "../move-pets/moved.ts";
import type { Pet } from "../pet.ts";
import type { KeyTable } from "./_idempotency-keys.ts";
import type { Numbering, PetIndex } from "./_pet-index.ts";
import { addPet } from "./_pet-index.ts";
import { ImportRefusedError } from "../move-pets/moved.ts";

/** Refuses an import into a store that holds `count` pets, unless it appends. */
export function refuseUnlessEmpty(count: number, append: boolean): void {
  if (count > 0 && !append) {
    throw new ImportRefusedError(`the target store already holds ${count} pets; import into an empty store, or append above its highest id`);
  }
}

/**
 * Refuses the pet at `position` unless its id is above `floor`: the previous pet's id, or for the
 * first pet of an append the highest id the store handed out (into an empty store, any id: a restore
 * brings back the ids it had, and the store's numbering still continues above the higher of the two).
 */
export function refuseUnlessAbove(id: number, floor: number, position: number): void {
  if (id <= floor) {
    const what = position === 0 ? "the highest id the target store has handed out" : "the previous id";
    throw new ImportRefusedError(`has id ${id}, not above ${what} ${floor}`, position);
  }
}

/** The summary of an import that stored `pets`, `keys` of their keys among them. */
export function importSummary(pets: { readonly count: number; readonly lastId: number; readonly withKey: number }, keys: number): ImportSummary {
  return { count: pets.count, lastId: pets.lastId, keys, keysLeft: pets.withKey - keys };
}

/** Counts pets as they pass, for `importSummary`. */
export function createTally(): { count: number; lastId: number; withKey: number; add(moved: MovedPet): void } {
  return {
    count: 0,
    lastId: 0,
    withKey: 0,
    add(moved) {
      this.count++;
      this.lastId = moved.pet.id;
      if (moved.key !== undefined) this.withKey++;
    },
  };
}

/** The pets of `index` as one snapshot (those indexed now), each with its key younger than 24 hours as `movedKey` makes it. */
export async function* exportIndex(index: PetIndex, keys: KeyTable, movedKey: (client: string, key: string, at: number) => MovedKey): AsyncIterable<MovedPet> {
  const end = index.all.length; // pets created from now on come after the snapshot
  const young = keys.byPet(Date.now());
  for (let i = 0; i < end; i++) {
    const pet: Pet = index.all[i]!;
    const key = young.get(pet.id);
    yield key === undefined ? { pet } : { pet, key: movedKey(key.client, key.key, key.at) };
  }
}

/** Imports `pets` into a memory store's index and keys, all or nothing: gathered first, then stored at once. */
export async function importIntoIndex(
  { index, numbering, keys }: { readonly index: PetIndex; readonly numbering: Numbering; readonly keys: KeyTable },
  pets: AsyncIterable<MovedPet>,
  options: ImportOptions,
): Promise<ImportSummary> {
  refuseUnlessEmpty(index.all.length, options.append === true);
  const floor = () => (options.append === true ? numbering.last : 0);
  const taken: MovedPet[] = [];
  const tally = createTally();
  for await (const moved of pets) {
    refuseUnlessAbove(moved.pet.id, tally.count === 0 ? floor() : tally.lastId, tally.count);
    taken.push(moved);
    tally.add(moved);
  }
  // Creates may have come in while the pets were read.
  refuseUnlessEmpty(index.all.length, options.append === true);
  if (taken[0] !== undefined) refuseUnlessAbove(taken[0].pet.id, floor(), 0);
  let stored = 0;
  for (const { pet, key } of taken) {
    addPet(index, pet);
    numbering.passTo(pet.id);
    if (key?.client !== undefined) {
      keys.add({ client: key.client, key: key.key }, pet.id, key.at);
      stored++;
    }
  }
  return importSummary(tally, stored);
}
