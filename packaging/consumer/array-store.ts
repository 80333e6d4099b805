import type { NewPet, PageQuery, Pet, PetStore } from "animal-store";

/** A store that keeps pets in an array, in id order; the id is the position plus one. */
export function createArrayStore(): PetStore {
  const pets: Pet[] = [];
  return {
    create: async (pet: NewPet) => {
      const stored: Pet = { id: pets.length + 1, ...pet };
      pets.push(stored);
      return stored;
    },
    get: async (id: number) => pets[id - 1],
    list: async ({ limit, after, status }: PageQuery) =>
      pets.slice(after).filter((pet) => status === undefined || pet.status === status).slice(0, limit),
    close: async () => {},
  };
}
