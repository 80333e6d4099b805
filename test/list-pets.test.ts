import { describe, expect, test } from "bun:test";
import type { Pet } from "../src/mod.ts";
import { createPets, errorOf, get, testApp } from "./helpers.ts";

function pets(count: number, status?: string): object[] {
  return Array.from({ length: count }, (_, i) => ({ name: `pet ${i}`, categoryId: i, ...(status ? { status } : {}) }));
}

describe("GET /pets", () => {
  test("an empty store answers 200 with an empty JSON array", async () => {
    const response = await get(testApp(), "/v1/pets");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual([]);
  });

  test("answers a bare array of pets in ascending id order", async () => {
    const app = testApp();
    const created = await createPets(app, pets(3));
    const listed = (await (await get(app, "/v1/pets")).json()) as Pet[];
    expect(listed).toEqual(created);
    expect(listed.map((pet) => pet.id)).toEqual([...listed.map((pet) => pet.id)].sort((a, b) => a - b));
  });

  test("without limit returns at most 20 pets", async () => {
    const app = testApp();
    await createPets(app, pets(25));
    const listed = (await (await get(app, "/v1/pets")).json()) as Pet[];
    expect(listed).toHaveLength(20);
  });

  test("limit=1 and limit=100 are accepted and bound the page size", async () => {
    const app = testApp();
    await createPets(app, pets(101));
    expect(await (await get(app, "/v1/pets?limit=1")).json()).toHaveLength(1);
    expect(await (await get(app, "/v1/pets?limit=100")).json()).toHaveLength(100);
  });

  test.each(["0", "101", "-1", "abc", "1.5", "", "05", "+5", "1e1", "99999999999999999999"])(
    "limit=%p answers 400 invalid_query naming limit",
    async (limit) => {
      const response = await get(testApp(), `/v1/pets?limit=${encodeURIComponent(limit)}`);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_query");
      expect(error.message).toContain('"limit" must be an integer from 1 to 100');
    },
  );

  test("status filters the list to pets with that status", async () => {
    const app = testApp();
    await createPets(app, [...pets(2, "sold"), ...pets(2, "available"), ...pets(1)]);
    const sold = (await (await get(app, "/v1/pets?status=sold")).json()) as Pet[];
    expect(sold).toHaveLength(2);
    expect(sold.every((pet) => pet.status === "sold")).toBe(true);
    const pending = await (await get(app, "/v1/pets?status=pending")).json();
    expect(pending).toEqual([]);
  });

  test.each(["lost", "SOLD", "", "available,sold"])("status=%p answers 400 invalid_query", async (status) => {
    const response = await get(testApp(), `/v1/pets?status=${encodeURIComponent(status)}`);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain('"status" must be one of "available", "pending", "sold"');
  });

  test("an unknown query parameter answers 400 naming it", async () => {
    const error = await errorOf(await get(testApp(), "/v1/pets?limt=5"));
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain('unknown parameter "limt"');
  });

  test("a repeated parameter answers 400", async () => {
    const error = await errorOf(await get(testApp(), "/v1/pets?limit=5&limit=6"));
    expect(error.message).toContain('"limit" must be given at most once');
  });

  test("every problem in the query is reported in one message", async () => {
    const error = await errorOf(await get(testApp(), "/v1/pets?limit=0&status=lost&after=x"));
    expect(error.message).toContain('"limit"');
    expect(error.message).toContain('"status"');
    expect(error.message).toContain('"after"');
  });
});

describe("GET /pets pagination", () => {
  test("a full page carries a Link rel=next with an after cursor; the last page carries none", async () => {
    const app = testApp();
    const created = await createPets(app, pets(5));
    const first = await get(app, "/v1/pets?limit=2");
    expect(first.headers.get("link")).toBe(`<http://pets.test/v1/pets?limit=2&after=${created[1]!.id}>; rel="next"`);
    const last = await get(app, `/v1/pets?limit=2&after=${created[3]!.id}`);
    expect(await last.json()).toEqual([created[4]]);
    expect(last.headers.get("link")).toBeNull();
  });

  test("a page exactly as large as what remains has no next link", async () => {
    const app = testApp();
    await createPets(app, pets(2));
    expect((await get(app, "/v1/pets?limit=2")).headers.get("link")).toBeNull();
  });

  test("the next link keeps the status filter", async () => {
    const app = testApp();
    const created = await createPets(app, pets(3, "sold"));
    const response = await get(app, "/v1/pets?status=sold&limit=1");
    expect(response.headers.get("link")).toBe(
      `<http://pets.test/v1/pets?limit=1&status=sold&after=${created[0]!.id}>; rel="next"`,
    );
  });

  test("following next links visits every pet once, even while pets are created", async () => {
    const app = testApp();
    await createPets(app, pets(7));
    const seen: number[] = [];
    let next: string | undefined = "/v1/pets?limit=3";
    while (next !== undefined) {
      const response = await get(app, next);
      seen.push(...((await response.json()) as Pet[]).map((pet) => pet.id));
      await createPets(app, pets(1));
      const link = response.headers.get("link");
      next = link === null ? undefined : link.slice(1, link.indexOf(">")).replace("http://pets.test", "");
    }
    expect(new Set(seen).size).toBe(seen.length);
    const all = ((await (await get(app, "/v1/pets?limit=100")).json()) as Pet[]).map((pet) => pet.id);
    expect(seen).toEqual(all.slice(0, seen.length));
    expect(seen.length).toBeGreaterThanOrEqual(7);
  });

  test.each(["-1", "abc", "1.5", "01"])("after=%p answers 400 invalid_query", async (after) => {
    const error = await errorOf(await get(testApp(), `/v1/pets?after=${after}`));
    expect(error.code).toBe("invalid_query");
    expect(error.message).toContain('"after" must be a pet id');
  });

  test("after=0 starts from the first pet", async () => {
    const app = testApp();
    const created = await createPets(app, pets(2));
    expect(await (await get(app, "/v1/pets?after=0")).json()).toEqual(created);
  });
});

describe("GET /pets without rate limiting", () => {
  test("many quick requests with one key are all answered, none with 429", async () => {
    const app = testApp();
    const statuses = await Promise.all(Array.from({ length: 300 }, () => get(app, "/v1/pets").then((response) => response.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe("GET /pets over many pets", () => {
  test("every page holds exactly the stored pets, however many have been served before", async () => {
    const app = testApp();
    for (let i = 0; i < 10_100; i++) await app.store.create({ name: `pet ${i}`, categoryId: i, ...(i % 3 === 0 ? { status: "sold" as const } : {}) });
    for (const query of ["limit=100", "limit=100&status=sold"]) {
      let after = 0;
      for (;;) {
        const page = (await (await get(app, `/v1/pets?${query}&after=${after}`)).json()) as Pet[];
        const status = query.includes("sold") ? ({ status: "sold" } as const) : {};
        expect(page).toEqual(await app.store.list({ limit: 100, after, ...status }));
        if (page.length < 100) break;
        after = page[page.length - 1]!.id;
      }
    }
  });
});

describe("GET /pets with many bad parameters", () => {
  test("7,000 unknown parameters answer 400 naming the first five and counting the rest", async () => {
    const query = Array.from({ length: 7000 }, (_, i) => `p${i}=1`).join("&");
    const response = await get(testApp(), `/v1/pets?${query}`);
    expect(response.status).toBe(400);
    const { message } = await errorOf(response);
    expect(message).toEndWith("; and 6995 more");
    expect(message.length).toBeLessThan(1000);
  });
});
