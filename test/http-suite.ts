/**
 * @module
 * The HTTP-level suite: what a client observes over the wire from the real standalone server.
 * Written once and run for every runtime and store by `http.test.ts`, and through a checking proxy
 * by the conformance checks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import type { ApiKeyEntry, Pet } from "../src/mod.ts";
import type { StoreName } from "../adapters/server/stores.ts";
import type { NodeLineRuntime, Runtime } from "./server-process.ts";
import { allowedAt, refusedAt } from "./helpers.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";
import { keyFileOf } from "./keys-suite.ts";

/** The key the servers under test accept. */
export const HTTP_SUITE_KEY = "http-suite-key";
const AUTH = { authorization: `Bearer ${HTTP_SUITE_KEY}` };
/** Keys the servers also accept, from their key file: one of scope read, one expired. */
const READ_KEY = "http-suite-read-key";
const EXPIRED_KEY = "http-suite-expired-key";

/** Every key of the servers under test, as their key file holds them. */
export const HTTP_SUITE_KEYS: readonly ApiKeyEntry[] = Object.freeze([
  { name: "other", key: "other-key" },
  { name: "suite", key: HTTP_SUITE_KEY },
  { name: "reader", key: READ_KEY, scope: "read" },
  { name: "retired", key: EXPIRED_KEY, expires: "2020-01-01T00:00:00Z" },
]);
const JSON_AUTH = { ...AUTH, "content-type": "application/json" };

/** A running server under test, possibly behind a proxy. */
export interface Target {
  /** Where requests go: the server's base URL, or a proxy's in front of it. */
  readonly url: string;
  /** The server's own base URL, for requests a proxy cannot pass on faithfully. */
  readonly directUrl: string;
  /** Sees every response that came through `url`. */
  readonly inspect?: (response: Response) => void;
  stop(): Promise<void>;
}

/**
 * Settings that give a server a fresh, empty store of each kind: one per row of `SERVER_STORES`, so
 * `npm run check` fails until a store added there gets its own (the suite runs on every store).
 */
const FRESH_STORES: Readonly<Record<StoreName, () => Promise<Record<string, string>>>> = {
  file: async () => ({ STORE: "file", DATA_FILE: tempDataFile() }),
  memory: async () => ({ STORE: "memory" }),
  postgres: async () => ({ STORE: "postgres", DATABASE_URL: await (await postgresServer()).createDatabase() }),
};

/** Starts the standalone server for `runtime` with a fresh store of the kind. */
export function serverTarget(runtime: Runtime | NodeLineRuntime, store: StoreName): () => Promise<Target> {
  return async () => {
    const storeSettings = await FRESH_STORES[store]();
    const server = await startServer(runtime, { API_KEYS_FILE: keyFileOf(HTTP_SUITE_KEYS), ...storeSettings });
    return { url: server.url, directUrl: server.url, stop: async () => void (await server.stop("SIGKILL")) };
  };
}

