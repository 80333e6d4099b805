/**
 * @module
 * The contract across a close and reopen (`reopenChecks`), for stores that keep their pets.
 */
import type { NewPet, Pet, PetStore } from "../mod.ts";
import type { StoreCheck } from "./_expect.ts";
import { ALICE, expectEqual, expectTrue, show } from "./_expect.ts";

/** A store that can be closed and opened again on the same data, for `reopenChecks`. */
export interface ReopenableStore {
  /** Opens the store on its data: empty the first time, and what the last close left after that. */
  open(): Promise<PetStore>;
  /** While the store is closed: removes its newest pet, as an operator editing the data by hand might. */
  removeNewest(): Promise<void>;
}

/**
 * The contract across a close and reopen, for stores that keep their pets (each check gets fresh
 * data from `fresh`): every acknowledged create is there after a reopen, also one in flight when
 * `close` was called; ids are never reused, even once the newest pet is gone from the data; and a
 * keyed retry whose pet is gone creates a new pet under the key, as in every store.
 */
export function reopenChecks(fresh: () => Promise<ReopenableStore>): StoreCheck[] {
  return [
    { name: "ids are never reused, even after the newest pet is gone from the data", run: async () => idsNeverReused(await fresh()) },
    { name: "a keyed retry whose pet is gone creates a new pet, and the key then replays it", run: async () => retryAfterPetGone(await fresh()) },
    { name: "every acknowledged create survives a close and reopen, also those in flight when close was called", run: async () => acknowledgedSurvive(await fresh()) },
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

/** Every pet the store lists, page by page. */
async function listAll(store: PetStore): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (;;) {
    const page = await store.list({ limit: 100, after: pets[pets.length - 1]?.id ?? 0 });
    pets.push(...page);
    if (page.length < 100) return pets;
  }
}

/** Creates pets, some not yet acknowledged when `close` is called; resolves with those acknowledged, and the keyed one. */
async function createThenClose(store: PetStore): Promise<{ pets: Pet[]; keyed: Pet | undefined }> {
  let closing: Promise<void> | undefined;
  try {
    const first = await Promise.all(Array.from({ length: 60 }, (_, i) => store.create({ name: `before ${i}`, categoryId: i, ...(i % 3 === 0 ? { status: "sold" as const } : {}) })));
    const keyed = (await store.createWithKey?.({ name: "keyed", categoryId: 1 }, ALICE))?.pet;
    // Not awaited before the close: `close` finishes pending writes, so each one that resolves is kept.
    const inFlight = Array.from({ length: 60 }, (_, i) => store.create({ name: `in flight ${i}`, categoryId: i }).catch(() => undefined));
    await (closing = store.close());
    const settled = (await Promise.all(inFlight)).filter((pet): pet is Pet => pet !== undefined);
    return { pets: [...first, ...(keyed === undefined ? [] : [keyed]), ...settled].sort((a, b) => a.id - b.id), keyed };
  } finally {
    if (closing === undefined) await store.close();
  }
}

async function acknowledgedSurvive(data: ReopenableStore): Promise<void> {
  const acknowledged = await createThenClose(await data.open());
  await withOpened(data, async (store) => {
    const listed = await listAll(store);
    const missing = acknowledged.pets.filter((pet) => !listed.some((found) => found.id === pet.id));
    expectEqual("the acknowledged pets missing after a reopen", missing, []);
    expectEqual("the acknowledged pets as listed after a reopen", listed.filter((pet) => acknowledged.pets.some((kept) => kept.id === pet.id)), acknowledged.pets);
    if (acknowledged.keyed !== undefined) {
      expectEqual("a keyed retry after a reopen", await store.createWithKey!({ name: "keyed", categoryId: 1 }, ALICE), { pet: acknowledged.keyed, replayed: true });
    }
  });
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
