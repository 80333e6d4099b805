/**
 * @module
 * The behaviour every `PetStore` must show, as one suite to run against each implementation.
 */
import { describe, expect, test } from "bun:test";
import type { NewPet, PetStore } from "../src/mod.ts";

/** Runs the store contract against stores made by `open` (each test gets a fresh, empty store). */
export function storeContract(name: string, open: () => Promise<PetStore>): void {
  async function withStore(body: (store: PetStore) => Promise<void>): Promise<void> {
    const store = await open();
    try {
      await body(store);
    } finally {
      await store.close();
    }
  }

  describe(`${name} store contract`, () => {
    test("create assigns positive, unique, increasing ids and keeps the fields", () =>
      withStore(async (store) => {
        const first = await store.create({ name: "a", categoryId: 1, status: "sold" });
        const second = await store.create({ name: "b", categoryId: -2 });
        expect(first).toEqual({ id: first.id, name: "a", categoryId: 1, status: "sold" });
        expect(second).toEqual({ id: second.id, name: "b", categoryId: -2 });
        expect(first.id).toBeGreaterThan(0);
        expect(second.id).toBeGreaterThan(first.id);
      }));

    test("get returns the pet, or undefined for an id never assigned", () =>
      withStore(async (store) => {
        const pet = await store.create({ name: "a", categoryId: 1 });
        expect(await store.get(pet.id)).toEqual(pet);
        expect(await store.get(pet.id + 1)).toBeUndefined();
      }));

    test("list pages in ascending id order after the cursor, filtered by status", () =>
      withStore(async (store) => {
        const statuses = ["sold", "available", undefined, "sold", "sold"] as const;
        const pets = [];
        for (const status of statuses) {
          const pet: NewPet = status === undefined ? { name: "p", categoryId: 1 } : { name: "p", categoryId: 1, status };
          pets.push(await store.create(pet));
        }
        expect(await store.list({ limit: 10, after: 0 })).toEqual(pets);
        expect(await store.list({ limit: 2, after: 0 })).toEqual(pets.slice(0, 2));
        expect(await store.list({ limit: 2, after: pets[1]!.id })).toEqual(pets.slice(2, 4));
        const sold = pets.filter((pet) => pet.status === "sold");
        expect(await store.list({ limit: 10, after: 0, status: "sold" })).toEqual(sold);
        expect(await store.list({ limit: 1, after: sold[0]!.id, status: "sold" })).toEqual(sold.slice(1, 2));
        expect(await store.list({ limit: 10, after: 0, status: "pending" })).toEqual([]);
        expect(await store.list({ limit: 10, after: pets[4]!.id })).toEqual([]);
      }));

    test("concurrent creates get distinct ids and are all listed", () =>
      withStore(async (store) => {
        const created = await Promise.all(Array.from({ length: 100 }, (_, i) => store.create({ name: `p${i}`, categoryId: i })));
        expect(new Set(created.map((pet) => pet.id)).size).toBe(100);
        expect(await store.list({ limit: 100, after: 0 })).toHaveLength(100);
      }));
  });
}
