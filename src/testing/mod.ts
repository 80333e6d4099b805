/**
 * @module
 * The store contract: the behaviour every `PetStore` must show (and, for stores with the optional
 * `createWithKey` and `health`, what those must do), as named checks that any test runner can register (`bun:test`, `node:test`, Deno's, Vitest's). Each check opens a fresh, empty
 * store, throws on the first broken promise, and closes the store.
 *
 * ```ts
 * import { test } from "node:test";
 * import { storeChecks } from "animal-store/testing";
 * for (const check of storeChecks(() => openMyStore())) test(check.name, check.run);
 * ```
 */
import type { IdempotencyKey, KeyedCreate, NewPet, Pet, PetStore } from "../mod.ts";
import type { StoreCheck } from "./_expect.ts";
import { ALICE, checkOn, expectEqual, expectTrue, show } from "./_expect.ts";
import { EVENT_LOOP_BOUND_MS, neverHoldsTheLoop } from "./_event-loop.ts";

export type { StoreCheck } from "./_expect.ts";
export type { ReopenableStore } from "./_reopen-checks.ts";
export { importChecks } from "./_import-checks.ts";
export { reopenChecks } from "./_reopen-checks.ts";

/** The store contract as checks against stores made by `open` (each check gets a fresh, empty one). */
export function storeChecks(open: () => Promise<PetStore>): StoreCheck[] {
  const check = (name: string, body: (store: PetStore) => Promise<void>) => checkOn(open, name, body);
  return [
    check("create assigns positive, unique, increasing ids and keeps the fields", createKeepsFields),
    check("get returns the pet, or undefined for an id never assigned", getFindsOrMisses),
    check("list pages in ascending id order after the cursor, filtered by status", listPages),
    check("concurrent creates get distinct ids and are all listed", concurrentCreates),
    check(`under load (bursts of creates, keyed creates, pages, gets, an export) no call holds the event loop more than ${EVENT_LOOP_BOUND_MS} ms`, neverHoldsTheLoop),
  ];
}

/**
 * The contract of the optional store methods: `createWithKey` (for `Idempotency-Key`) and `health`,
 * for stores that have them, against stores made by `open` (each check gets a fresh, empty one).
 */
export function idempotencyChecks(open: () => Promise<PetStore>): StoreCheck[] {
  const check = (name: string, body: (store: PetStore, createWithKey: CreateWithKey) => Promise<void>) =>
    checkOn(open, name, (store) => {
      expectTrue(store.createWithKey !== undefined, "the store has createWithKey");
      return body(store, store.createWithKey!.bind(store));
    });
  return [
    check("the first create with a key stores the pet; a repeat stores nothing and resolves with the same pet, replayed", repeatReplays),
    check("a repeat with other fields resolves with the pet the key first produced, and stores nothing", otherFieldsReplay),
    check("keys are scoped per client: the same key from another client creates another pet", keysPerClient),
    check("concurrent creates with one key store one pet, and all resolve with it", concurrentKeyedCreates),
    check("keyed and plain creates mixed get ascending ids, each listed once", mixedCreates),
    check("health reports a store that can take writes", async (store) => {
      expectEqual("health()", await store.health?.(), { ok: true });
    }),
  ];
}

type CreateWithKey = (pet: NewPet, key: IdempotencyKey) => Promise<KeyedCreate>;

async function repeatReplays(store: PetStore, createWithKey: CreateWithKey): Promise<void> {
  const first = await createWithKey({ name: "Rex", categoryId: 1, status: "sold" }, ALICE);
  expectEqual("the first keyed create", first, { pet: { id: first.pet.id, name: "Rex", categoryId: 1, status: "sold" }, replayed: false });
  expectEqual("a repeat with the key", await createWithKey({ name: "Rex", categoryId: 1, status: "sold" }, ALICE), { pet: first.pet, replayed: true });
  expectEqual("list({ limit: 10, after: 0 })", await store.list({ limit: 10, after: 0 }), [first.pet]);
}

async function otherFieldsReplay(store: PetStore, createWithKey: CreateWithKey): Promise<void> {
  const first = await createWithKey({ name: "Rex", categoryId: 1 }, ALICE);
  expectEqual("a repeat with other fields", await createWithKey({ name: "Tom", categoryId: 2 }, ALICE), { pet: first.pet, replayed: true });
  expectEqual("list({ limit: 10, after: 0 })", await store.list({ limit: 10, after: 0 }), [first.pet]);
}

