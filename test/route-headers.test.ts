import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Route } from "../src/routes.ts";
import { createAppWithRoutes } from "../src/app.ts";
import { utf8Length } from "../src/_internal/_json-response.ts";
import { createMemoryStore } from "../src/mod.ts";
import { ROUTES } from "../src/routes.ts";
import { AUTH, call, KEY } from "./helpers.ts";

const GONE = { since: "@1800000000", sunset: "Sat, 01 Jan 2033 00:00:00 GMT", successor: "/pets/search" };

/** The real routes with `GET /pets` marked deprecated, and two routes of a test's own under `/odd`. */
const routes: readonly Route[] = [
  ...ROUTES.map((route) => (route.method === "GET" && route.path === "/pets" ? { ...route, deprecation: GONE } : route)),
  { method: "GET", path: "/odd/throws", handler: () => Promise.reject(new Error("broken on purpose")), deprecation: GONE },
  { method: "GET", path: "/odd/plain", handler: () => Promise.resolve(new Response("plain", { status: 200 })), deprecation: GONE },
  { method: "DELETE", path: "/odd/empty", handler: (context) => Promise.resolve(context.empty(204)), deprecation: GONE },
];

async function appWithPets(count: number) {
  const app = createAppWithRoutes(routes, { store: createMemoryStore(), apiKeys: [KEY], onError: () => {} });
  for (let i = 0; i < count; i++) {
    await call(app, "/v1/pets", { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ name: `p${i}`, categoryId: 1 }) });
  }
  return app;
}

function expectDeprecated(response: Response): void {
  expect([response.headers.get("deprecation"), response.headers.get("sunset"), response.headers.get("link")?.includes('/v1/pets/search>; rel="successor-version"')])
    .toEqual([GONE.since, GONE.sunset, true]);
}

describe("a route's facts are headers on every answer of the route, whatever its handler does", () => {
  test("context.empty answers without a body and carries the route's headers", async () => {
    const app = await appWithPets(0);
    const response = await call(app, "/v1/odd/empty", { method: "DELETE", headers: AUTH });
    expect([response.status, await response.text(), response.headers.get("content-type")]).toEqual([204, "", null]);
    expectDeprecated(response);
  });

  test("a deprecated GET /pets carries Deprecation, Sunset and Link on 200, 304, 400, 401 and 405", async () => {
    const app = await appWithPets(3);
    const full = await call(app, "/v1/pets?limit=2", { headers: AUTH });
    expect(full.status).toBe(200);
    expectDeprecated(full);
    // The successor link sits beside the next-page link.
    expect(full.headers.get("link")).toContain('&after=2>; rel="next"');
    const notModified = await call(app, "/v1/pets?limit=2", { headers: { ...AUTH, "if-none-match": full.headers.get("etag")! } });
    expect(notModified.status).toBe(304);
    expectDeprecated(notModified);
    const last = await call(app, "/v1/pets?limit=100", { headers: AUTH });
    expect(last.status).toBe(200);
    expectDeprecated(last);
    const bad = await call(app, "/v1/pets?limit=0", { headers: AUTH });
    expect(bad.status).toBe(400);
    expectDeprecated(bad);
    const unauthorized = await call(app, "/v1/pets", {});
    expect(unauthorized.status).toBe(401);
    expectDeprecated(unauthorized);
  });

  test("a deprecated route's 500 carries them, and so does an answer its handler made without the context", async () => {
    const app = await appWithPets(0);
    const failed = await call(app, "/v1/odd/throws", { headers: AUTH });
    expect(failed.status).toBe(500);
    expectDeprecated(failed);
    const plain = await call(app, "/v1/odd/plain", { headers: AUTH });
    expect(await plain.text()).toBe("plain");
    expectDeprecated(plain);
  });

  test("a path whose every route is deprecated answers 405 with them; a route not deprecated carries none", async () => {
    const app = await appWithPets(1);
    const wrongMethod = await call(app, "/v1/odd/plain", { method: "DELETE", headers: AUTH });
    expect(wrongMethod.status).toBe(405);
    expectDeprecated(wrongMethod);
    const created = await call(app, "/v1/pets", { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
    expect(created.status).toBe(201);
    expect(created.headers.get("deprecation")).toBeNull();
    // /pets has a route that is not deprecated (POST), so a 405 there is not the deprecated route's.
    const put = await call(app, "/v1/pets", { method: "PUT", headers: AUTH });
    expect(put.status).toBe(405);
    expect(put.headers.get("deprecation")).toBeNull();
  });
});

describe("the 405 of getPet's path once the path gains an operation (docs/extending.md, DELETE)", () => {
  const getPet = ROUTES.find((route) => route.method === "GET" && route.path === "/pets/{petId}")!;
  const deletePet = (deprecation?: Route["deprecation"]): Route => ({
    method: "DELETE",
    path: "/pets/{petId}",
    handler: (context) => Promise.resolve(context.empty(204)),
    ...(deprecation === undefined ? {} : { deprecation }),
  });
  const putPet = async (table: readonly Route[]) =>
    await call(createAppWithRoutes(table, { store: createMemoryStore(), apiKeys: [KEY] }), "/v1/pets/1", { method: "PUT", headers: AUTH });

  test("deprecated alike, in an object of its own, the path still goes away: its 405 keeps Deprecation, Sunset and Link", async () => {
    const response = await putPet([getPet, deletePet({ ...getPet.deprecation! })]);
    expect([response.status, response.headers.get("allow")]).toEqual([405, "DELETE, GET, HEAD"]);
    expect([response.headers.get("deprecation"), response.headers.get("sunset")]).toEqual([getPet.deprecation!.since, getPet.deprecation!.sunset]);
  });

  test("not deprecated, the path stays: its 405 carries none (a Sunset would say the path goes), while getPet's own answers keep them", async () => {
    const table = [getPet, deletePet()];
    const response = await putPet(table);
    expect([response.status, response.headers.get("deprecation"), response.headers.get("sunset"), response.headers.get("link")]).toEqual([405, null, null, null]);
    const fetched = await call(createAppWithRoutes(table, { store: createMemoryStore(), apiKeys: [KEY] }), "/v1/pets/1", { headers: AUTH });
    expect([fetched.status, fetched.headers.get("deprecation")]).toEqual([404, getPet.deprecation!.since]);
  });
});

describe("declared lengths", () => {
  test("utf8Length counts what TextEncoder writes, lone surrogates included", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => utf8Length(text) === new TextEncoder().encode(text).byteLength));
    expect(utf8Length("a\u00e9\u20ac\u{1f600}\ud800")).toBe(1 + 2 + 3 + 4 + 3);
    // A hundred random strings: well under a second alone, past bun's 5 s default on a loaded machine.
  }, 30_000);

  test("every JSON answer declares its Content-Length, which is its body's length in bytes", async () => {
    const app = await appWithPets(2);
    for (const [path, init] of [["/v1/pets", { headers: AUTH }], ["/v1/pets/1", { headers: AUTH }], ["/v1/pets/9", { headers: AUTH }], ["/v1/pets", {}], ["/v1/openapi.json", {}]] as const) {
      const response = await call(app, path, init);
      expect(response.headers.get("content-length")).toBe(String((await response.arrayBuffer()).byteLength));
    }
  });
});
