/**
 * @module
 * A store that keeps pets in memory only: fast, and gone when the process ends.
 */
import type { NewPet, Pet } from "./pet.ts";
import type { PetStore } from "./store.ts";
import { exportIndex, importIntoIndex } from "./_internal/_import-rules.ts";
import { createKeyTable } from "./_internal/_idempotency-keys.ts";
import { addPet, createNumbering, createPetIndex, pageOf, petById } from "./_internal/_pet-index.ts";

/** Options of the memory store. */
export interface MemoryStoreOptions {
  /** The most idempotency keys kept at once, shared fairly by API keys; past it, the oldest of the largest holder are forgotten early. Default 100,000. */
  readonly maxIdempotencyKeys?: number;
}

/** A store that holds every pet in memory; ids start at 1. */
export function createMemoryStore(options: MemoryStoreOptions = {}): PetStore {
  const index = createPetIndex();
  const numbering = createNumbering(0);
  const keys = createKeyTable(options.maxIdempotencyKeys);
  function store(pet: NewPet): Pet {
    const stored = numbering.next(pet);
    addPet(index, stored);
    return stored;
  }
  return {
    create: async (pet) => store(pet),
    async createWithKey(pet, key) {
      const now = Date.now();
      const earlier = petById(index, keys.find(key, now) ?? 0);
      if (earlier !== undefined) return { pet: earlier, replayed: true };
      const stored = store(pet);
      keys.add(key, stored.id, now);
      return { pet: stored, replayed: false };
    },
    get: async (id) => petById(index, id),
    list: async (query) => pageOf(index, query),
    exportPets: () => exportIndex(index, keys, (client, key, at) => ({ client, key, at })),
    importPets: (pets, options = {}) => importIntoIndex({ index, numbering, keys }, pets, options),
    health: async () => ({ ok: true }),
    close: async () => {},
  };
}
