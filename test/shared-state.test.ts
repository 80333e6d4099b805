import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { App } from "../src/mod.ts";
import { AUTH, call, createPets, get, testApp } from "./helpers.ts";

/**
 * A `Response` that keeps the `Headers` it is given by reference, as `@hono/node-server`'s global
 * `Response` and any `FastResponse`-style class do; a record is turned into headers of its own.
 */
const NativeResponse = globalThis.Response;
class KeepingResponse extends NativeResponse {
  readonly #headers: Headers;

  constructor(body?: BodyInit | null, init: ResponseInit = {}) {
    super(body, init);
    this.#headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
  }

  override get headers(): Headers {
    return this.#headers;
  }
}

/** Every answer the app gives twice over: a pet, a full page and its 304, the last page, errors, the document. */
const REQUESTS: readonly { readonly name: string; readonly path: string; readonly headers?: Record<string, string> }[] = [
  { name: "GET /pets/{petId}", path: "/v1/pets/1" },
  { name: "GET /pets, a full page", path: "/v1/pets?limit=2" },
  { name: "GET /pets, the last page", path: "/v1/pets?limit=100" },
  { name: "GET /pets/{petId} answered 404", path: "/v1/pets/99" },
  { name: "GET /pets/{petId} answered 401", path: "/v1/pets/1", headers: { authorization: "Bearer wrong" } },
  { name: "GET /openapi.json", path: "/v1/openapi.json" },
];

/** A middleware that marks its user's answer after the app made it, as session and timing middleware do. */
function markFor(response: Response, user: string): void {
  response.headers.append("set-cookie", `session=${user}; HttpOnly`);
  response.headers.append("server-timing", `app;desc="${user}"`);
}

function headerList(response: Response): [string, string][] {
  return [...response.headers].sort(([a], [b]) => a.localeCompare(b));
}

describe("no answer shares a mutable object with another", () => {
  let app: App;
  beforeEach(async () => {
    globalThis.Response = KeepingResponse;
    app = testApp();
    await createPets(app, [{ name: "Rex", categoryId: 1 }, { name: "Tom", categoryId: 2 }, { name: "Kit", categoryId: 3 }]);
  });
  afterEach(() => {
    globalThis.Response = NativeResponse;
  });

  for (const { name, path, headers } of REQUESTS) {
    test(`${name}: headers a middleware adds to one answer never appear on the next`, async () => {
      const first = await call(app, path, { headers: { ...AUTH, ...headers } });
      const expected = headerList(first);
      markFor(first, "alice");
      const second = await call(app, path, { headers: { ...AUTH, ...headers } });
      expect(headerList(second)).toEqual(expected);
      markFor(second, "bob");
      expect(second.headers.getSetCookie()).toEqual(["session=bob; HttpOnly"]);
    });
  }

  test("a 304 and a 200 of the same pet do not share headers", async () => {
    const first = await get(app, "/v1/pets/1");
    const tag = first.headers.get("etag")!;
    markFor(first, "alice");
    const notModified = await get(app, "/v1/pets/1", { "if-none-match": tag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("set-cookie")).toBeNull();
    markFor(notModified, "bob");
    const again = await get(app, "/v1/pets/1");
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(again.headers.get("server-timing")).toBeNull();
  });

  test("a thousand reads of one pet through timing middleware each carry exactly one Server-Timing entry", async () => {
    for (let i = 0; i < 1000; i++) {
      const response = await get(app, "/v1/pets/1");
      markFor(response, `user${i}`);
      expect(response.headers.get("server-timing")).toBe(`app;desc="user${i}"`);
    }
  });
});
