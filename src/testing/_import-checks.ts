/**
 * @module
 * The contract of the optional `exportPets` and `importPets` (`importChecks`): ids kept, numbering
 * continued up to 2^53 − 1 and no further, all or nothing, refusals named, keys carried, snapshots.
 */
import type { MovedPet, Pet, PetStore } from "../mod.ts";
import type { StoreCheck } from "./_expect.ts";
import { exportPets, IDEMPOTENCY_KEY_TTL_MS, ImportRefusedError, importPets, MAX_EXACT_INTEGER, StoreUnavailableError } from "../mod.ts";
import { ALICE, checkOn, expectEqual, expectTrue, gather, show } from "./_expect.ts";

/**
 * The contract of the optional `exportPets` and `importPets`, against stores made by `open` (each
 * check gets fresh, empty ones): ids kept, numbering continued, all or nothing, refusals named.
 */
export function importChecks(open: () => Promise<PetStore>): StoreCheck[] {
  const check = (name: string, body: (store: PetStore) => Promise<void>) =>
    checkOn(open, name, (store) => {
      expectTrue(store.importPets !== undefined, "the store has importPets");
      return body(store);
    });
  return [
    check("an import keeps every id and field, and creates continue above the last", importKeepsIds),
    check("an import is all or nothing: a pet refused half way leaves the store as it was", importAllOrNothing),
    check("ids not strictly ascending are refused, naming the pet's position", importRefusesDisorder),
    check("a store that holds pets is refused, unless appending above its highest id", importRefusesNonEmpty),
    check("idempotency keys younger than 24 hours go along and replay; older ones stay behind", importCarriesKeys),
    check("an export is a snapshot in id order: pets created while it runs come after its last", exportIsSnapshot),
    check("ids end at 2^53 − 1: creates past it reject with StoreUnavailableError, and the pets stay readable", idsEndAtTheTop),
    { name: "an export imported into another store gives the same export", run: () => roundTrip(open) },
  ];
}

/** A pet to import with this id (every other one sold). */
const moved = (id: number, name = `p${id}`): MovedPet => ({ pet: { id, name, categoryId: id % 3, ...(id % 2 === 0 ? { status: "sold" as const } : {}) } });

/** Expects `promise` to reject with `ImportRefusedError` at `position`, its message containing `words`. */
async function expectRefusal(what: string, promise: Promise<unknown>, position: number | undefined, words: string): Promise<void> {
  const error = await promise.then(() => undefined, (error: unknown) => error);
  expectTrue(error instanceof ImportRefusedError, `${what} is refused with ImportRefusedError, got ${String(error)}`);
  const refusal = error as ImportRefusedError;
  expectTrue(refusal.position === position && refusal.message.includes(words),
    `${what} is refused at position ${position} saying "${words}", got ${refusal.position}: ${refusal.message}`);
}

async function importKeepsIds(store: PetStore): Promise<void> {
  const pets = [moved(3), moved(7, "Rex"), moved(10)];
  expectEqual("the summary", await importPets(store, pets), { count: 3, lastId: 10, keys: 0, keysLeft: 0 });
  expectEqual("list({ limit: 10, after: 0 })", await store.list({ limit: 10, after: 0 }), pets.map(({ pet }) => pet));
  expectEqual("get(7)", await store.get(7), pets[1]!.pet);
  const next = await store.create({ name: "new", categoryId: 1 });
  expectTrue(next.id > 10, `a create after the import gets an id above 10, got ${next.id}`);
}

async function importAllOrNothing(store: PetStore): Promise<void> {
  await expectRefusal("a duplicate id half way", importPets(store, [moved(1), moved(2), moved(3), moved(3)]), 3, "not above the previous id 3");
  await expectRefusal("an invalid pet half way", importPets(store, [moved(1), moved(2), { pet: { id: 3, name: "", categoryId: 1 } }]), 2, "not a valid pet");
  expectEqual("list({ limit: 10, after: 0 }) after the refusals", await store.list({ limit: 10, after: 0 }), []);
  expectEqual("the summary of a later import", await importPets(store, [moved(1), moved(2)]), { count: 2, lastId: 2, keys: 0, keysLeft: 0 });
}

async function importRefusesDisorder(store: PetStore): Promise<void> {
  await expectRefusal("ids 5 then 4", importPets(store, [moved(5), moved(4)]), 1, "has id 4, not above the previous id 5");
  await expectRefusal("id 0", importPets(store, [{ pet: { id: 0, name: "a", categoryId: 1 } }]), 0, '"id" must be a positive integer');
}

