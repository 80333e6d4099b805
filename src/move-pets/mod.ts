/**
 * @module
 * Taking every pet from one store to another: `exportPets` reads a store as a consistent snapshot,
 * `importPets` writes pets into a store under their own ids, all or nothing, after checking each
 * (`checkPets` checks them so without a store);
 * `petLine` and `readPetLine` write and read a pet with its key as one line of JSON.
 *
 * ```ts
 * const summary = await importPets(target, exportPets(source));
 * ```
 */
import type { Pet } from "../pet.ts";
import type { PetStore } from "../store.ts";
import type { ImportOptions, ImportSummary, MovedPet } from "./moved.ts";
import { IDEMPOTENCY_KEY_TTL_MS } from "../store.ts";
import { keyProblem } from "./pet-line.ts";
import { ImportRefusedError } from "./moved.ts";
import { validateStoredPet } from "../validate-pet.ts";

export { petLine, readPetLine } from "./pet-line.ts";

/** How many pets `exportPets` asks `list` for at a time, for stores without their own export. */
const PAGE_SIZE = 1000;

/**
 * Every pet of `store` in ascending id order, read as one consistent snapshot: through the store's
 * own `exportPets` (which carries keys younger than 24 hours), or else page by page through `list`
 * (every store shows pets in id order with no hole that fills later, so the pets read are all those
 * up to the last one).
 */
export async function* exportPets(store: PetStore): AsyncIterable<MovedPet> {
  if (store.exportPets !== undefined) return yield* store.exportPets();
  for (let after = 0;;) {
    const page = await store.list({ limit: PAGE_SIZE, after });
    for (const pet of page) yield { pet };
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1]!.id;
  }
}

/**
 * Stores `pets` in `store` under their own ids, all or nothing; new creates continue above the
 * last. Rejects with `ImportRefusedError` (naming the pet's position) a pet the validators refuse,
 * an id not above the previous one, a key that is not an `Idempotency-Key`, and whatever the store
 * refuses (a store that holds pets, unless `append`). Keys older than 24 hours are left behind.
 */
export async function importPets(store: Pick<PetStore, "importPets">, pets: AsyncIterable<MovedPet> | Iterable<MovedPet>, options: ImportOptions = {}): Promise<ImportSummary> {
  if (store.importPets === undefined) throw new ImportRefusedError("this store cannot keep the ids of imported pets (it has no importPets)");
  let expired = 0;
  const summary = await store.importPets(checked(pets, Date.now(), () => expired++), options);
  return { ...summary, keysLeft: summary.keysLeft + expired };
}

/**
 * Checks `pets` as `importPets` checks them on their way to a store, storing nothing (a backup
 * verified without restoring it): resolves with what an import of them into an empty store takes,
 * or rejects with `ImportRefusedError` naming the first pet refused.
 */
export async function checkPets(pets: AsyncIterable<MovedPet> | Iterable<MovedPet>): Promise<ImportSummary> {
  let expired = 0;
  let count = 0;
  let lastId = 0;
  let keys = 0;
  for await (const { pet, key } of checked(pets, Date.now(), () => expired++)) {
    count++;
    lastId = pet.id;
    if (key !== undefined) keys++;
  }
  return { count, lastId, keys, keysLeft: expired };
}

/** `pets`, each checked, with keys older than 24 hours (counted by `onExpired`) taken off. */
async function* checked(pets: AsyncIterable<MovedPet> | Iterable<MovedPet>, now: number, onExpired: () => void): AsyncIterable<MovedPet> {
  let position = 0;
  let lastId = 0;
  for await (const { pet, key } of pets) {
    const problem = petProblem(pet, lastId) ?? (key === undefined ? undefined : keyProblem(key));
    if (problem !== undefined) throw new ImportRefusedError(problem, position);
    lastId = pet.id;
    position++;
    const young = key !== undefined && now - key.at < IDEMPOTENCY_KEY_TTL_MS;
    if (key !== undefined && !young) onExpired();
    yield young ? { pet, key } : { pet };
  }
}

/** What is wrong with a pet to import, after one with `lastId`: `undefined` when nothing is. */
export function petProblem(pet: Pet, lastId: number): string | undefined {
  const valid = validateStoredPet(JSON.stringify(pet));
  if (!valid.ok) return `is not a valid pet: ${valid.issues.join("; ")}`;
  if (pet.id <= lastId) return `has id ${pet.id}, not above the previous id ${lastId}`;
  return undefined;
}
