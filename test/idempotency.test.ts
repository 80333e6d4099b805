import { describe, expect, test } from "bun:test";
import type { IdempotencyKey, KeyedCreate, NewPet, Pet, PetStore } from "../src/mod.ts";
import { createApp, createMemoryStore, IDEMPOTENCY_KEY_TTL_MS } from "../src/mod.ts";
import { createKeyTable } from "../src/_internal/_idempotency-keys.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { errorOf, get, post, testApp } from "./helpers.ts";
import { tempDataFile } from "./temp.ts";

const REX = { name: "Rex", categoryId: 1, status: "available" };

function keyed(key: string, headers: Record<string, string> = {}): Record<string, string> {
  return { "idempotency-key": key, ...headers };
}

async function petCount(app: ReturnType<typeof testApp>): Promise<number> {
  return ((await (await get(app, "/v1/pets?limit=100")).json()) as Pet[]).length;
}

describe("POST /pets with Idempotency-Key", () => {
  test("the first request answers 201 without the replay header", async () => {
    const response = await post(testApp(), REX, keyed("key-1"));
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a repeat with the same key and body answers the same 201, pet and Location, with Idempotent-Replayed: true, and creates nothing", async () => {
    const app = testApp();
    const first = await post(app, REX, keyed("key-1"));
    const repeat = await post(app, REX, keyed("key-1"));
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(repeat.headers.get("location")).toBe(first.headers.get("location"));
    expect(await repeat.json()).toEqual(await first.json());
    expect(await petCount(app)).toBe(1);
  });

  test("the same body written differently (member order, spacing) is the same body", async () => {
    const app = testApp();
    await post(app, '{"name":"Rex","categoryId":1}', keyed("key-1"));
    const repeat = await post(app, '{ "categoryId": 1, "name": "Rex" }', keyed("key-1"));
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
  });

  test("the same key with a different body answers 422 idempotency_key_reused and creates nothing", async () => {
    const app = testApp();
    await post(app, REX, keyed("key-1"));
    for (const other of [{ ...REX, name: "Tom" }, { name: "Rex", categoryId: 1 }]) {
      const response = await post(app, other, keyed("key-1"));
      expect(response.status).toBe(422);
      const error = await errorOf(response);
      expect(error.code).toBe("idempotency_key_reused");
      expect(error.message).toBe("Cannot create pet: this Idempotency-Key already created pet 1 from a different body; use a new key for a new pet");
    }
    expect(await petCount(app)).toBe(1);
  });

  test("a repeat while the first is still in flight answers 409 idempotency_key_in_use with Retry-After", async () => {
    const gated = gatedStore();
    const app = testApp({ store: gated.store });
    const first = post(app, REX, keyed("key-1"));
    await gated.arrived;
    const repeat = await post(app, REX, keyed("key-1"));
    expect(repeat.status).toBe(409);
    expect(repeat.headers.get("retry-after")).toBe("1");
    expect((await errorOf(repeat)).code).toBe("idempotency_key_in_use");
    gated.open();
    expect((await first).status).toBe(201);
    expect((await post(app, REX, keyed("key-1"))).headers.get("idempotent-replayed")).toBe("true");
  });

  test("keys are scoped per API key: the same key sent with another API key creates another pet", async () => {
    const app = createApp({ store: createMemoryStore(), apiKeys: ["test-key", "other-key"] });
    await post(app, REX, keyed("key-1"));
    const other = await post(app, REX, keyed("key-1", { authorization: "Bearer other-key" }));
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a key in double quotes, as the draft writes it, is the same key bare", async () => {
    const app = testApp();
    await post(app, REX, keyed('"key-1"'));
    expect((await post(app, REX, keyed("key-1"))).headers.get("idempotent-replayed")).toBe("true");
  });

  test.each([
    ["that is empty", ""],
    ["with a space inside", "key 1"],
    ["that is not ASCII", "clé"],
    ["longer than 255 characters", "k".repeat(256)],
    ["with a quote inside", '"a"b"'],
  ])("a key %s answers 400 invalid_header and creates nothing", async (_, key) => {
    const app = testApp();
    const response = await post(app, REX, keyed(key));
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_header");
    expect(error.message).toStartWith('Cannot create pet: "Idempotency-Key" must be 1 to 255 visible ASCII characters');
    expect(await petCount(app)).toBe(0);
  });

  test("a refused body does not use up its key: a later valid create with the key stores the pet", async () => {
    const app = testApp();
    expect((await post(app, { name: "", categoryId: 1 }, keyed("key-1"))).status).toBe(400);
    const valid = await post(app, REX, keyed("key-1"));
    expect(valid.status).toBe(201);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });

  test("with a store that keeps no keys, a keyed create answers 501 not_implemented and creates nothing", async () => {
    const memory = createMemoryStore();
    const store: PetStore = { create: memory.create, get: memory.get, list: memory.list, close: memory.close };
    const app = testApp({ store });
    const response = await post(app, REX, keyed("key-1"));
    expect(response.status).toBe(501);
    expect((await errorOf(response)).message).toContain('send the create without "Idempotency-Key"');
    expect(await petCount(app)).toBe(0);
  });
});

