import { describe, expect, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import { createMemoryStore, StoreUnavailableError } from "../src/mod.ts";
import type { Route } from "../src/routes.ts";
import { createRouteMatcher, ROUTES } from "../src/routes.ts";
import { allowedAt, AUTH, call, createPets, errorOf, get, pathOf, post, testApp } from "./helpers.ts";

describe("routing", () => {
  test.each(["/v1/animals", "/v1/pets/1/owner", "/v1/pets/", "/v1//pets", "/v1/"])(
    "an unknown path under the base path, %p, answers 404 not_found",
    async (path) => {
      const response = await get(testApp(), path);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe("not_found");
    },
  );

  test.each([["/v1/pets#frag", 200], ["/v1/pets?limit=101#x", 400], ["/v1/pets/1#x", 200], ["/v1/pets/#1", 404]])(
    "a #fragment in the request target is ignored, as a URL parser does (docs/decisions.md): %s answers %d",
    async (path, status) => {
      const app = testApp();
      await createPets(app, [{ name: "Rex", categoryId: 1 }]);
      const response = await app.fetch(new Request(`http://pets.test${path}`, { headers: AUTH }));
      expect(response.status).toBe(status);
    },
  );

  test("a path outside the base path answers 404 without asking for a key", async () => {
    const response = await call(testApp(), "/pets");
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toContain("the API is served under /v1/");
  });

  // Every method a path of the table refuses, with the Allow its declarations make.
  const refused = [...new Set(ROUTES.map((route) => route.path))].flatMap((template) =>
    ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].filter((method) => !allowedAt(template).split(", ").includes(method)).map((method) => [method, `/v1${pathOf(template)}`, allowedAt(template)] as const));

  test("the 405 table covers both pet paths", () => {
    expect(refused.map(([, path]) => path)).toEqual(expect.arrayContaining(["/v1/pets", "/v1/pets/1"]));
  });

  test.each(refused)("%s %s answers 405 with Allow: %s", async (method, path, allow) => {
    const response = await call(testApp(), path, { method, headers: AUTH });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect((await errorOf(response)).code).toBe("method_not_allowed");
  });

  test("HEAD answers like GET with no body and the GET body's Content-Length", async () => {
    const app = testApp();
    await createPets(app, [{ name: "Rex", categoryId: 1 }]);
    for (const path of ["/v1/pets", "/v1/pets/1", "/v1/pets/2"]) {
      const getResponse = await get(app, path);
      const getBody = await getResponse.text();
      const head = await call(app, path, { method: "HEAD", headers: AUTH });
      expect(head.status).toBe(getResponse.status);
      expect(head.headers.get("content-type")).toBe("application/json");
      expect(head.headers.get("content-length")).toBe(String(new TextEncoder().encode(getBody).byteLength));
      expect(await head.text()).toBe("");
    }
  });

  test("GET /store/orders, referred to but not specified by the interface, answers 501 not_implemented", async () => {
    const response = await get(testApp(), "/v1/store/orders");
    expect(response.status).toBe(501);
    const error = await errorOf(response);
    expect(error.code).toBe("not_implemented");
    expect(error.message).toContain("not specified");
  });

  test("the base path is configurable, and links and locations follow it", async () => {
    const app = testApp({ basePath: "/api/v1" });
    expect((await post(app, { name: "Rex", categoryId: 1 })).status).toBe(404);
    const response = await call(app, "/api/v1/pets", {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(response.headers.get("location")).toBe("http://pets.test/api/v1/pets/1");
    expect((await get(app, "/api/v1/pets/1")).status).toBe(200);
  });

  test("the API can be mounted at the root with basePath \"\"", async () => {
    expect((await get(testApp({ basePath: "" }), "/pets")).status).toBe(200);
  });

  test("a base path that does not start with a slash, or ends with one, is refused", () => {
    expect(() => testApp({ basePath: "v1" })).toThrow("basePath");
    expect(() => testApp({ basePath: "/v1/" })).toThrow("basePath");
  });
});

describe("route matching", () => {
  const answer = async () => new Response(null);
  const table: readonly Route[] = [
    { method: "GET", path: "/things", handler: answer, public: true },
    { method: "POST", path: "/things", handler: answer },
    { method: "GET", path: "/things/{id}", handler: answer, deprecation: { since: "@0", sunset: "Thu, 01 Jan 1970 00:00:00 GMT", successor: "/things" } },
  ];
  const matchRoute = createRouteMatcher(table);

  test("a flag cannot leak across methods: a public GET leaves the POST on its path guarded", () => {
    expect(matchRoute("GET", "/things")?.route?.public).toBe(true);
    expect(matchRoute("POST", "/things")?.route?.public).toBeUndefined();
  });

  test("a deprecation belongs to its own route only", () => {
    expect(matchRoute("GET", "/things/7")?.route?.deprecation?.successor).toBe("/things");
    expect(matchRoute("GET", "/things")?.route?.deprecation).toBeUndefined();
  });

  test("a path with other methods only answers with the Allow value; an unknown path with nothing", () => {
    const match = matchRoute("DELETE", "/things");
    expect(match?.route).toBeUndefined();
    expect(match !== undefined && match.route === undefined ? match.allow : undefined).toBe("GET, HEAD, POST");
    expect(matchRoute("GET", "/nothing")).toBeUndefined();
  });

  test("parameters are taken from the path", () => {
    expect(matchRoute("GET", "/things/7")).toMatchObject({ params: { id: "7" } });
  });
});

describe("unexpected errors", () => {
  function failingStore(error: Error): PetStore {
    const store = createMemoryStore();
    return { ...store, list: () => Promise.reject(error), create: () => Promise.reject(error) };
  }

  test("a thrown exception answers 500 internal_error with no stack trace, and is logged", async () => {
    const logged: unknown[] = [];
    const boom = new Error("database exploded at /secret/path");
    const app = testApp({ store: failingStore(boom), onError: (error) => logged.push(error) });
    const response = await get(app, "/v1/pets");
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error.code).toBe("internal_error");
    expect(error.message).not.toContain("exploded");
    expect(error.message).not.toContain("/secret/path");
    expect(logged).toEqual([boom]);
  });

  test("a store that is unavailable answers 503 service_unavailable", async () => {
    const app = testApp({ store: failingStore(new StoreUnavailableError("the data file could not be written")), onError: () => {} });
    const response = await post(app, { name: "Rex", categoryId: 1 });
    expect(response.status).toBe(503);
    const error = await errorOf(response);
    expect(error.code).toBe("service_unavailable");
    expect(error.message).toContain("the data file could not be written");
  });
});
