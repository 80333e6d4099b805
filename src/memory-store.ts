/**
 * @module
 * A store that keeps pets in memory only: fast, and gone when the process ends.
 */
import type { NewPet, Pet } from "./pet.ts";
import type { MovedPet, PetStore } from "./store.ts";
import { createTally, importSummary, refuseUnlessAbove, refuseUnlessEmpty } from "./_internal/_import-rules.ts";
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
    async *exportPets() {
      const end = index.all.length; // the snapshot: pets created from now on come after it
      const young = keys.byPet(Date.now());
      for (let i = 0; i < end; i++) {
        const pet = index.all[i]!;
        const key = young.get(pet.id);
        yield key === undefined ? { pet } : { pet, key };
      }
    },
    async importPets(pets, options = {}) {
      // Gathered first and stored at once: a refusal half way leaves the store as it was.
      refuseUnlessEmpty(index.all.length, options.append === true);
      const taken: MovedPet[] = [];
      const tally = createTally();
      for await (const moved of pets) {
        refuseUnlessAbove(moved.pet.id, tally.count === 0 ? numbering.last : tally.lastId, tally.count);
        taken.push(moved);
        tally.add(moved);
      }
      // Creates may have come in while the pets were read.
      refuseUnlessEmpty(index.all.length, options.append === true);
      if (taken[0] !== undefined) refuseUnlessAbove(taken[0].pet.id, numbering.last, 0);
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
    },
    health: async () => ({ ok: true }),
    close: async () => {},
  };
}
