/**
 * @module
 * Private, shared by the memory and JSON-file stores: an in-memory index of pets: lookup by id and pages whose cost grows with their size, not with
 * the number of pets stored.
 *
 * Ids only ever grow, so appending keeps every list sorted: one list of all pets and one per
 * status, each searched with a binary search for the cursor. Ids are dense in practice, so the pet
 * with id n sits at position n − (first id) of the full list: lookup is O(1) without a Map, which
 * would cost more memory per pet than the pet itself.
 */
import type { NewPet, Pet, PetStatus } from "../pet.ts";
import type { PageQuery } from "../store.ts";
import { withId } from "../pet.ts";

/** Pets in id order, overall and per status. */
export interface PetIndex {
  readonly all: Pet[];
  readonly byStatus: Record<PetStatus, Pet[]>;
}

/** An empty index. */
export function createPetIndex(): PetIndex {
  return { all: [], byStatus: { available: [], pending: [], sold: [] } };
}

/** Adds a pet whose id is above every id already in the index. */
export function addPet(index: PetIndex, pet: Pet): void {
  const last = index.all[index.all.length - 1];
  if (last !== undefined && pet.id <= last.id) {
    throw new RangeError(`Cannot index pet ${pet.id}: ids must grow, last is ${last.id}`);
  }
  index.all.push(pet);
  if (pet.status !== undefined) index.byStatus[pet.status].push(pet);
}

/** The ids a store hands out: `next` gives a new pet the id after `last`; `passTo` moves `last` up to an id stored otherwise. */
export interface Numbering {
  readonly last: number;
  next(pet: NewPet): Pet;
  passTo(id: number): void;
}

/** Numbering that starts after `lastId`, in the order pets are asked for. */
export function createNumbering(lastId: number): Numbering {
  let last = lastId;
  return {
    get last() {
      return last;
    },
    next: (pet) => withId(++last, pet),
    passTo: (id) => void (last = Math.max(last, id)),
  };
}

/** The pet with this id, or `undefined`. */
export function petById(index: PetIndex, id: number): Pet | undefined {
  const { all } = index;
  const guess = all[id - (all[0]?.id ?? 0)];
  if (guess?.id === id) return guess;
  const found = all[firstAbove(all, id - 1)]; // ids have gaps: search
  return found?.id === id ? found : undefined;
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
