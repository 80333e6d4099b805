/**
 * @module
 * The behaviour every `PetStore` that keeps idempotency keys (`createWithKey`) and reports its
 * health must show, as one suite to run against each implementation beside `storeContract`.
 */
import { describe, expect, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";

/** Runs the idempotency and health contract against stores made by `open` (each test gets a fresh, empty store). */
export function idempotentStoreContract(name: string, open: () => Promise<PetStore>): void {
  async function withStore(body: (store: PetStore, createWithKey: NonNullable<PetStore["createWithKey"]>) => Promise<void>): Promise<void> {
    const store = await open();
    try {
      if (store.createWithKey === undefined) throw new Error(`${name} store has no createWithKey`);
      await body(store, store.createWithKey.bind(store));
    } finally {
      await store.close();
    }
  }
  const alice = { client: "digest-of-alice", key: "8e03978e-40d5-43e8-bc93-6894a57f9324" };

  describe(`${name} store idempotency contract`, () => {
    test("the first create with a key stores the pet; a repeat stores nothing and resolves with the same pet, replayed", () =>
      withStore(async (store, createWithKey) => {
        const first = await createWithKey({ name: "Rex", categoryId: 1, status: "sold" }, alice);
        expect(first).toEqual({ pet: { id: first.pet.id, name: "Rex", categoryId: 1, status: "sold" }, replayed: false });
        const repeat = await createWithKey({ name: "Rex", categoryId: 1, status: "sold" }, alice);
        expect(repeat).toEqual({ pet: first.pet, replayed: true });
        expect(await store.list({ limit: 10, after: 0 })).toEqual([first.pet]);
      }));

    test("a repeat with other fields resolves with the pet the key first produced, and stores nothing", () =>
      withStore(async (store, createWithKey) => {
        const first = await createWithKey({ name: "Rex", categoryId: 1 }, alice);
        const other = await createWithKey({ name: "Tom", categoryId: 2 }, alice);
        expect(other).toEqual({ pet: first.pet, replayed: true });
        expect(await store.list({ limit: 10, after: 0 })).toHaveLength(1);
      }));

    test("keys are scoped per client: the same key from another client creates another pet", () =>
      withStore(async (store, createWithKey) => {
        const mine = await createWithKey({ name: "Rex", categoryId: 1 }, alice);
        const theirs = await createWithKey({ name: "Rex", categoryId: 1 }, { ...alice, client: "digest-of-bob" });
        expect(theirs.replayed).toBe(false);
        expect(theirs.pet.id).not.toBe(mine.pet.id);
        expect(await store.list({ limit: 10, after: 0 })).toHaveLength(2);
      }));

    test("concurrent creates with one key store one pet, and all resolve with it", () =>
      withStore(async (store, createWithKey) => {
        const outcomes = await Promise.all(Array.from({ length: 5 }, () => createWithKey({ name: "Rex", categoryId: 1 }, alice)));
        expect(new Set(outcomes.map((outcome) => outcome.pet.id)).size).toBe(1);
        expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
        expect(await store.list({ limit: 10, after: 0 })).toHaveLength(1);
      }));

    test("keyed and plain creates mixed get ascending ids, each listed once", () =>
      withStore(async (store, createWithKey) => {
        const created = await Promise.all(Array.from({ length: 40 }, async (_, i) =>
          i % 2 === 0
            ? (await createWithKey({ name: `k${i}`, categoryId: i }, { ...alice, key: `key-${i}` })).pet
            : await store.create({ name: `p${i}`, categoryId: i })));
        const listed = await store.list({ limit: 100, after: 0 });
        expect(listed.map((pet) => pet.id)).toEqual(created.map((pet) => pet.id).sort((a, b) => a - b));
        expect(await store.get(created[0]!.id)).toEqual(created[0]);
      }));

    test("health reports a store that can take writes", () =>
      withStore(async (store) => {
        expect(await store.health?.()).toEqual({ ok: true });
      }));
  });
}
