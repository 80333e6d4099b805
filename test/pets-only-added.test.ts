/**
 * The rule "pets are only added" (src/store.ts) and each place that relies on it: one test per place
 * the rule names, each failing once a store method changes or removes a pet (its row in
 * STORE_METHODS says so), so that whoever adds one goes through every place. Where the place already
 * follows a pet that changes (an ETag is made from the text), the test shows it with a store whose
 * pets change behind the service, as an operator's hand might change them.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Pet, PetStatus, PetStore } from "../src/mod.ts";
import { createMemoryStore, OPENAPI_DOCUMENT, STORE_METHODS, withId, wrapStore } from "../src/mod.ts";
import { AUTH, call, get, post, testApp } from "./helpers.ts";

/** The store methods whose row says they do one of `effects` to a pet (`"changes"`, `"removes"`): none while the rule holds. */
function methodsThat(...effects: string[]): string[] {
  return Object.entries(STORE_METHODS).filter(([, row]) => effects.includes(row.pets)).map(([method]) => method);
}

/** A memory store whose pets can be changed behind the service: `change` gives a pet a new status, as a new frozen pet. */
function changingStore(): { store: PetStore; change(id: number, status: PetStatus): Promise<void> } {
  const inner = createMemoryStore();
  const changed = new Map<number, Pet>();
  const now = (pet: Pet) => changed.get(pet.id) ?? pet;
  const store: PetStore = {
    ...inner,
    get: async (id) => {
      const pet = await inner.get(id);
      return pet === undefined ? undefined : now(pet);
    },
    list: async (query) => (await inner.list(query)).map(now),
    createWithKey: async (pet, key) => {
      const outcome = await inner.createWithKey!(pet, key);
      return { ...outcome, pet: now(outcome.pet) };
    },
  };
  async function change(id: number, status: PetStatus): Promise<void> {
    const { name, categoryId } = (await inner.get(id))!;
    changed.set(id, withId(id, { name, categoryId, status }));
  }
  return { store, change };
}

/** The description the document gives an operation. */
function described(path: string, method: string): string {
  return (OPENAPI_DOCUMENT as { paths: Record<string, Record<string, { description: string }>> }).paths[path]![method]!.description;
}

describe("pets are only added (src/store.ts): each place that relies on it", () => {
  test("operations/get-pet.ts: a pet's ETag follows its text (a changed pet answers 200 to its old tag), and the document may say a pet never changes only while no store method changes one (a removal leaves it true)", async () => {
    const { store, change } = changingStore();
    const app = testApp({ store });
    const pet = (await (await post(app, { name: "Rex", categoryId: 1 })).json()) as Pet;
    const first = await get(app, `/v1/pets/${pet.id}`);
    await change(pet.id, "sold");
    const again = await get(app, `/v1/pets/${pet.id}`, { "if-none-match": first.headers.get("etag")! });
    expect([again.status, ((await again.json()) as Pet).status]).toEqual([200, "sold"]);
    expect(again.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(described("/pets/{petId}", "get")).toContain("never changes");
    expect(methodsThat("changes")).toEqual([]);
  });

  test("operations/list-pets.ts: a full page's ETag follows its pets, and the document may say a full page never changes only while no store method changes or removes a pet", async () => {
    const { store, change } = changingStore();
    const app = testApp({ store });
    for (const name of ["a", "b"]) await post(app, { name, categoryId: 1 });
    const tag = (await get(app, "/v1/pets?limit=1")).headers.get("etag")!;
    await change(1, "pending");
    expect((await get(app, "/v1/pets?limit=1", { "if-none-match": tag })).status).toBe(200);
    expect(described("/pets", "get")).toContain("A page with a next page never changes");
    expect(methodsThat("changes", "removes")).toEqual([]);
  });

  test("operations/create-pet.ts: a keyed retry is compared with the stored pet, so it answers 422 once the pet changed behind it; with a store method that changes pets it must be compared with what the key created", async () => {
    const { store, change } = changingStore();
    const app = testApp({ store });
    const headers = { "idempotency-key": "retry-1" };
    const pet = (await (await post(app, { name: "Kit", categoryId: 2 }, headers)).json()) as Pet;
    await change(pet.id, "sold");
    expect((await post(app, { name: "Kit", categoryId: 2 }, headers)).status).toBe(422);
    expect(methodsThat("changes")).toEqual([]);
  });

  test("pet.ts: a stored pet is frozen, and a text or tag is remembered per pet object (_internal/_pet-texts.ts), so a changed pet must be a new object", async () => {
    const pet = withId(1, { name: "Rex", categoryId: 1 });
    expect(Object.isFrozen(pet)).toBe(true);
    expect(() => Object.assign(pet, { status: "sold" })).toThrow(TypeError);
    expect(methodsThat("changes")).toEqual([]);
  });

  test("_internal/_pet-index.ts: the memory and file stores' index only appends, each pet in its status's list for good, while no store method changes or removes a pet", () => {
    expect(methodsThat("changes", "removes")).toEqual([]);
  });

  test("adapters/json-file-store/_journal.ts and adapters/postgres-store/mod.ts: the file holds creations only and rows are only inserted, while no store method changes or removes a pet", () => {
    expect(methodsThat("changes", "removes")).toEqual([]);
  });

  test("Exports: a snapshot of pets as they were made, while no store method changes or removes a pet", () => {
    expect(methodsThat("changes", "removes")).toEqual([]);
  });

  test("The metrics and the traces measure every method by its row (wrapStore), a changing one too: only the row", async () => {
    const seen: string[] = [];
    const wrapped = wrapStore(createMemoryStore(), (method, _label, work) => (seen.push(method), work()));
    await wrapped.create({ name: "Rex", categoryId: 1 });
    await wrapped.get(1);
    expect(seen).toEqual(["create", "get"]);
  });
});

test("every place src/store.ts names under the rule has its test here, and every test here names a place", () => {
  const rule = readFileSync("src/store.ts", "utf8").split("**Pets are only added.**")[1]!.split("*/")[0]!;
  // A place is its first file (`operations/get-pet.ts`), or its words up to the first parenthesis or colon.
  const places = [...rule.matchAll(/^ \* - (?:`([^`]+)`|([^(:`]+?)(?: \(|:))/gm)].map((match) => match[1] ?? match[2]!);
  const names = [...readFileSync("test/pets-only-added.test.ts", "utf8").matchAll(/^ {2}test\("([^"]+)"/gm)].map((match) => match[1]!);
  expect(places.length).toBeGreaterThan(5);
  expect(places.filter((place) => !names.some((name) => name.startsWith(place)))).toEqual([]);
  expect(names.filter((name) => !places.some((place) => name.startsWith(place)))).toEqual([]);
});

test("a pet changed behind the service answers as it is now: the double changes what the stores hand out", async () => {
  const { store, change } = changingStore();
  const app = testApp({ store });
  const pet = (await (await post(app, { name: "Tom", categoryId: 3 })).json()) as Pet;
  await change(pet.id, "pending");
  expect(await (await call(app, `/v1/pets/${pet.id}`, { headers: AUTH })).json()).toEqual({ ...pet, status: "pending" });
});
