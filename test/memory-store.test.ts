import { expect, test } from "bun:test";
import { createMemoryStore } from "../src/mod.ts";
import { idempotentStoreContract } from "./store-idempotency-contract.ts";
import { importingStoreContract } from "./store-import-contract.ts";
import { storeContract } from "./store-contract.ts";

storeContract("memory", () => Promise.resolve(createMemoryStore()));
idempotentStoreContract("memory", () => Promise.resolve(createMemoryStore()));
importingStoreContract("memory", () => Promise.resolve(createMemoryStore()));

test("memory store ids start at 1", async () => {
  const store = createMemoryStore();
  expect((await store.create({ name: "a", categoryId: 1 })).id).toBe(1);
});
