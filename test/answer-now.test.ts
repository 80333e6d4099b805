/**
 * @module
 * The private `_answerNow` device (`src/_internal/_answer-now.ts`): a request whose store reads at
 * once is answered with a `Response`, not a promise, by the app, the access log and draining. Every
 * answer and every effect stays what the promise path gives: a read that throws at once is the same
 * 500 and report as one that rejects, and whatever does not know the device (a host's wrap, a store of
 * its own, a wrapper that replaces a read) gets the public promise path. A create waits for its body
 * and then, with a store that creates at once, adds no turn of its own.
 */
import { describe, expect, test } from "bun:test";
import type { App, PetStore, Wrap } from "../src/mod.ts";
import { createMemoryStore, setHeaders, StoreUnavailableError, wrapStore } from "../src/mod.ts";
import { _answerNowOf } from "../src/_internal/_answer-now.ts";
import { _methodNow } from "../src/_internal/stores.ts";
import { createAccessLog } from "../adapters/server/access-log.ts";
import { createDraining } from "../adapters/_draining.ts";
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { AUTH, createPets, testApp } from "./helpers.ts";
import { tempDataFile } from "./temp.ts";

/** A request to the test apps, authenticated unless told otherwise. */
function request(path: string, init: RequestInit = {}): Request {
  return new Request(`http://pets.test${path}`, { ...init, headers: { ...AUTH, ...init.headers } });
}

/** An answer's status, headers and body, to compare two answers by. */
async function partsOf(response: Response): Promise<[number, [string, string][], string]> {
  return [response.status, [...response.headers], await response.text()];
}

/** An app over a memory store holding three pets. */
async function appWithPets(store: PetStore = createMemoryStore()): Promise<App> {
  const app = testApp({ store });
  await createPets(app, [{ name: "Rex", categoryId: 1, status: "available" }, { name: "Tom", categoryId: 2, status: "sold" }, { name: "Kit", categoryId: 1, status: "available" }]);
  return app;
}

/** A wrap that does not know the device: it marks every answer, through the app's `fetch`. */
const marked: Wrap = (app) => ({
  fetch: (request, connection) => app.fetch(request, connection).then((response) => setHeaders(response, { "x-marked": "yes" })),
  onError: app.onError,
});

/** Requests answered without waiting on anything (the store reads at once), with the status each answers. */
const READS: readonly [string, Request, number][] = [
  ["a pet", request("/v1/pets/1"), 200],
  ["a 304 for a pet the client holds", request("/v1/pets/1", { headers: { "if-none-match": "*" } }), 304],
  ["a pet that does not exist", request("/v1/pets/99"), 404],
  ["a page with a next page", request("/v1/pets?limit=2"), 200],
  ["the last page, filtered", request("/v1/pets?status=available&after=1"), 200],
  ["a refused query", request("/v1/pets?limit=0"), 400],
  ["a request without a key", new Request("http://pets.test/v1/pets/1"), 401],
  ["an unknown path", request("/v1/nowhere"), 404],
];

