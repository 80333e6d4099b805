import { strictEqual } from "node:assert";
import { test } from "node:test";
import { createApp, StoreUnavailableError } from "animal-store";
import type { PetStore } from "animal-store";
import { createArrayStore } from "./array-store.ts";

const headers = { authorization: "Bearer my-secret-key", "content-type": "application/json" };

test("the app serves a create and a list from the consumer's own store", async () => {
  const pets = createApp({ store: createArrayStore(), apiKeys: ["my-secret-key"] });
  const created = await pets.fetch(new Request("http://localhost/v1/pets", { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' }));
  strictEqual(created.status, 201);
  const listed = await pets.fetch(new Request("http://localhost/v1/pets", { headers }));
  strictEqual(await listed.text(), '[{"id":1,"name":"Rex","categoryId":1}]');
});

test("a store that throws StoreUnavailableError makes creates answer 503", async () => {
  const broken: PetStore = { ...createArrayStore(), create: () => Promise.reject(new StoreUnavailableError("the disk is full")) };
  const pets = createApp({ store: broken, apiKeys: ["my-secret-key"] });
  const created = await pets.fetch(new Request("http://localhost/v1/pets", { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' }));
  strictEqual(created.status, 503);
});
