/**
 * @module
 * An in-memory index of pets: O(1) lookup by id and pages whose cost grows with their size, not
 * with the number of pets stored.
 *
 * Ids only ever grow, so appending keeps every list sorted: one list of all pets and one per
 * status, each searched with a binary search for the cursor.
 */
import type { Pet, PetStatus } from "./pet.ts";
import type { PageQuery } from "./store.ts";

/** Pets by id and in id order, overall and per status. */
export interface PetIndex {
  readonly byId: Map<number, Pet>;
  readonly all: Pet[];
  readonly byStatus: Record<PetStatus, Pet[]>;
}

/** An empty index. */
export function createPetIndex(): PetIndex {
  return { byId: new Map(), all: [], byStatus: { available: [], pending: [], sold: [] } };
}

/** Adds a pet whose id is above every id already in the index. */
export function addPet(index: PetIndex, pet: Pet): void {
  const last = index.all[index.all.length - 1];
  if (last !== undefined && pet.id <= last.id) {
    throw new RangeError(`Cannot index pet ${pet.id}: ids must grow, last is ${last.id}`);
  }
  index.byId.set(pet.id, pet);
  index.all.push(pet);
  if (pet.status !== undefined) index.byStatus[pet.status].push(pet);
}

/** The page of pets the query asks for. */
export function pageOf(index: PetIndex, query: PageQuery): Pet[] {
  const pets = query.status === undefined ? index.all : index.byStatus[query.status];
  const start = firstAbove(pets, query.after);
  return pets.slice(start, start + query.limit);
}

/** The position of the first pet whose id is above `after` (binary search on sorted ids). */
function firstAbove(pets: readonly Pet[], after: number): number {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (pets[middle]!.id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