describe("an answer now", () => {
  for (const [what, sent, status] of READS) {
    test(`${what} is answered now (${status}) by a memory store's app, the same as its fetch answers`, async () => {
      const app = await appWithPets();
      const now = _answerNowOf(app)(sent.clone());
      expect(now).toBeInstanceOf(Response);
      expect((now as Response).status).toBe(status);
      const promised = app.fetch(sent.clone());
      expect(promised).toBeInstanceOf(Promise);
      expect(await partsOf(now as Response)).toEqual(await partsOf(await promised));
    });
  }

  test("the JSON-file store's reads answer now too (its pets are in memory), as its fetch answers, a create written first", async () => {
    const store = await openJsonFileStore(tempDataFile(), { logger: { info: () => {}, warn: () => {} } });
    try {
      const app = await appWithPets(store);
      for (const [, sent, status] of READS.slice(0, 5)) {
        const now = _answerNowOf(app)(sent.clone());
        expect(now).toBeInstanceOf(Response);
        expect((now as Response).status).toBe(status);
        expect(await partsOf(now as Response)).toEqual(await partsOf(await app.fetch(sent.clone())));
      }
    } finally {
      await store.close();
    }
  });

  test("a create waits for its store, and a HEAD for its answer's body: both are promises, answered as fetch answers them", async () => {
    const app = await appWithPets();
    const create = _answerNowOf(app)(request("/v1/pets", { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"Ada","categoryId":3}' }));
    expect(create).toBeInstanceOf(Promise);
    expect((await create).status).toBe(201);
    const head = _answerNowOf(app)(request("/v1/pets/4", { method: "HEAD" }));
    expect(head).toBeInstanceOf(Promise);
    expect(await partsOf(await head)).toEqual(await partsOf(await app.fetch(request("/v1/pets/4", { method: "HEAD" }))));
  });

  test("a store without the device, or wrapped (the metrics, the traces), is asked through its promise, and every read reaches the wrapper", async () => {
    const store = createMemoryStore();
    const seen: string[] = [];
    const app = await appWithPets(wrapStore(store, (method, _label, call) => (seen.push(method), call())));
    const plain = await appWithPets();
    for (const [, sent, status] of READS.slice(0, 5)) {
      const answer = _answerNowOf(app)(sent.clone());
      expect(answer).toBeInstanceOf(Promise);
      const response = await answer;
      expect(response.status).toBe(status);
      expect(await partsOf(response)).toEqual(await partsOf(await plain.fetch(sent.clone())));
    }
    expect(seen).toEqual(["create", "create", "create", "get", "get", "get", "list", "list"]);
  });

  test("a store spread with its read replaced answers the replacement, not the read underneath", async () => {
    const memory = createMemoryStore();
    const app = await appWithPets({ ...memory, get: () => Promise.resolve(undefined) });
    expect((await app.fetch(request("/v1/pets/1"))).status).toBe(404);
    expect((await app.fetch(request("/v1/pets"))).status).toBe(200);
  });

  test("a read that throws now answers the same 500, reported the same, as one that throws later or rejects", async () => {
    const failure = new Error("disk gone");
    const reads: readonly [string, PetStore["get"]][] = [
      ["rejects", () => Promise.reject(failure)],
      ["throws in an async read", async () => {
        throw failure;
      }],
      ["throws before its promise", () => {
        throw failure;
      }],
      ["throws now (the device)", _methodNow(() => {
        throw failure;
      })],
    ];
    const answers: [number, [string, string][], string][] = [];
    for (const [, get] of reads) {
      const reported: [unknown, string | undefined][] = [];
      const app = testApp({ store: { ...createMemoryStore(), get }, onError: (error, request) => reported.push([error, request?.url]) });
      const answer = app.fetch(request("/v1/pets/1"));
      expect(answer).toBeInstanceOf(Promise);
      answers.push(await partsOf(await answer));
      expect(reported).toEqual([[failure, "http://pets.test/v1/pets/1"]]);
    }
    expect(answers[0]![0]).toBe(500);
    for (const answer of answers) expect(answer).toEqual(answers[0]!);
  });

  test("a store that cannot serve now answers 503 whether its read throws now or rejects", async () => {
    const unavailable = new StoreUnavailableError("the disk failed");
    const now = testApp({ store: { ...createMemoryStore(), list: _methodNow(() => { throw unavailable; }) } });
    const later = testApp({ store: { ...createMemoryStore(), list: () => Promise.reject(unavailable) } });
    const [a, b] = [await now.fetch(request("/v1/pets")), await later.fetch(request("/v1/pets"))];
    expect(a.status).toBe(503);
    expect(await partsOf(a)).toEqual(await partsOf(b));
  });
});

/** A create of `body` (JSON text, or bytes) with a declared length. */
function createRequest(body: string | Uint8Array<ArrayBuffer>): Request {
  return request("/v1/pets", { method: "POST", headers: { "content-type": "application/json" }, body });
}

/** How many turns of the microtask queue pass before `answer` settles. */
async function turnsUntil(answer: Promise<unknown>): Promise<number> {
  let settled = false;
  void answer.then(() => (settled = true));
  let turns = 0;
  for (; !settled && turns < 100; turns++) await Promise.resolve();
  return turns;
}

/** A memory store whose create waits for a promise of its own: the promise path, the same pets. */
function waitingStore(): PetStore {
  const memory = createMemoryStore();
  return { ...memory, create: async (pet) => await memory.create(pet) };
}

/** Creates, each with the status it answers: the 201s and the body's refusals, read after the body's one wait. */
const CREATES: readonly [string, () => Request, number][] = [
  ["a pet", () => createRequest('{"name":"Ada","categoryId":3,"status":"sold"}'), 201],
  ["a pet after a byte order mark", () => createRequest(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"name":"Bo","categoryId":1}')])), 201],
  ["a pet with a name past the BMP", () => createRequest('{"name":"Ada 🐈","categoryId":3}'), 201],
  ["a body that is not UTF-8", () => createRequest(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d])), 400],
  ["a body that is not JSON", () => createRequest("{"), 400],
  ["a body missing a field", () => createRequest('{"name":"Ada"}'), 400],
  ["a body over the limit", () => createRequest(`{"name":"${"y".repeat(65536)}","categoryId":1}`), 413],
  ["a body that is not JSON by its type", () => request("/v1/pets", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }), 415],
];

