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
import type { IdempotencyKey, KeyedCreate, MovedPet, NewPet, Pet, PetStore } from "../mod.ts";
import { exportPets, IDEMPOTENCY_KEY_TTL_MS, ImportRefusedError, importPets, MAX_EXACT_INTEGER, StoreUnavailableError } from "../mod.ts";

/** One behaviour of the store contract; `run` rejects when the store breaks it. */
export interface StoreCheck {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** The store contract as checks against stores made by `open` (each check gets a fresh, empty one). */
export function storeChecks(open: () => Promise<PetStore>): StoreCheck[] {
  const check = (name: string, body: (store: PetStore) => Promise<void>) => checkOn(open, name, body);
  return [
    check("create assigns positive, unique, increasing ids and keeps the fields", createKeepsFields),
    check("get returns the pet, or undefined for an id never assigned", getFindsOrMisses),
    check("list pages in ascending id order after the cursor, filtered by status", listPages),
    check("concurrent creates get distinct ids and are all listed", concurrentCreates),
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

/** Every item of an iterable, gathered. */
async function gather<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

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

/** A store that can be closed and opened again on the same data, for `reopenChecks`. */
export interface ReopenableStore {
  /** Opens the store on its data: empty the first time, and what the last close left after that. */
  open(): Promise<PetStore>;
  /** While the store is closed: removes its newest pet, as an operator editing the data by hand might. */
  removeNewest(): Promise<void>;
}

/**
 * The contract across a close and reopen, for stores that keep their pets (each check gets fresh
 * data from `fresh`): ids are never reused, even once the newest pet is gone from the data; and a
 * keyed retry whose pet is gone creates a new pet under the key, as in every store.
 */
export function reopenChecks(fresh: () => Promise<ReopenableStore>): StoreCheck[] {
  return [
    { name: "ids are never reused, even after the newest pet is gone from the data", run: async () => idsNeverReused(await fresh()) },
    { name: "a keyed retry whose pet is gone creates a new pet, and the key then replays it", run: async () => retryAfterPetGone(await fresh()) },
  ];
}

/** Runs `body` on the store `data` opens, and closes it whatever happens. */
async function withOpened<T>(data: ReopenableStore, body: (store: PetStore) => Promise<T>): Promise<T> {
  const store = await data.open();
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

async function idsNeverReused(data: ReopenableStore): Promise<void> {
  const [first, second] = await withOpened(data, async (store) => [
    await store.create({ name: "a", categoryId: 1 }),
    await store.create({ name: "b", categoryId: 1 }),
  ]);
  await data.removeNewest();
  const third = await withOpened(data, async (store) => {
    expectEqual("list({ limit: 10, after: 0 }) once the newest pet is gone", await store.list({ limit: 10, after: 0 }), [first]);
    return await store.create({ name: "c", categoryId: 1 });
  });
  expectTrue(third.id > second!.id, `a create after the newest pet (${second!.id}) is gone gets a new id, got ${third.id}`);
  await withOpened(data, async (store) => {
    expectEqual("list({ limit: 10, after: 0 }) after a second reopen", await store.list({ limit: 10, after: 0 }), [first, third]);
    const fourth = await store.create({ name: "d", categoryId: 1 });
    expectTrue(fourth.id > third.id, `the next create continues above ${third.id}, got ${fourth.id}`);
  });
}

async function retryAfterPetGone(data: ReopenableStore): Promise<void> {
  const pet: NewPet = { name: "Rex", categoryId: 1 };
  const first = await withOpened(data, async (store) => {
    expectTrue(store.createWithKey !== undefined, "the store has createWithKey");
    return (await store.createWithKey!(pet, ALICE)).pet;
  });
  await data.removeNewest();
  await withOpened(data, async (store) => {
    const retry = await store.createWithKey!(pet, ALICE);
    expectTrue(!retry.replayed && retry.pet.id > first.id, `the retry creates a new pet above ${first.id}, got ${show(retry)}`);
    expectEqual("a second retry", await store.createWithKey!(pet, ALICE), { pet: retry.pet, replayed: true });
  });
}

/** A check that runs `body` on a fresh store from `open`, and closes the store whatever happens. */
function checkOn(open: () => Promise<PetStore>, name: string, body: (store: PetStore) => Promise<void>): StoreCheck {
  return {
    name,
    run: async () => {
      const store = await open();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    },
  };
}

type CreateWithKey = (pet: NewPet, key: IdempotencyKey) => Promise<KeyedCreate>;

const ALICE: IdempotencyKey = { client: "digest-of-alice", key: "8e03978e-40d5-43e8-bc93-6894a57f9324" };

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

function expectTrue(holds: boolean, message: string): void {
  if (!holds) throw new Error(`Store contract broken: ${message}`);
}

function expectEqual(what: string, actual: unknown, expected: unknown): void {
  expectTrue(sameJson(actual, expected), `${what} should be ${show(expected)}, got ${show(actual)}`);
}

/** Deep equality of JSON-like values; a property set to `undefined` counts as absent, as in JSON. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && a.length !== (b as unknown[]).length) return false;
  const keysOf = (value: object) => Object.entries(value).filter(([, field]) => field !== undefined).map(([key]) => key).sort();
  const keys = keysOf(a);
  const otherKeys = keysOf(b);
  return keys.length === otherKeys.length &&
    keys.every((key, i) => key === otherKeys[i] && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function show(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}
