import { describe, expect, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import type { LogFormat, RequestRecord } from "../adapters/server/access-log.ts";
import { createAccessLog } from "../adapters/server/access-log.ts";
import { createMemoryStore } from "../src/mod.ts";
import { AUTH, call, get, KEY, post, testApp } from "./helpers.ts";

/** An app over a fresh memory store wrapped in a log that records its lines. */
function loggedApp(format: LogFormat = "json", store: PetStore = createMemoryStore()) {
  const lines: string[] = [];
  const errors: string[] = [];
  const log = createAccessLog({ format, write: (line) => lines.push(line), writeError: (line) => errors.push(line) });
  const app = log.wrap(testApp({ store, onError: log.reportError }));
  return { app, lines, errors, records: () => lines.map((line) => JSON.parse(line) as RequestRecord) };
}

describe("access log", () => {
  test("writes one JSON line per request: time, request id, method, path and query, status, bytes, duration", async () => {
    const { app, records } = loggedApp();
    await post(app, { name: "Rëx", categoryId: 1 });
    const response = await get(app, "/v1/pets?limit=5&status=available");
    expect(records()).toHaveLength(2);
    expect(records()[1]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      requestId: response.headers.get("x-request-id")!,
      method: "GET",
      target: "/v1/pets?limit=5&status=available",
      status: 200,
      bytes: 2,
      durationMs: expect.any(Number),
    });
    expect(records()[0]).toMatchObject({ method: "POST", target: "/v1/pets", status: 201, bytes: 37 });
  });

  test("the bytes are the body's length in UTF-8, and the answer declares it as Content-Length", async () => {
    const { app, records } = loggedApp();
    const response = await post(app, { name: "🐶 Rëx", categoryId: 1 });
    const length = (await response.arrayBuffer()).byteLength;
    expect(response.headers.get("content-length")).toBe(String(length));
    expect(records()[0]!.bytes).toBe(length);
  });

  test("every answer carries its request id as X-Request-Id; each request gets its own", async () => {
    const { app } = loggedApp();
    const ids = await Promise.all([get(app, "/v1/pets"), call(app, "/nowhere"), get(app, "/v1/pets")].map(async (response) => (await response).headers.get("x-request-id")));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(3);
  });

  test("a client's X-Request-Id is kept when it is a short token, and replaced otherwise", async () => {
    const { app } = loggedApp();
    expect((await get(app, "/v1/pets", { "x-request-id": "proxy-42.a:b" })).headers.get("x-request-id")).toBe("proxy-42.a:b");
    for (const given of ["has space", "x".repeat(129), "quote\"d"]) {
      expect((await get(app, "/v1/pets", { "x-request-id": given })).headers.get("x-request-id")).not.toBe(given);
    }
  });

  test("never logs the Authorization header, a key or an idempotency key", async () => {
    const { app, lines } = loggedApp("text");
    await post(app, { name: "Rex", categoryId: 1 }, { "idempotency-key": "secret-retry-key" });
    await call(app, "/v1/pets", { headers: { authorization: "Bearer wrong-secret" } });
    const log = lines.join("\n");
    for (const secret of [KEY, "wrong-secret", "Bearer", "secret-retry-key"]) expect(log).not.toContain(secret);
  });

  test("the text format is one line: time, id, method, target, status, bytes, duration", async () => {
    const { app, lines } = loggedApp("text");
    const response = await get(app, "/v1/pets?limit=1");
    const id = response.headers.get("x-request-id");
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^\\S+Z ${id} GET /v1/pets\\?limit=1 200 2 [0-9.]+ms$`))]);
  });

  test("HEAD and 304 log the length a GET would send", async () => {
    const { app, records } = loggedApp();
    await post(app, { name: "Rex", categoryId: 1 });
    const full = await get(app, "/v1/pets/1");
    const length = (await full.arrayBuffer()).byteLength;
    await call(app, "/v1/pets/1", { method: "HEAD", headers: AUTH });
    await get(app, "/v1/pets/1", { "if-none-match": full.headers.get("etag")! });
    expect(records().slice(1).map((record) => [record.status, record.bytes])).toEqual([[200, length], [200, length], [304, length]]);
  });

  test("an unexpected error is reported with the id of the request it happened in", async () => {
    const failing = { ...createMemoryStore(), list: () => Promise.reject(new Error("disk on fire")) };
    const { app, errors } = loggedApp("json", failing);
    const response = await get(app, "/v1/pets");
    expect(response.status).toBe(500);
    expect(errors).toHaveLength(1);
    const error = JSON.parse(errors[0]!);
    expect(error).toMatchObject({ level: "error", requestId: response.headers.get("x-request-id"), message: "unexpected error" });
    expect(error.error).toContain("disk on fire");
  });

  test("in text format an error line names the request id", async () => {
    const failing = { ...createMemoryStore(), list: () => Promise.reject(new Error("disk on fire")) };
    const { app, errors } = loggedApp("text", failing);
    const id = (await get(app, "/v1/pets")).headers.get("x-request-id");
    expect(errors[0]).toMatch(new RegExp(`^\\S+Z ERROR unexpected error in request ${id}: Error: disk on fire`));
  });
});
