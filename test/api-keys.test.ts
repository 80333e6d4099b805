import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { App, KeyRing, PetStore, Wrap } from "../src/mod.ts";
import { createApp, createKeyRing, createMemoryStore } from "../src/mod.ts";
import { rateLimit } from "../src/plugs/rate-limit/mod.ts";
import { digestHex, sha256, sha256Scratch } from "../src/api-keys/_sha256.ts";
import { call, errorOf } from "./helpers.ts";

const hashOf = (key: string) => `sha256:${createHash("sha256").update(key).digest("hex")}`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const json = (key: string) => ({ ...bearer(key), "content-type": "application/json" });
const PET = JSON.stringify({ name: "Rex", categoryId: 1 });

describe("SHA-256, written out (src/api-keys/_sha256.ts)", () => {
  test("gives node:crypto's digest for every length around the block edges, and for a range inside a longer text", () => {
    const scratch = sha256Scratch();
    for (let length = 0; length <= 300; length++) {
      const text = Array.from({ length }, (_, i) => String.fromCharCode(0x21 + ((i * 7) % 94))).join("");
      sha256(`Bearer ${text}  `, 7, 7 + length, scratch);
      expect({ length, digest: digestHex(scratch.digest) }).toEqual({ length, digest: createHash("sha256").update(text).digest("hex") });
    }
  });
});