describe("a create whose store creates now", () => {
  test("is answered as soon as a body the validator refuses: the store's create adds no turn after the body's", async () => {
    const app = testApp();
    const created = await turnsUntil(app.fetch(createRequest('{"name":"Ada","categoryId":3}')));
    const refused = await turnsUntil(app.fetch(createRequest('{"name":"Ada"}')));
    expect(created).toBeLessThanOrEqual(refused);
    expect(await turnsUntil(testApp({ store: waitingStore() }).fetch(createRequest('{"name":"Ada","categoryId":3}')))).toBeGreaterThan(created);
  });

  for (const [what, make, status] of CREATES) {
    test(`${what} answers ${status} with the same bytes as with a store whose create waits, and stores the same`, async () => {
      const [now, later] = [testApp(), testApp({ store: waitingStore() })];
      const [a, b] = [await now.fetch(make()), await later.fetch(make())];
      expect(a.status).toBe(status);
      expect(await partsOf(a)).toEqual(await partsOf(b));
      expect(await partsOf(await now.fetch(request("/v1/pets")))).toEqual(await partsOf(await later.fetch(request("/v1/pets"))));
    });
  }

  test("a create that throws now answers the same 500, reported the same, as one that rejects; a store that cannot serve, the same 503", async () => {
    for (const failure of [new Error("disk gone"), new StoreUnavailableError("the disk failed")]) {
      const answers: [number, [string, string][], string][] = [];
      const reports: unknown[][] = [];
      for (const create of [_methodNow(() => { throw failure; }), () => Promise.reject(failure)]) {
        const reported: unknown[] = [];
        const app = testApp({ store: { ...createMemoryStore(), create }, onError: (error) => reported.push(error) });
        answers.push(await partsOf(await app.fetch(createRequest('{"name":"Ada","categoryId":3}'))));
        reports.push(reported);
      }
      expect(answers[0]![0]).toBe(failure instanceof StoreUnavailableError ? 503 : 500);
      expect(answers[0]).toEqual(answers[1]!);
      expect(reports[0]).toEqual(reports[1]!);
    }
  });
});

describe("an answer now through the wraps and draining", () => {
  test("the access log notes an answer now and passes it on now, with its X-Request-Id; its fetch still promises", async () => {
    const lines: string[] = [];
    const log = createAccessLog({ format: "json", write: (line) => lines.push(line), writeError: () => {} });
    const app = log.wrap(await appWithPets());
    const now = _answerNowOf(app)(request("/v1/pets/2", { headers: { "x-request-id": "abc-1" } }));
    expect(now).toBeInstanceOf(Response);
    expect((now as Response).headers.get("x-request-id")).toBe("abc-1");
    expect(app.fetch(request("/v1/pets/2"))).toBeInstanceOf(Promise);
    log.flush();
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: "abc-1", method: "GET", target: "/v1/pets/2", status: 200 });
  });

  test("a wrap that does not know the device gets the promise path, inside or outside the log, and every answer carries both wraps' marks", async () => {
    const lines: string[] = [];
    const log = createAccessLog({ format: "json", write: (line) => lines.push(line), writeError: () => {} });
    for (const app of [log.wrap(marked(await appWithPets())), marked(log.wrap(await appWithPets()))]) {
      const answer = _answerNowOf(app)(request("/v1/pets/1"));
      expect(answer).toBeInstanceOf(Promise);
      const response = await answer;
      expect([response.status, response.headers.get("x-marked"), response.headers.has("x-request-id")]).toEqual([200, "yes", true]);
    }
    log.flush();
    expect(lines.map((line) => JSON.parse(line).status)).toEqual([200, 200]);
  });

  test("an app spread with its fetch replaced (`{ ...app, fetch }`) is answered by the replacement, not the answer now underneath", async () => {
    const app = await appWithPets();
    const replaced: App = { ...app, fetch: (request, connection) => app.fetch(request, connection).then((response) => setHeaders(response, { "x-replaced": "yes" })) };
    const answer = _answerNowOf(replaced)(request("/v1/pets/1"));
    expect(answer).toBeInstanceOf(Promise);
    expect((await answer).headers.get("x-replaced")).toBe("yes");
    expect((await createDraining(_answerNowOf(replaced)).handler(request("/v1/pets/1"))).headers.get("x-replaced")).toBe("yes");
  });

  test("draining passes an answer now on now, counts it in flight until then, and drains at once after it", async () => {
    const app = await appWithPets();
    const draining = createDraining(_answerNowOf(app));
    const answer = draining.handler(request("/v1/pets/1"));
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(200);
    expect(await draining.drain()).toBe("answered");
  });

  test("draining turns a handler's throw now and a non-Response now into rejections, as it did for promises, and counts neither in flight after", async () => {
    const failure = new Error("wrap broke");
    const throwing = createDraining(() => {
      throw failure;
    });
    const thrown = throwing.handler(request("/v1/pets/1"));
    expect(thrown).toBeInstanceOf(Promise);
    expect(thrown).rejects.toBe(failure);
    const wrong = createDraining(() => "not an answer" as unknown as Response);
    const answered = wrong.handler(request("/v1/pets/1"));
    expect(answered).toBeInstanceOf(Promise);
    expect(answered).rejects.toThrow("The app answered GET /v1/pets/1 with string, not a Response");
    await Promise.allSettled([thrown, answered]);
    expect(await throwing.drain()).toBe("answered");
    expect(await wrong.drain()).toBe("answered");
  });
});
