/**
 * @module
 * Private, shared by every store's `importPets`: the refusals each store makes the same way, and
 * the summary each returns.
 */
import type { ImportSummary } from "../move-pets/moved.ts";
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
