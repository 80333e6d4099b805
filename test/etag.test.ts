import { describe, expect, test } from "bun:test";
import { entityTag } from "../src/_internal/_entity-tag.ts";
import { ifNoneMatchHits } from "../src/etag.ts";
import { call, createPets, get, testApp } from "./helpers.ts";

const STRONG_TAG = /^"[0-9a-f]{16}"$/;

async function appWithPets(count: number) {
  const app = testApp();
  await createPets(app, Array.from({ length: count }, (_, i) => ({ name: `p${i}`, categoryId: i })));
  return app;
}

describe("conditional GET /pets/{petId}", () => {
  test("answers a strong ETag", async () => {
    const response = await get(await appWithPets(1), "/v1/pets/1");
    expect(response.headers.get("etag")).toMatch(STRONG_TAG);
  });

  test("If-None-Match with its ETag answers 304 with no body, the ETag, the deprecation headers and the 200's Content-Length", async () => {
    const app = await appWithPets(1);
    const first = await get(app, "/v1/pets/1");
    const length = (await first.arrayBuffer()).byteLength;
    const etag = first.headers.get("etag")!;
    const again = await get(app, "/v1/pets/1", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
    expect(again.headers.get("content-length")).toBe(String(length));
  });

  test.each([
    ["the weak form of the tag", (etag: string) => `W/${etag}`],
    ["a list holding the tag", (etag: string) => `"other", ${etag}`],
    ["*", () => "*"],
  ])("If-None-Match with %s answers 304", async (_, header) => {
    const app = await appWithPets(1);
    const etag = (await get(app, "/v1/pets/1")).headers.get("etag")!;
    expect((await get(app, "/v1/pets/1", { "if-none-match": header(etag) })).status).toBe(304);
  });

  test("If-None-Match with another tag answers 200 with the pet", async () => {
    const response = await get(await appWithPets(1), "/v1/pets/1", { "if-none-match": '"0000000000000000"' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 1, name: "p0", categoryId: 0 });
  });

  test("HEAD with a matching If-None-Match answers 304 with no body", async () => {
    const app = await appWithPets(1);
    const etag = (await get(app, "/v1/pets/1")).headers.get("etag")!;
    const head = await call(app, "/v1/pets/1", { method: "HEAD", headers: { authorization: "Bearer test-key", "if-none-match": etag } });
    expect(head.status).toBe(304);
    expect(await head.text()).toBe("");
  });

  test("another pet under the same id (a memory store after a restart) has another ETag", async () => {
    const before = await get(await appWithPets(1), "/v1/pets/1");
    const after = testApp();
    await createPets(after, [{ name: "someone else", categoryId: 0 }]);
    expect((await get(after, "/v1/pets/1")).headers.get("etag")).not.toBe(before.headers.get("etag"));
  });

  test("a 404 carries no ETag and ignores If-None-Match", async () => {
    const response = await get(testApp(), "/v1/pets/5", { "if-none-match": "*" });
    expect(response.status).toBe(404);
    expect(response.headers.get("etag")).toBeNull();
  });
});

describe("conditional GET /pets", () => {
  test("a full page, one with a next page, answers an ETag, and 304 to If-None-Match with it, keeping its Link", async () => {
    const app = await appWithPets(3);
    const page = await get(app, "/v1/pets?limit=2");
    const etag = page.headers.get("etag")!;
    expect(etag).toMatch(STRONG_TAG);
    const again = await get(app, "/v1/pets?limit=2", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("link")).toBe(page.headers.get("link"));
  });

  test("the last page, which grows as pets are added, carries no ETag and answers 200 to a tag", async () => {
    const app = await appWithPets(2);
    const last = await get(app, "/v1/pets?limit=2");
    expect(last.headers.get("link")).toBeNull();
    expect(last.headers.get("etag")).toBeNull();
    expect((await get(app, "/v1/pets?limit=2", { "if-none-match": '"0123456789abcdef"' })).status).toBe(200);
  });

  test("If-None-Match: * answers 304 on the last page too: it matches any current representation (RFC 9110 §13.1.2)", async () => {
    const app = await appWithPets(2);
    const response = await get(app, "/v1/pets?limit=2", { "if-none-match": "*" });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe("");
    expect(response.headers.get("content-length")).toBe(String((await (await get(app, "/v1/pets?limit=2")).text()).length));
  });

  test("pages of different pets have different ETags", async () => {
    const app = await appWithPets(5);
    const first = (await get(app, "/v1/pets?limit=2")).headers.get("etag");
    const second = (await get(app, "/v1/pets?limit=2&after=2")).headers.get("etag");
    expect(first).not.toBe(second);
  });
});

describe("entity tags", () => {
  test("the same text gives the same tag; one character more or changed gives another", () => {
    expect(entityTag('[{"id":1}]')).toBe(entityTag('[{"id":1}]'));
    expect(entityTag('[{"id":1}]')).not.toBe(entityTag('[{"id":2}]'));
    expect(entityTag('[{"id":1}]')).not.toBe(entityTag('[{"id":1}] '));
  });

  test("If-None-Match without the tag, or absent, does not hit", () => {
    expect(ifNoneMatchHits(null, '"a"')).toBe(false);
    expect(ifNoneMatchHits('"b", W/"c"', '"a"')).toBe(false);
  });
});