/** Registers the HTTP suite against targets made by `start`. */
export function httpSuite(name: string, start: () => Promise<Target>): void {
  describe(name, () => {
    let target: Target;
    let base: string;
    let direct: string;
    beforeAll(async () => {
      target = await start();
      base = target.url;
      direct = target.directUrl;
    }, 30_000);
    afterAll(async () => {
      await target?.stop();
    });

    /** A request through the target's URL, shown to its inspector. */
    const send = async (url: string, init?: RequestInit) => {
      const response = await fetch(url, init);
      target.inspect?.(response);
      return response;
    };
    const create = (pet: object) => send(`${base}/pets`, { method: "POST", headers: JSON_AUTH, body: JSON.stringify(pet) });

    test("prints its base URL on start", () => {
      expect(direct).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    });

    test("POST /pets creates a pet; GET /pets/{id} and GET /pets return it", async () => {
      const created = await create({ name: "Rex", categoryId: 7, status: "sold" });
      expect(created.status).toBe(201);
      const pet = (await created.json()) as Pet;
      expect(pet).toEqual({ id: pet.id, name: "Rex", categoryId: 7, status: "sold" });
      // A proxy passes its upstream's Host on, so Location names the server itself.
      expect(created.headers.get("location")).toBe(`${direct}/pets/${pet.id}`);

      const fetched = await send(`${base}/pets/${pet.id}`, { headers: AUTH });
      expect(fetched.status).toBe(200);
      expect(await fetched.json()).toEqual(pet);
      expect(fetched.headers.get("deprecation")).toBe("@1795305600");
      expect(fetched.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT");

      const listed = (await (await send(`${base}/pets?status=sold&limit=100`, { headers: AUTH })).json()) as Pet[];
      expect(listed).toContainEqual(pet);
    });

    test("a create retried with its Idempotency-Key answers the same 201 with Idempotent-Replayed: true; another body 422", async () => {
      const key = `retry-${crypto.randomUUID()}`;
      const keyed = (pet: object) =>
        send(`${base}/pets`, { method: "POST", headers: { ...JSON_AUTH, "idempotency-key": key }, body: JSON.stringify(pet) });
      const first = await keyed({ name: "Once", categoryId: 3 });
      expect(first.status).toBe(201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const retry = await keyed({ name: "Once", categoryId: 3 });
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.headers.get("location")).toBe(first.headers.get("location"));
      expect(await retry.json()).toEqual(await first.json());
      const other = await keyed({ name: "Twice", categoryId: 3 });
      expect(other.status).toBe(422);
      expect(((await other.json()) as { code: string }).code).toBe("idempotency_key_reused");
    });

    test("If-None-Match with a pet's ETag answers 304 with no body, and no Content-Length but the 200's", async () => {
      const pet = (await (await create({ name: "Cached", categoryId: 1 })).json()) as Pet;
      const first = await send(`${base}/pets/${pet.id}`, { headers: AUTH });
      const length = String((await first.arrayBuffer()).byteLength);
      const etag = first.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
      const again = await send(`${base}/pets/${pet.id}`, { headers: { ...AUTH, "if-none-match": etag! } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect([null, length]).toContain(again.headers.get("content-length"));
      expect((await again.arrayBuffer()).byteLength).toBe(0);
    });

    test("answers JSON with Content-Type application/json and a correct Content-Length", async () => {
      await create({ name: "Ünïcødé 🐶", categoryId: 1 });
      const response = await send(`${base}/pets?limit=100`, { headers: AUTH });
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("content-length")).toBe(String(bytes.byteLength));
      expect(JSON.parse(new TextDecoder().decode(bytes))).toBeArray();
    });

    // Some requests go to `direct`, never through a proxy: lowercase "bearer", methods the document
    // does not list (HEAD, a method a path refuses), unknown paths and broken JSON, which proxies answer themselves.
    test("a missing key answers 401 with a Bearer challenge; a wrong one adds invalid_token", async () => {
      const missing = await send(`${base}/pets`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="animal-store"');
      expect(await missing.json()).toEqual({ code: "unauthorized", message: expect.any(String), status: 401 });
      const wrong = await fetch(`${direct}/pets`, { headers: { authorization: "bearer nope" } });
      expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="animal-store", error="invalid_token"');
    });

    test("a key of scope read lists, and its create answers 403 insufficient_scope; an expired key 401 saying it expired (issue 50)", async () => {
      expect((await send(`${base}/pets`, { headers: { authorization: `Bearer ${READ_KEY}` } })).status).toBe(200);
      const refused = await send(`${base}/pets`, { method: "POST", headers: { authorization: `Bearer ${READ_KEY}`, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="animal-store", error="insufficient_scope", scope="write"');
      expect(await refused.json()).toEqual({ code: "insufficient_scope", message: expect.stringContaining("may only read"), status: 403 });
      const expired = await send(`${base}/pets`, { headers: { authorization: `Bearer ${EXPIRED_KEY}` } });
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { message: string }).message).toStartWith("Expired API key: this key expired at 2020-01-01T00:00:00.000Z");
    });

    test("a wrong method answers 405 with Allow; an unknown path 404; both as error objects", async () => {
      // A method getPet's path refuses, and the Allow its declarations make (helpers.ts).
      const wrongMethod = await fetch(`${direct}/pets/1`, { method: refusedAt("/pets/{petId}"), headers: AUTH });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get("allow")).toBe(allowedAt("/pets/{petId}"));
      expect(((await wrongMethod.json()) as { code: string }).code).toBe("method_not_allowed");
      const unknown = await fetch(`${direct}/nothing`, { headers: AUTH });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { code: string }).code).toBe("not_found");
    });

    test("HEAD answers with GET's headers, its Content-Length and no body", async () => {
      const getResponse = await fetch(`${direct}/pets`, { headers: AUTH });
      const length = (await getResponse.arrayBuffer()).byteLength;
      const head = await fetch(`${direct}/pets`, { method: "HEAD", headers: AUTH });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-length")).toBe(String(length));
      expect(head.headers.get("content-type")).toBe("application/json");
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    });

    test("bad bodies answer 400/415 error objects and store nothing", async () => {
      const before = await countPets(base, send);
      const broken = await fetch(`${direct}/pets`, { method: "POST", headers: JSON_AUTH, body: '{"name": "Rex", ' });
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as { code: string }).code).toBe("invalid_body");
      const huge = await send(`${base}/pets`, { method: "POST", headers: JSON_AUTH, body: '{"name":"Rex","categoryId":9007199254740993}' });
      expect(huge.status).toBe(400);
      const text = await send(`${base}/pets`, { method: "POST", headers: { ...AUTH, "content-type": "text/plain" }, body: "{}" });
      expect(text.status).toBe(415);
      expect(await countPets(base, send)).toBe(before);
    });

    test("a 1 MiB upload answers 413 and the server keeps serving", async () => {
      const body = JSON.stringify({ name: "x".repeat(1 << 20), categoryId: 1 });
      const response = await send(`${base}/pets`, { method: "POST", headers: JSON_AUTH, body });
      expect(response.status).toBe(413);
      expect(((await response.json()) as { code: string }).code).toBe("payload_too_large");
      expect((await send(`${base}/pets`, { headers: AUTH })).status).toBe(200);
    });

    test("100 concurrent creates all answer 201 with distinct ids", async () => {
      const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => create({ name: `c${i}`, categoryId: i })));
      expect(responses.map((response) => response.status)).toEqual(Array(100).fill(201));
      const ids = await Promise.all(responses.map(async (response) => ((await response.json()) as Pet).id));
      expect(new Set(ids).size).toBe(100);
    });

    test("following Link rel=next walks every pet exactly once", async () => {
      const expected = await countPets(base, send);
      const seen: number[] = [];
      let next: string | undefined = `${base}/pets?limit=7`;
      while (next !== undefined) {
        const response: Response = await send(next, { headers: AUTH });
        seen.push(...((await response.json()) as Pet[]).map((pet) => pet.id));
        next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get("link") ?? "")?.[1];
      }
      expect(seen.length).toBe(expected);
      expect(new Set(seen).size).toBe(seen.length);
    });

    test("an unread small body does not stall a keep-alive connection", async () => {
      const exchange = await rawExchange(new URL(direct), [
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":"Rex","categoryId":1 }',
        `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${HTTP_SUITE_KEY}\r\n\r\n`,
      ]);
      expect(exchange).toEqual({ statuses: ["401", "200"], closed: false, timedOut: false });
    });

    test("an oversized body answers 413, then the connection goes on or is closed, never stalls", async () => {
      const exchange = await rawExchange(new URL(direct), [
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${HTTP_SUITE_KEY}\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n${"x".repeat(200000)}`,
        `GET /v1/pets?limit=abc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${HTTP_SUITE_KEY}\r\n\r\n`,
      ]);
      expect(exchange.timedOut).toBe(false);
      expect(exchange.statuses).toEqual(exchange.closed ? ["413"] : ["413", "400"]);
    });
  });
}

async function countPets(base: string, send: (url: string, init?: RequestInit) => Promise<Response>): Promise<number> {
  let count = 0;
  let after = 0;
  for (;;) {
    const page = (await (await send(`${base}/pets?limit=100&after=${after}`, { headers: AUTH })).json()) as Pet[];
    count += page.length;
    if (page.length < 100) return count;
    after = page[page.length - 1]!.id;
  }
}

/** What came back on one connection: the status codes read, and how it ended. */
interface Exchange {
  readonly statuses: string[];
  readonly closed: boolean;
  readonly timedOut: boolean;
}

/**
 * Sends raw HTTP/1.1 requests one after another on one connection, each once the previous answer
 * is read, and reports the status codes and whether the server closed the connection early.
 */
function rawExchange(url: URL, requests: readonly string[], timeoutMs = 5000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const statuses: string[] = [];
    let buffer = "";
    let sent = 0;
    const finish = (closed: boolean, timedOut: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statuses, closed, timedOut });
    };
    const timer = setTimeout(() => finish(false, true), timeoutMs);
    const sendNext = () => {
      const request = requests[sent++];
      if (request === undefined) finish(false, false);
      else socket.write(request);
    };
    socket.on("connect", sendNext);
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        const match = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(buffer);
        if (match === null) return;
        const length = Number(/content-length: *(\d+)/i.exec(match[2]!)?.[1] ?? 0);
        if (buffer.length < match[0].length + length) return;
        buffer = buffer.slice(match[0].length + length);
        statuses.push(match[1]!);
        sendNext();
      }
    });
    socket.on("close", () => finish(true, false));
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? finish(true, false) : reject(error)));
  });
}
