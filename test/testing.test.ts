import { expect, test } from "bun:test";
import type { MovedPet, PetStore } from "../src/mod.ts";
import { createMemoryStore, exportPets, importPets } from "../src/mod.ts";
import type { StoreCheck } from "../src/testing/mod.ts";
import { idempotencyChecks, importChecks, reopenChecks, storeChecks } from "../src/testing/mod.ts";

/** Opens memory stores with one fault each, to show that the contract notices it. */
function faulty(fault: (store: PetStore) => Partial<PetStore>): () => Promise<PetStore> {
  return () => {
    const store = createMemoryStore();
    return Promise.resolve({ ...store, ...fault(store) });
  };
}

/** The messages of the checks that failed. */
async function failures(open: () => Promise<PetStore>, checks: (open: () => Promise<PetStore>) => StoreCheck[] = storeChecks): Promise<string[]> {
  const results = await Promise.all(checks(open).map((check) => check.run().then(() => "", (error: Error) => error.message)));
  return results.filter((message) => message !== "");
}

test("the store contract passes for the memory store", async () => {
  expect(await failures(() => Promise.resolve(createMemoryStore()))).toEqual([]);
});

test("the store contract fails a store whose get throws for a missing id", async () => {
  const open = faulty((store) => ({ get: async (id) => (await store.get(id)) ?? Promise.reject(new Error("no such pet")) }));
  expect(await failures(open)).toEqual(["no such pet"]);
});

test("the store contract fails a store that lists in descending id order, naming the query", async () => {
  const open = faulty((store) => ({ list: async (query) => (await store.list(query)).reverse() }));
  const messages = await failures(open);
  expect(messages).toHaveLength(1);
  expect(messages[0]).toStartWith('Store contract broken: list({ limit: 10, after: 0 }) should be [{"id":1,');
});

test("the store contract fails a store that writes status null for a pet created without one", async () => {
  const open = faulty((store) => ({ create: async (pet) => ({ status: null as never, ...(await store.create(pet)) }) }));
  expect((await failures(open))[0]).toBe(
    'Store contract broken: a pet created without status should be {"id":2,"name":"b","categoryId":-2}, got {"status":null,"id":2,"name":"b","categoryId":-2}',
  );
});

test("each check closes the store it opened, also when it fails", async () => {
  let closed = 0;
  const open = faulty(() => ({ list: () => Promise.reject(new Error("down")), close: async () => void closed++ }));
  await failures(open);
  expect(closed).toBe(storeChecks(open).length);
});

test("the idempotency contract passes for the memory store", async () => {
  expect(await failures(() => Promise.resolve(createMemoryStore()), idempotencyChecks)).toEqual([]);
});

test("the idempotency contract fails a store whose createWithKey ignores the key", async () => {
  const open = faulty((store) => ({ createWithKey: async (pet) => ({ pet: await store.create(pet), replayed: false }) }));
  const messages = await failures(open, idempotencyChecks);
  expect(messages).toContain(
    'Store contract broken: a repeat with the key should be {"pet":{"id":1,"name":"Rex","categoryId":1,"status":"sold"},"replayed":true}, got {"pet":{"id":2,"name":"Rex","categoryId":1,"status":"sold"},"replayed":false}',
  );
  expect(messages.length).toBeGreaterThanOrEqual(3);
});

test("the idempotency contract fails a store without createWithKey, saying so", async () => {
  const open = () => {
    const { createWithKey: _, ...plain } = createMemoryStore();
    return Promise.resolve(plain);
  };
  expect(await failures(open, idempotencyChecks)).toContain("Store contract broken: the store has createWithKey");
});

