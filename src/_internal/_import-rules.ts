/**
 * @module
 * Private, shared by the stores' `importPets`: the refusals every store makes the same way, and the
 * summary each returns.
 */
import type { ImportSummary, MovedPet } from "../store.ts";
import { ImportRefusedError } from "../store.ts";

/** Refuses an import into a store that holds `count` pets, unless it appends. */
export function refuseUnlessEmpty(count: number, append: boolean): void {
  if (count > 0 && !append) {
    throw new ImportRefusedError(`the target store already holds ${count} pets; import into an empty store, or append above its highest id`);
  }
}

/** Refuses the pet at `position` unless its id is above `floor`, the previous pet's id or else the store's last. */
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
