import { describe, expect, test } from "bun:test";
import { createApp, createMemoryStore } from "../src/mod.ts";
import { ROUTES as TABLE } from "../src/routes.ts";
import { call, errorOf, KEY, pathOf, testApp } from "./helpers.ts";

// Every guarded route of the table, and a path no route has.
const ROUTES = [
  ...TABLE.filter((route) => route.public !== true).map((route) => [route.method, `/v1${pathOf(route.path)}`] as const),
  ["GET", "/v1/nowhere"] as const,
];

describe("bearer authentication", () => {
  test.each(ROUTES)("%s %s without a key answers 401 with a Bearer challenge and no error code", async (method, path) => {
    const response = await call(testApp(), path, { method });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="animal-store"');
    const error = await errorOf(response);
    expect(error.code).toBe("unauthorized");
  });

  test.each(ROUTES)("%s %s with a wrong key answers 401 with error=\"invalid_token\"", async (method, path) => {
    const response = await call(testApp(), path, { method, headers: { authorization: "Bearer not-the-key" } });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="animal-store", error="invalid_token"');
    expect((await errorOf(response)).message).toContain("Invalid API key");
  });

  test.each([`bearer ${KEY}`, `BEARER ${KEY}`, `Bearer   ${KEY}`])("the scheme is case-insensitive: %p is accepted", async (header) => {
    expect((await call(testApp(), "/v1/pets", { headers: { authorization: header } })).status).toBe(200);
  });

  test.each([
    ["another scheme", `Basic ${btoa("user:" + KEY)}`, 'Bearer realm="animal-store"'],
    ["the key without a scheme", KEY, 'Bearer realm="animal-store"'],
    ["an empty bearer token", "Bearer ", 'Bearer realm="animal-store", error="invalid_token"'],
    ["a token with spaces", `Bearer ${KEY} extra`, 'Bearer realm="animal-store", error="invalid_token"'],
    ["a prefix of the key", `Bearer ${KEY.slice(0, -1)}`, 'Bearer realm="animal-store", error="invalid_token"'],
  ])("%s answers 401", async (_, header, challenge) => {
    const response = await call(testApp(), "/v1/pets", { headers: { authorization: header } });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(challenge);
  });

  test("any of several configured keys is accepted", async () => {
    const app = createApp({ store: createMemoryStore(), apiKeys: ["first", "second"] });
    for (const key of ["first", "second"]) {
      expect((await app.fetch(new Request("http://x/v1/pets", { headers: { authorization: `Bearer ${key}` } }))).status).toBe(200);
    }
  });

  test("the realm is configurable", async () => {
    const response = await call(testApp({ realm: "zoo" }), "/v1/pets");
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="zoo"');
  });

  test("authentication is checked before routing: a wrong method without a key answers 401, not 405", async () => {
    expect((await call(testApp(), "/v1/pets", { method: "DELETE" })).status).toBe(401);
  });

  test("an unauthenticated create stores nothing", async () => {
    const app = testApp();
    await call(app, "/v1/pets", { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"a","categoryId":1}' });
    const list = await call(app, "/v1/pets", { headers: { authorization: `Bearer ${KEY}` } });
    expect(await list.json()).toEqual([]);
  });

  test("creating an app without keys, or with a key a bearer token cannot carry, throws", () => {
    expect(() => createApp({ store: createMemoryStore(), apiKeys: [] })).toThrow("no key is configured");
    expect(() => createApp({ store: createMemoryStore(), apiKeys: ["has space"] })).toThrow("bearer token");
  });
});
