/**
 * @module
 * A store that keeps pets in memory only: fast, and gone when the process ends.
 */
import type { NewPet, Pet } from "./pet.ts";
import { withId } from "./pet.ts";
import { addPet, createPetIndex, pageOf, petById } from "./pet-index.ts";
import type { PetStore } from "./store.ts";

/** A store that holds every pet in memory; ids start at 1. */
export function createMemoryStore(): PetStore {
  const index = createPetIndex();
  let lastId = 0;
  return {
    create(pet: NewPet): Promise<Pet> {
      lastId += 1;
      const stored = withId(lastId, pet);
      addPet(index, stored);
      return Promise.resolve(stored);
    },
    get: (id) => Promise.resolve(petById(index, id)),
    list: (query) => Promise.resolve(pageOf(index, query)),
    close: () => Promise.resolve(),
  };
}