async function importRefusesNonEmpty(store: PetStore): Promise<void> {
  const first = await store.create({ name: "here", categoryId: 1 });
  await expectRefusal("an import into a store holding a pet", importPets(store, [moved(first.id + 5)]), undefined, "already holds 1 pets");
  await expectRefusal("an appended pet not above the store's highest id", importPets(store, [moved(first.id)], { append: true }), 0, `not above the highest id the target store has handed out ${first.id}`);
  const appended = [moved(first.id + 5), moved(first.id + 6)];
  await importPets(store, appended, { append: true });
  expectEqual("list({ limit: 10, after: 0 })", await store.list({ limit: 10, after: 0 }), [first, ...appended.map(({ pet }) => pet)]);
  const next = await store.create({ name: "next", categoryId: 1 });
  expectTrue(next.id > first.id + 6, `a create after the append gets an id above ${first.id + 6}, got ${next.id}`);
}

async function importCarriesKeys(store: PetStore): Promise<void> {
  expectTrue(store.createWithKey !== undefined, "the store has createWithKey");
  const now = Date.now();
  const young = { pet: moved(1).pet, key: { client: ALICE.client, key: ALICE.key, at: now - 60_000 } };
  const old = { pet: moved(2).pet, key: { client: ALICE.client, key: "old-key", at: now - IDEMPOTENCY_KEY_TTL_MS - 60_000 } };
  expectEqual("the summary", await importPets(store, [young, old]), { count: 2, lastId: 2, keys: 1, keysLeft: 1 });
  expectEqual("a retry with the young key", await store.createWithKey!({ name: "again", categoryId: 1 }, ALICE), { pet: young.pet, replayed: true });
  const retry = await store.createWithKey!({ name: "again", categoryId: 1 }, { ...ALICE, key: "old-key" });
  expectTrue(!retry.replayed && retry.pet.id > 2, `a retry with the old key creates a new pet above 2, got ${show(retry)}`);
}

async function exportIsSnapshot(store: PetStore): Promise<void> {
  for (let i = 0; i < 5; i++) await store.create({ name: `p${i}`, categoryId: i });
  const reading = exportPets(store)[Symbol.asyncIterator]();
  const exported: Pet[] = [(await reading.next()).value.pet];
  const during = await store.create({ name: "during", categoryId: 1 });
  for (let item = await reading.next(); !item.done; item = await reading.next()) exported.push(item.value.pet);
  const ids = exported.map((pet) => pet.id);
  expectTrue(ids.every((id, i) => i === 0 || id > ids[i - 1]!), `the export is in ascending id order, got ${ids.join(", ")}`);
  expectEqual("the export", exported, await store.list({ limit: exported.length, after: 0 }));
  expectTrue(exported.length >= 5 && exported.every((pet) => pet.id <= during.id), `the export holds the 5 pets before it and nothing above ${during.id}`);
}

async function idsEndAtTheTop(store: PetStore): Promise<void> {
  const top = MAX_EXACT_INTEGER;
  await importPets(store, [moved(top - 3)]);
  const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => store.create({ name: `c${i}`, categoryId: i })));
  const ids = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value.id] : [])).sort((a, b) => a - b);
  expectEqual("the ids 5 concurrent creates got with 3 left", ids, [top - 2, top - 1, top]);
  const refusals = [...outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : [])),
    await store.create({ name: "more", categoryId: 1 }).then(show, (error: unknown) => error)];
  if (store.createWithKey !== undefined) refusals.push(await store.createWithKey({ name: "keyed", categoryId: 1 }, ALICE).then(show, (error: unknown) => error));
  for (const refusal of refusals) {
    expectTrue(refusal instanceof StoreUnavailableError, `a create with no id left rejects with StoreUnavailableError, got ${String(refusal)}`);
  }
  expectEqual(`list({ limit: 10, after: ${top - 4} })`, (await store.list({ limit: 10, after: top - 4 })).map((pet) => pet.id), [top - 3, top - 2, top - 1, top]);
  expectEqual(`get(${top})`, (await store.get(top))?.id, top);
}

async function roundTrip(open: () => Promise<PetStore>): Promise<void> {
  const [source, target] = [await open(), await open()];
  try {
    for (let i = 0; i < 30; i++) await source.create({ name: `p${i}`, categoryId: i, ...(i % 3 === 0 ? { status: "pending" as const } : {}) });
    await source.createWithKey?.({ name: "keyed", categoryId: 1 }, ALICE);
    const exported = await gather(exportPets(source));
    await importPets(target, exported);
    const again = await gather(exportPets(target));
    expectEqual("the target's export", again.map(({ pet }) => pet), exported.map(({ pet }) => pet));
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
}