describe("idempotency key table", () => {
  const key = (name: string): IdempotencyKey => ({ client: "c", key: name });

  test("finds a key for 24 hours, then forgets it", () => {
    const table = createKeyTable(10);
    table.add(key("a"), 7, 1000);
    expect(table.find(key("a"), 1000 + IDEMPOTENCY_KEY_TTL_MS - 1)).toBe(7);
    expect(table.find(key("a"), 1000 + IDEMPOTENCY_KEY_TTL_MS)).toBeUndefined();
  });

  test("past its capacity it forgets the oldest key first", () => {
    const table = createKeyTable(2);
    table.add(key("a"), 1, 0);
    table.add(key("b"), 2, 0);
    table.add(key("c"), 3, 0);
    expect([table.find(key("a"), 0), table.find(key("b"), 0), table.find(key("c"), 0)]).toEqual([undefined, 2, 3]);
  });

  test("at its capacity, a new key forgets the oldest key of the client holding the most: one client's burst forgets only its own keys", () => {
    const table = createKeyTable(4);
    table.add({ client: "quiet", key: "q" }, 1, 0);
    for (let i = 0; i < 100; i++) table.add({ client: "busy", key: `b${i}` }, 100 + i, 0);
    expect(table.find({ client: "quiet", key: "q" }, 0)).toBe(1);
    expect([96, 97, 98, 99].map((i) => table.find({ client: "busy", key: `b${i}` }, 0))).toEqual([undefined, 197, 198, 199]);
  });

  test("a client that filled it alone keeps an equal share of its latest keys once others come", () => {
    const table = createKeyTable(6);
    for (let i = 0; i < 10; i++) table.add({ client: "a", key: `k${i}` }, i, 0);
    for (const client of ["b", "c"]) for (let i = 0; i < 3; i++) table.add({ client, key: `k${i}` }, i, 0);
    expect([7, 8, 9].map((i) => table.find({ client: "a", key: `k${i}` }, 0))).toEqual([undefined, 8, 9]);
    for (const client of ["b", "c"]) expect([0, 1, 2].map((i) => table.find({ client, key: `k${i}` }, 0))).toEqual([undefined, 1, 2]);
  });

  test("a capacity below 1 is refused", () => {
    expect(() => createKeyTable(0)).toThrow("Cannot keep idempotency keys: the capacity must be a positive integer, got 0");
  });
});

describe("the idempotency-key bound with several API keys", () => {
  const stores = {
    memory: () => Promise.resolve(createMemoryStore({ maxIdempotencyKeys: 10 })),
    "JSON file": () => openJsonFileStore(tempDataFile(), { maxIdempotencyKeys: 10, logger: { info: () => {}, warn: () => {} } }),
  };
  test.each(Object.keys(stores) as (keyof typeof stores)[])(
    "with the %s store, one API key making more keyed creates than the bound does not make another API key's retry create a second pet",
    async (kind) => {
      const store = await stores[kind]();
      try {
        const app = createApp({ store, apiKeys: ["quiet-key", "busy-key"] });
        const as = (apiKey: string, key: string, pet: object) => post(app, pet, { authorization: `Bearer ${apiKey}`, "idempotency-key": key });
        const first = (await (await as("quiet-key", "order-1", REX)).json()) as Pet;
        for (let i = 0; i < 25; i++) expect((await as("busy-key", `busy-${i}`, { name: `b${i}`, categoryId: 2 })).status).toBe(201);
        const retry = await as("quiet-key", "order-1", REX);
        expect(retry.headers.get("idempotent-replayed")).toBe("true");
        expect(await retry.json()).toEqual(first);
        // The bound still holds for the busy one: its oldest key is forgotten, so its retry creates again.
        expect((await as("busy-key", "busy-0", { name: "b0", categoryId: 2 })).headers.get("idempotent-replayed")).toBeNull();
      } finally {
        await store.close();
      }
    },
  );
});

/** A memory store whose keyed creates wait until `open()` is called. */
function gatedStore(): { store: PetStore; arrived: Promise<void>; open: () => void } {
  const memory = createMemoryStore();
  let open = () => {};
  let arrive = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const store: PetStore = {
    ...memory,
    async createWithKey(pet: NewPet, idempotencyKey: IdempotencyKey): Promise<KeyedCreate> {
      arrive();
      await gate;
      return memory.createWithKey!(pet, idempotencyKey);
    },
  };
  return { store, arrived, open };
}