test("the import contract fails a store whose import gives pets new ids, naming what it saw", async () => {
  const open = faulty((store) => ({
    importPets: async (pets) => {
      let count = 0;
      let lastId = 0;
      for await (const { pet } of pets) await store.create(pet), count++, lastId = pet.id;
      return { count, lastId, keys: 0, keysLeft: 0 };
    },
  }));
  const messages = await failures(open, importChecks);
  expect(messages).toContain('Store contract broken: list({ limit: 10, after: 0 }) should be [{"id":3,"name":"p3","categoryId":0},{"id":7,"name":"Rex","categoryId":1},{"id":10,"name":"p10","categoryId":1,"status":"sold"}], got [{"id":1,"name":"p3","categoryId":0},{"id":2,"name":"Rex","categoryId":1},{"id":3,"name":"p10","categoryId":1,"status":"sold"}]');
});

test("the reopen contract passes for data kept whole, and fails data whose reopen numbers from the last pet left", async () => {
  /** Data kept as an export between opens; `counted` says whether a reopen continues above the highest id ever given. */
  const kept = (counted: boolean) => async () => {
    let pets: MovedPet[] = [];
    let highest = 0;
    return {
      open: async () => {
        const store = createMemoryStore();
        const floor = counted && highest > (pets.at(-1)?.pet.id ?? 0) ? [{ pet: { id: highest, name: "floor", categoryId: 0 } }] : [];
        await importPets(store, [...pets, ...floor]);
        const all = { ...store, list: async (query: Parameters<PetStore["list"]>[0]) => (await store.list(query)).filter((pet) => pet.name !== "floor") };
        return {
          ...all,
          close: async () => {
            pets = [];
            for await (const moved of exportPets(all)) pets.push(moved);
            highest = Math.max(highest, pets.at(-1)?.pet.id ?? 0);
          },
        };
      },
      removeNewest: async () => void pets.pop(),
    };
  };
  const run = async (counted: boolean) => (await Promise.all(reopenChecks(kept(counted)).slice(0, 1).map((check) => check.run().then(() => "", (error: Error) => error.message))));
  expect(await run(true)).toEqual([""]);
  expect(await run(false)).toEqual(["Store contract broken: a create after the newest pet (2) is gone gets a new id, got 2"]);
});

test("the reopen contract fails data that acknowledges a create before it is kept, naming the pets missing after a reopen (issue 49)", async () => {
  /** Data that a create reaches 50 ms after it is acknowledged, and that `close` does not wait for. */
  const lazy = async () => {
    const kept: MovedPet[] = [];
    return {
      open: async () => {
        const store = createMemoryStore();
        await importPets(store, [...kept]);
        return {
          ...store,
          create: async (pet: Parameters<PetStore["create"]>[0]) => {
            const stored = await store.create(pet);
            setTimeout(() => kept.push({ pet: stored }), 50);
            return stored;
          },
        };
      },
      removeNewest: async () => void kept.pop(),
    };
  };
  const check = reopenChecks(lazy).find((check) => check.name.startsWith("every acknowledged create survives"))!;
  expect(await check.run().then(() => "", (error: Error) => error.message)).toStartWith("Store contract broken: the acknowledged pets missing after a reopen should be [], got [{");
});

test("the store contract fails a store whose export holds the event loop 300 ms, naming the stretches it saw (issue 49)", async () => {
  const open = faulty((store) => ({
    exportPets: async function* () {
      // Reads everything before yielding, as a store that walks its data synchronously would.
      const until = performance.now() + 300;
      while (performance.now() < until);
      yield* store.exportPets!();
    },
  }));
  const check = storeChecks(open).find((check) => check.name.includes("holds the event loop"))!;
  const message = await check.run().then(() => "", (error: Error) => error.message);
  expect(message).toMatch(/^Store contract broken: no call holds the event loop more than 200 ms under load; it was held (\d+, ){4}\d+ ms in 5 rounds, and (\d+, ){4}\d+ ms idle$/);
  const held = message.split("it was held ")[1]!.split(" ms")[0]!.split(", ").map(Number);
  expect(held.every((ms) => ms >= 300)).toBe(true);
});