describe("a key ring", () => {
  test("finds a key by its token or by its SHA-256, and names a plain key by its place", async () => {
    const keys = createKeyRing(["first", { name: "shop", key: hashOf("second") }, "third"]);
    const app = createApp({ store: createMemoryStore(), apiKeys: keys });
    for (const [key, name] of [["first", "key-1"], ["second", "shop"], ["third", "key-3"]] as const) {
      const request = new Request("http://x/v1/pets", { headers: bearer(key) });
      expect((await app.fetch(request)).status).toBe(200);
      expect(keys.keyOf(request)).toEqual({ outcome: "valid", key: { name, scope: "write" } });
    }
    expect(keys.size).toBe(3);
  });

  test("answers the same for a request asked twice, even after a replace", () => {
    const keys = createKeyRing([{ name: "a", key: "k" }]);
    const request = new Request("http://x/v1/pets", { headers: bearer("k") });
    expect(keys.keyOf(request).key?.name).toBe("a");
    keys.replace([{ name: "b", key: "other" }]);
    expect(keys.keyOf(request).key?.name).toBe("a");
    expect(keys.keyOf(new Request("http://x/v1/pets", { headers: bearer("k") })).outcome).toBe("invalid");
  });

  test.each([
    ["no header", undefined, "missing"],
    ["another scheme", "Basic azpr", "missing"],
    ["the scheme run on", "Bearerk", "missing"],
    ["the scheme alone", "Bearer", "invalid"],
    ["spaces only", "Bearer   ", "invalid"],
    ["a token with a space", "Bearer k k", "invalid"],
    ["a byte past ASCII", "Bearer k\u00ff", "invalid"],
    ["a token past 1,024 characters", `Bearer ${"k".repeat(1025)}`, "invalid"],
    ["the scheme in capitals, spaces around", "BEARER   k  ", "valid"],
  ])("%s is %s, whether the ring compares its few keys or looks the digest up", (_, header, outcome) => {
    // One key given as itself is compared with the token; five are found by the token's digest.
    for (const keys of [createKeyRing(["k"]), createKeyRing(["k", "l", "m", "n", "o"]), createKeyRing([{ name: "a", key: hashOf("k") }])]) {
      expect(keys.keyOf(new Request("http://x/", { headers: header === undefined ? {} : { authorization: header } })).outcome).toBe(outcome as never);
    }
  });

  test("a key that is a prefix or an extension of a token, or differs in one character, is no match on either path", () => {
    for (const keys of [createKeyRing(["abcdef"]), createKeyRing(["abcdef", "l", "m", "n", "o"])]) {
      for (const token of ["abcde", "abcdefg", "abcdeF", "Abcdef", "abcdef="]) {
        expect({ token, outcome: keys.keyOf(new Request("http://x/", { headers: { authorization: `Bearer ${token}` } })).outcome }).toEqual({ token, outcome: "invalid" });
      }
    }
  });

  test.each([
    ["no key", [], "no key is configured"],
    ["a token with a space", ["has space"], "bearer token"],
    ["a token past 1,024 characters", ["k".repeat(1025)], "longer than 1024"],
    ["a name with a space", [{ name: "a b", key: "k" }], "the name must be"],
    ["a malformed hash", [{ name: "a", key: "sha256:abc" }], "64 hexadecimal digits, got 3 characters"],
    ["an unknown scope", [{ name: "a", key: "k", scope: "admin" }], 'the scope must be "read" or "write"'],
    ["an expiry that is no time", [{ name: "a", key: "k", expires: "2026-02-30T00:00:00Z" }], "RFC 3339"],
    ["a name twice", [{ name: "a", key: "k" }, { name: "a", key: "l" }], "apiKeys[1] (\"a\"): the name is already apiKeys[0]'s"],
    ["a key twice, once as its hash", [{ name: "a", key: "k" }, { name: "b", key: hashOf("k") }], 'the same key as apiKeys[0] ("a")'],
    ["a plain key named as another's place", ["k", { name: "key-1", key: "l" }], "the name is already apiKeys[0]'s"],
    ["every key expired", [{ name: "a", key: "k", expires: "2020-01-01T00:00:00Z" }], "every key has expired"],
  ])("refuses %s with a RangeError naming it, never echoing a key", (_, keys, message) => {
    expect(() => createKeyRing(keys as never)).toThrow(message);
    try {
      createKeyRing(keys as never);
    } catch (error) {
      expect((error as Error).message).not.toContain(hashOf("k").slice(7));
    }
  });

  test("a bad replace keeps the keys the ring had", () => {
    const keys = createKeyRing([{ name: "a", key: "k" }]);
    expect(() => keys.replace([{ name: "a", key: "bad key" }])).toThrow(RangeError);
    expect(keys.keyOf(new Request("http://x/", { headers: bearer("k") })).key?.name).toBe("a");
  });

  test("replace counts by name what was added, removed, kept and, of those, changed", () => {
    const keys = createKeyRing([{ name: "a", key: "k1" }, { name: "b", key: "k2" }, { name: "c", key: "k3" }]);
    const changes = keys.replace([{ name: "a", key: "k1" }, { name: "b", key: "k2", scope: "read" }, { name: "d", key: "k4" }, { name: "e", key: "k5" }]);
    expect(changes).toEqual({ added: 2, removed: 1, kept: 2, changed: 1 });
    expect(keys.size).toBe(4);
  });

  test("a key past its expiry answers 401 saying so, with RFC 6750's description, and names no other key", async () => {
    const app = createApp({ store: createMemoryStore(), apiKeys: [{ name: "old", key: "k", expires: "2020-01-01T00:00:00Z" }, { name: "new", key: "l" }] });
    const response = await call(app, "/v1/pets", { headers: bearer("k") });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="animal-store", error="invalid_token", error_description="The access token expired"');
    const error = await errorOf(response);
    expect(error).toEqual({ code: "unauthorized", status: 401, message: "Expired API key: this key expired at 2020-01-01T00:00:00.000Z; use the key that replaces it" });
    expect((await call(app, "/v1/pets", { headers: bearer("l") })).status).toBe(200);
  });

  test("a key expires at its time while the app serves, with no restart", async () => {
    const expires = new Date(Date.now() + 300);
    const app = createApp({ store: createMemoryStore(), apiKeys: [{ name: "soon", key: "k", expires }, "l"] });
    expect((await call(app, "/v1/pets", { headers: bearer("k") })).status).toBe(200);
    while (Date.now() < expires.getTime()) await Bun.sleep(expires.getTime() - Date.now());
    expect((await call(app, "/v1/pets", { headers: bearer("k") })).status).toBe(401);
  });
});

