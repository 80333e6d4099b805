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
import { MAX_EXACT_INTEGER, withId } from "../pet.ts";
import { StoreUnavailableError } from "../store.ts";

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

/**
 * The ids a store hands out: `next` gives a new pet the id after `last`, or throws `idsUsedUp()`
 * once `last` is the largest id (`left` is 0); `passTo` moves `last` up to an id stored otherwise.
 */
export interface Numbering {
  readonly last: number;
  /** How many ids are left to hand out: none above `MAX_EXACT_INTEGER` (2^53 − 1), the end of the API's `petId`. */
  readonly left: number;
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
    get left() {
      return MAX_EXACT_INTEGER - last;
    },
    next(pet) {
      // Past it a JSON client could not tell an id from its neighbour, and the API could not name it.
      if (last >= MAX_EXACT_INTEGER) throw idsUsedUp();
      return withId(++last, pet);
    },
    passTo: (id) => void (last = Math.max(last, id)),
  };
}

/** The error of a create once every id is handed out (answered 503): ids end at 2^53 − 1 and are never reused. */
export function idsUsedUp(): StoreUnavailableError {
  return new StoreUnavailableError(
    `every id up to ${MAX_EXACT_INTEGER} (2^53 − 1, the largest pet id) has been handed out, and ids are never reused: no pet can be created`,
  );
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