async function keysPerClient(store: PetStore, createWithKey: CreateWithKey): Promise<void> {
  const mine = await createWithKey({ name: "Rex", categoryId: 1 }, ALICE);
  const theirs = await createWithKey({ name: "Rex", categoryId: 1 }, { ...ALICE, client: "digest-of-bob" });
  expectTrue(!theirs.replayed && theirs.pet.id !== mine.pet.id, `another client's key creates another pet, got ${show(theirs)}`);
  expectEqual("list({ limit: 10, after: 0 })", await store.list({ limit: 10, after: 0 }), [mine.pet, theirs.pet]);
}

async function concurrentKeyedCreates(store: PetStore, createWithKey: CreateWithKey): Promise<void> {
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => createWithKey({ name: "Rex", categoryId: 1 }, ALICE)));
  const ids = new Set(outcomes.map((outcome) => outcome.pet.id));
  expectTrue(ids.size === 1, `5 concurrent creates with one key resolve with one pet, got ids ${[...ids].join(", ")}`);
  expectTrue(outcomes.filter((outcome) => !outcome.replayed).length === 1, "exactly one of them is not a replay");
  expectTrue((await store.list({ limit: 10, after: 0 })).length === 1, "one pet is listed");
}

async function mixedCreates(store: PetStore, createWithKey: CreateWithKey): Promise<void> {
  const created = await Promise.all(Array.from({ length: 40 }, async (_, i) =>
    i % 2 === 0
      ? (await createWithKey({ name: `k${i}`, categoryId: i }, { ...ALICE, key: `key-${i}` })).pet
      : await store.create({ name: `p${i}`, categoryId: i })));
  const listed = await store.list({ limit: 100, after: 0 });
  expectEqual("the ids listed", listed.map((pet) => pet.id), created.map((pet) => pet.id).sort((a, b) => a - b));
  expectEqual(`get(${created[0]!.id})`, await store.get(created[0]!.id), created[0]);
}

async function createKeepsFields(store: PetStore): Promise<void> {
  const first = await store.create({ name: "a", categoryId: 1, status: "sold" });
  const second = await store.create({ name: "b", categoryId: -2 });
  expectEqual("the first pet created", first, { id: first.id, name: "a", categoryId: 1, status: "sold" });
  expectEqual("a pet created without status", second, { id: second.id, name: "b", categoryId: -2 });
  expectTrue(Number.isSafeInteger(first.id) && first.id > 0, `the first id is a positive integer, got ${first.id}`);
  expectTrue(second.id > first.id, `the second id is above the first, got ${first.id} then ${second.id}`);
}

async function getFindsOrMisses(store: PetStore): Promise<void> {
  const pet = await store.create({ name: "a", categoryId: 1 });
  expectEqual(`get(${pet.id})`, await store.get(pet.id), pet);
  expectEqual(`get(${pet.id + 1})`, await store.get(pet.id + 1), undefined);
}

async function listPages(store: PetStore): Promise<void> {
  const statuses = ["sold", "available", undefined, "sold", "sold"] as const;
  const pets: Pet[] = [];
  for (const status of statuses) {
    const pet: NewPet = status === undefined ? { name: "p", categoryId: 1 } : { name: "p", categoryId: 1, status };
    pets.push(await store.create(pet));
  }
  const sold = pets.filter((pet) => pet.status === "sold");
  expectEqual("list({ limit: 10, after: 0 })", await store.list({ limit: 10, after: 0 }), pets);
  expectEqual("list({ limit: 2, after: 0 })", await store.list({ limit: 2, after: 0 }), pets.slice(0, 2));
  expectEqual("list({ limit: 2, after: <second id> })", await store.list({ limit: 2, after: pets[1]!.id }), pets.slice(2, 4));
  expectEqual('list({ limit: 10, after: 0, status: "sold" })', await store.list({ limit: 10, after: 0, status: "sold" }), sold);
  expectEqual(
    'list({ limit: 1, after: <first sold id>, status: "sold" })',
    await store.list({ limit: 1, after: sold[0]!.id, status: "sold" }),
    sold.slice(1, 2),
  );
  expectEqual('list({ limit: 10, after: 0, status: "pending" })', await store.list({ limit: 10, after: 0, status: "pending" }), []);
  expectEqual("list({ limit: 10, after: <last id> })", await store.list({ limit: 10, after: pets[4]!.id }), []);
}

async function concurrentCreates(store: PetStore): Promise<void> {
  const created = await Promise.all(Array.from({ length: 100 }, (_, i) => store.create({ name: `p${i}`, categoryId: i })));
  const ids = new Set(created.map((pet) => pet.id));
  expectTrue(ids.size === 100, `100 concurrent creates get 100 distinct ids, got ${ids.size}`);
  const listed = await store.list({ limit: 100, after: 0 });
  expectTrue(listed.length === 100, `all 100 pets are listed, got ${listed.length}`);
}

