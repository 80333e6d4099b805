/**
 * @module
 * A store that keeps pets in memory only: fast, and gone when the process ends.
 */
import type { NewPet, Pet } from "./pet.ts";
import type { PetStore } from "./store.ts";
import { addPet, createNumbering, createPetIndex, pageOf, petById } from "./_pet-index.ts";

/** A store that holds every pet in memory; ids start at 1. */
export function createMemoryStore(): PetStore {
  const index = createPetIndex();
  const numbered = createNumbering(0);
  return {
    async create(pet: NewPet): Promise<Pet> {
      const stored = numbered(pet);
      addPet(index, stored);
      return stored;
    },
    get: async (id) => petById(index, id),
    list: async (query) => pageOf(index, query),
    close: async () => {},
  };
}
