/**
 * @module
 * A store that keeps pets in memory only: fast, and gone when the process ends.
 */
import type { NewPet } from "./pet.ts";
import type { PageQuery, PetStore } from "./store.ts";
import { _methodNow, createPetTable, importIntoTable } from "./_internal/stores.ts";

/** Options of the memory store. */
export interface MemoryStoreOptions {
  /** The most idempotency keys kept at once, shared fairly by API keys; past it, the oldest of the largest holder are forgotten early. Default 100,000. */
  readonly maxIdempotencyKeys?: number;
}

/** A store that holds every pet in memory; ids start at 1. */
export function createMemoryStore(options: MemoryStoreOptions = {}): PetStore {
  const table = createPetTable(options.maxIdempotencyKeys);
  return {
    // A create, like each read, also answers now, for the core (`_answerNow`, bench/RESULTS.md, issue 53).
    create: _methodNow((pet: NewPet) => {
      const stored = table.number(pet);
      table.add(stored);
      return stored;
    }),
    async createWithKey(pet, key) {
      const at = Date.now();
      const earlier = table.keyed(key, at);
      if (earlier !== undefined) return { pet: earlier, replayed: true };
      const stored = table.number(pet);
      table.add(stored, { ...key, at });
      return { pet: stored, replayed: false };
    },
    get: _methodNow((id: number) => table.get(id)),
    list: _methodNow((query: PageQuery) => table.list(query)),
    exportPets: () => table.exportPets(({ client, key, at }) => ({ client, key, at })),
    importPets: (pets, options = {}) => importIntoTable(table, pets, options),
    health: async () => ({ ok: true }),
    close: async () => {},
  };
}
