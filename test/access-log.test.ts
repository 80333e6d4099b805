import { describe, expect, test } from "bun:test";
import type { PetStore } from "../src/mod.ts";
import type { LogFormat, RequestRecord } from "../adapters/server/access-log.ts";
import { createAccessLog, requestLineJson, visible } from "../adapters/server/access-log.ts";
import { createBatch } from "../adapters/server/_batch.ts";
import { rawTarget } from "../src/_internal/_request-target.ts";
import { createKeyRing, createMemoryStore, StoreUnavailableError } from "../src/mod.ts";
import { health } from "../src/plugs/health/mod.ts";
import { rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { AUTH, call, get, KEY, post, testApp } from "./helpers.ts";

/** An app over a fresh memory store wrapped in a log that records its lines; reading them flushes the log. */
function loggedApp(format: LogFormat = "json", store: PetStore = createMemoryStore()) {
  const lines: string[] = [];
  const errors: string[] = [];
  const log = createAccessLog({ format, write: (line) => lines.push(line), writeError: (line) => errors.push(line) });
  const app = log.wrap(testApp({ store, onError: log.reportError }));
  const written = () => (log.flush(), lines);
  return { app, lines: written, errors, records: () => written().map((line) => JSON.parse(line) as RequestRecord) };
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

  test("the answers made before routing or by a plug carry it too: 401, 404, 405, 413, 429, /health's 503 while stopping, a store's 500 and 503", async () => {
    const lines: string[] = [];
    const log = createAccessLog({ format: "json", write: (line) => lines.push(line), writeError: () => {} });
    const store = { ...createMemoryStore(), list: () => Promise.reject(new Error("disk on fire")), get: () => Promise.reject(new StoreUnavailableError("the database is gone")) };
    const plugs = [health({ stopping: () => true }), rateLimit({ requests: 1, seconds: 3600, burst: 8 })];
    const app = log.wrap(testApp({ store, plugs, maxBodyBytes: 16, onError: () => {} }));
    const answers = [
      await call(app, "/v1/pets"),
      await call(app, "/v1/nowhere", { headers: AUTH }),
      await call(app, "/v1/pets", { method: "DELETE", headers: AUTH }),
      await post(app, { name: "a name longer than sixteen bytes", categoryId: 1 }),
      await call(app, "/health/ready"),
      await get(app, "/v1/pets"),
      await get(app, "/v1/pets/1"),
      ...(await Promise.all(Array.from({ length: 4 }, () => get(app, "/v1/pets/1")))),
    ];
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.slice(0, 7)).toEqual([401, 404, 405, 413, 503, 500, 503]);
    expect(statuses.at(-1)).toBe(429);
    const ids = answers.map((answer) => answer.headers.get("x-request-id"));
    log.flush();
    expect(new Set(ids).size).toBe(answers.length);
    expect(new Set(ids)).toEqual(new Set(lines.map((line) => (JSON.parse(line) as RequestRecord).requestId)));
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
    const log = lines().join("\n");
    for (const secret of [KEY, "wrong-secret", "Bearer", "secret-retry-key"]) expect(log).not.toContain(secret);
  });

  test("given the app's keys, a line names the request's key, text (keyName=) and JSON; none for a request without a known one (issue 50)", async () => {
    for (const format of ["text", "json"] as const) {
      const lines: string[] = [];
      const keys = createKeyRing([{ name: "shop", key: KEY }, { name: "old", key: "old-key", expires: "2020-01-01T00:00:00Z" }]);
      const log = createAccessLog({ format, keys, write: (line) => lines.push(line), writeError: () => {} });
      const app = log.wrap(testApp({ apiKeys: keys }));
      await get(app, "/v1/pets");
      await call(app, "/v1/pets", { headers: { authorization: "Bearer old-key" } });
      await call(app, "/v1/pets", { headers: { authorization: "Bearer wrong" } });
      log.flush();
      const names = lines.map((line) => (format === "json" ? (JSON.parse(line) as RequestRecord).keyName : /keyName=(\S+)/.exec(line)?.[1]));
      expect({ format, names }).toEqual({ format, names: ["shop", "old", undefined] });
      expect(lines.join("\n")).not.toContain(KEY);
    }
  });

  test("the text format is one line: time, id, method, target, status, bytes, duration", async () => {
    const { app, lines } = loggedApp("text");
    const response = await get(app, "/v1/pets?limit=1");
    const id = response.headers.get("x-request-id");
    expect(lines()).toEqual([expect.stringMatching(new RegExp(`^\\S+Z ${id} GET /v1/pets\\?limit=1 200 2 [0-9.]+ms$`))]);
  });

  test("an answer that declares no length (a host's own) is logged with its body's bytes, and sent declaring them", async () => {
    const lines: string[] = [];
    const log = createAccessLog({ format: "json", write: (line) => lines.push(line) });
    const hostsOwn = { fetch: () => Promise.resolve(new Response("héllo", { status: 418 })), onError: () => {} };
    const response = await log.wrap(hostsOwn).fetch(new Request("http://localhost/teapot"));
    log.flush();
    expect(response.headers.get("content-length")).toBe("6");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.text()).toBe("héllo");
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: response.headers.get("x-request-id"), target: "/teapot", status: 418, bytes: 6 });
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

  test("a target holding characters past ASCII, a lone surrogate included, is one line of visible ASCII", () => {
    expect(visible("/v1/pets?\u{1F600}")).toBe("/v1/pets?%F0%9F%98%80");
    expect(visible("/v1/pets?a\ud800b")).toBe("/v1/pets?a%EF%BF%BDb");
    expect(visible("/v1/pets?a b\nc")).toBe("/v1/pets?a%20b%0Ac");
    expect(visible("/v1/pets?limit=5")).toBe("/v1/pets?limit=5");
  });

  test("a JSON line is the record as JSON, target escaped", () => {
    const record = { time: "2026-11-23T19:00:00.000Z", requestId: "id-1", method: "GET", target: '/v1/pets?"\\\ud800', status: 200, bytes: 2, durationMs: 0.25 };
    expect(JSON.parse(requestLineJson(record))).toEqual({ ...record, target: JSON.parse(JSON.stringify(record.target)) });
  });

  test("a log line that cannot be written is reported and the answer is sent unchanged", async () => {
    const errors: string[] = [];
    const log = createAccessLog({ format: "text", write: () => { throw new Error("disk full"); }, writeError: (line) => errors.push(line) });
    const app = log.wrap(testApp());
    const response = await post(app, { name: "Rex", categoryId: 1 });
    expect(response.status).toBe(201);
    log.flush();
    expect(errors).toEqual([expect.stringContaining("disk full")]);
  });

  test("the time is ISO 8601 with milliseconds and follows the clock across seconds", async () => {
    const { app, records } = loggedApp();
    await get(app, "/v1/pets");
    await Bun.sleep(1100);
    await get(app, "/v1/pets");
    const [first, second] = records().map((record) => Date.parse(record.time));
    expect(Math.abs(first! - Date.now())).toBeLessThan(5000);
    expect(second! - first!).toBeGreaterThanOrEqual(1000);
  });
});