describe("a key of scope read", () => {
  const app = () => createApp({ store: createMemoryStore(), apiKeys: ["writer", { name: "reports", key: "reader", scope: "read" }] });

  test("may list, get and HEAD", async () => {
    const pets = app();
    expect((await call(pets, "/v1/pets", { method: "POST", headers: json("writer"), body: PET })).status).toBe(201);
    for (const [method, path] of [["GET", "/v1/pets"], ["HEAD", "/v1/pets"], ["GET", "/v1/pets/1"], ["HEAD", "/v1/pets/1"]]) {
      expect({ method, path, status: (await call(pets, path!, { method: method!, headers: bearer("reader") })).status }).toEqual({ method, path, status: 200 });
    }
  });

  test("gets 403 insufficient_scope on POST /v1/pets, before the body is read, and nothing is stored", async () => {
    const pets = app();
    const response = await call(pets, "/v1/pets", { method: "POST", headers: json("reader"), body: "not json" });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="animal-store", error="insufficient_scope", scope="write"');
    expect(await errorOf(response)).toEqual({
      code: "insufficient_scope",
      status: 403,
      message: "Cannot POST /v1/pets: this API key may only read (scope read: GET, HEAD, OPTIONS); use a key of scope write",
    });
    expect(await (await call(pets, "/v1/pets", { headers: bearer("writer") })).json()).toEqual([]);
  });

  test("gets 404 and 405 before 403: a path or method that does not exist says so first", async () => {
    const pets = app();
    expect((await call(pets, "/v1/nowhere", { method: "POST", headers: bearer("reader") })).status).toBe(404);
    expect((await call(pets, "/v1/pets/1", { method: "POST", headers: bearer("reader") })).status).toBe(405);
  });
});

describe("a host replacing keys while requests run (issue 50)", () => {
  /** A store whose creates and lists wait a moment, so requests are in flight across replaces. */
  function slowStore(): PetStore {
    const store = createMemoryStore();
    const later = <T>(value: Promise<T>) => value.then(async (done) => (await Bun.sleep(Math.random() * 3), done));
    return { ...store, create: (pet) => later(store.create(pet)), list: (query) => later(store.list(query)) };
  }

  /** Notes, for every answer, its status and the name the ring gave its request: what the access log and traces would say. */
  function noting(keys: KeyRing, seen: { status: number; name: string | undefined }[]): Wrap {
    return (app: App) => ({
      fetch: async (request, connection) => {
        const answer = await app.fetch(request, connection);
        seen.push({ status: answer.status, name: keys.keyOf(request).key?.name });
        return answer;
      },
      onError: app.onError,
    });
  }

  test("no request is answered by a mixture of the old and the new keys: its answer and the name the log would give are from one set", async () => {
    // The same key in both sets, under another name and scope: set A lets it write as "a", set B only read as "b".
    const setA = [{ name: "a", key: "shared" }, { name: "other-a", key: "x" }];
    const setB = [{ name: "b", key: "shared", scope: "read" as const }, { name: "other-b", key: "y" }];
    const keys = createKeyRing(setA);
    const seen: { status: number; name: string | undefined }[] = [];
    const app = noting(keys, seen)(createApp({ store: slowStore(), apiKeys: keys, plugs: [rateLimit({ requests: 1_000_000, seconds: 1 })] }));
    let replacing = true;
    let replaces = 0;
    const replacer = (async () => {
      while (replacing) {
        keys.replace(++replaces % 2 === 1 ? setB : setA);
        await Bun.sleep(1);
      }
    })();
    const answers: Promise<Response>[] = [];
    // Waves of requests, a turn of the event loop apart, while the keys change under them and earlier ones are still in flight.
    for (let wave = 0; wave < 100; wave++) {
      for (let i = 0; i < 20; i++) {
        answers.push(i % 2 === 0
          ? call(app, "/v1/pets", { method: "POST", headers: json("shared"), body: PET })
          : call(app, "/v1/pets?limit=1", { headers: bearer("shared") }));
      }
      await Bun.sleep(1);
    }
    await Promise.all(answers);
    replacing = false;
    await replacer;
    const pairs = [...new Set(seen.map(({ status, name }) => `${status} ${name}`))].sort();
    // A create: 201 as "a" (set A), 403 as "b" (set B); a list: 200 as either. Never 201 as "b" or 403 as "a".
    expect({ replaces: replaces > 10, answered: seen.length, pairs }).toEqual({ replaces: true, answered: 2000, pairs: ["200 a", "200 b", "201 a", "403 b"] });
  });
});
