/**
 * @module
 * The store contract: the behaviour every `PetStore` must show, as named checks that any test
 * runner can register (`bun:test`, `node:test`, Deno's, Vitest's). Each check opens a fresh, empty
 * store, throws on the first broken promise, and closes the store.
 *
 * ```ts
 * import { test } from "node:test";
 * import { storeChecks } from "animal-store/testing";
 * for (const check of storeChecks(() => openMyStore())) test(check.name, check.run);
 * ```
 */
import type { NewPet, Pet, PetStore } from "./mod.ts";

/** One behaviour of the store contract; `run` rejects when the store breaks it. */
export interface StoreCheck {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** The store contract as checks against stores made by `open` (each check gets a fresh, empty one). */
export function storeChecks(open: () => Promise<PetStore>): StoreCheck[] {
  const check = (name: string, body: (store: PetStore) => Promise<void>): StoreCheck => ({
    name,
    run: async () => {
      const store = await open();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    },
  });
  return [
    check("create assigns positive, unique, increasing ids and keeps the fields", createKeepsFields),
    check("get returns the pet, or undefined for an id never assigned", getFindsOrMisses),
    check("list pages in ascending id order after the cursor, filtered by status", listPages),
    check("concurrent creates get distinct ids and are all listed", concurrentCreates),
  ];
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