describe("batch", () => {
  test("what is pushed together is handed on together once, in order, within 10 ms", async () => {
    const handed: number[][] = [];
    const batch = createBatch<number>((items) => handed.push([...items]));
    for (let i = 0; i < 3; i++) batch.push(i);
    expect(handed).toEqual([]);
    await Bun.sleep(30);
    expect(handed).toEqual([[0, 1, 2]]);
  });

  test("flush hands on what waits at once, and a large backlog is handed on without waiting for the timer", () => {
    const handed: number[][] = [];
    const batch = createBatch<number>((items) => handed.push([...items]));
    batch.push(-1);
    batch.flush();
    expect(handed).toEqual([[-1]]);
    for (let i = 0; i < 200; i++) batch.push(i);
    expect(handed.length).toBeGreaterThan(1);
    expect(handed.slice(1).flat()).toEqual([...Array(handed.slice(1).flat().length).keys()]);
  });

  test("after bursts, items arriving steadily are still handed on together, at most once every 10 ms", async () => {
    const handed: number[] = [];
    const batch = createBatch<number>((items) => handed.push(items.length));
    // Bursts spread over 20 ms, each filling a batch (handed on at once) and starting the next.
    for (const end = performance.now() + 20; performance.now() < end; await Bun.sleep(1)) {
      for (let i = 0; i <= 64; i++) batch.push(i);
    }
    batch.flush();
    handed.length = 0;
    const started = performance.now();
    for (let i = 0; i < 40; i++) {
      batch.push(i);
      await Bun.sleep(1);
    }
    const elapsed = performance.now() - started;
    batch.flush();
    expect(handed.reduce((sum, size) => sum + size, 0)).toBe(40);
    expect(handed.length).toBeLessThanOrEqual(Math.floor(elapsed / 10) + 2);
  });
});

describe("raw targets", () => {
  test("the path and query of an absolute or path-only URL, as sent", () => {
    expect(rawTarget("http://h:1/v1/pets?limit=5")).toBe("/v1/pets?limit=5");
    expect(rawTarget("https://h/v1/x/../pets")).toBe("/v1/x/../pets");
    expect(rawTarget("/v1/pets/1")).toBe("/v1/pets/1");
    expect(rawTarget("http://h")).toBe("/");
  });
});

describe("access log and trace context, with no traces recorded", () => {
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  test("a JSON line carries the caller's trace id and span id from a valid traceparent", async () => {
    const { app, records } = loggedApp("json");
    await get(app, "/v1/pets", { traceparent });
    expect(records()[0]).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" });
  });

  test("a text line ends with trace= and span=", async () => {
    const { app, lines } = loggedApp("text");
    await get(app, "/v1/pets", { traceparent });
    expect(lines()[0]).toEndWith("ms trace=4bf92f3577b34da6a3ce929d0e0e4736 span=00f067aa0ba902b7");
  });

  test("a malformed traceparent, or none, adds no trace fields and changes nothing else", async () => {
    const { app, records } = loggedApp("json");
    expect((await get(app, "/v1/pets", { traceparent: `${traceparent}-extra` })).status).toBe(200);
    await get(app, "/v1/pets");
    for (const record of records()) expect(Object.keys(record)).toEqual(["time", "requestId", "method", "target", "status", "bytes", "durationMs"]);
  });
});
