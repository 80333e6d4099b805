/**
 * @module
 * The private `_answerHeaders` device (`src/_internal/_header-records.ts`): headers an adapter asks the
 * core to write into every answer to one request as it makes it (Bun's `Keep-Alive`), given on the
 * request's connection. Every answer of the core's carries them, each in its own `Headers`; the core
 * notes the answers that keep their connection (its successes) so the adapter leaves them as they are,
 * and no answer to a request that did not ask for them carries them.
 */
import { describe, expect, test } from "bun:test";
import type { ConnectionInfo } from "../src/mod.ts";
import type { _AnswerHeaders, _CarryingAnswerHeaders } from "../src/_internal/_header-records.ts";
import { AUTH, createPets, testApp } from "./helpers.ts";

/** A request to the test app, authenticated unless told otherwise. */
function request(path: string, init: RequestInit = {}): Request {
  return new Request(`http://pets.test${path}`, { ...init, headers: { ...AUTH, ...init.headers } });
}

/** A connection asking for `Keep-Alive: timeout=7` on every answer, and the answers the core noted. */
function announcing(): { connection: ConnectionInfo & _CarryingAnswerHeaders; asked: _AnswerHeaders } {
  const asked: _AnswerHeaders = { headers: Object.freeze({ "keep-alive": "timeout=7" }), carried: new WeakSet() };
  return { connection: { _answerHeaders: asked }, asked };
}

/** Requests to an app holding three pets, with the status each is answered, and whether the core notes its answer. */
const REQUESTS: readonly [string, () => Request, number, boolean][] = [
  ["a pet (a deprecated route: its own headers too)", () => request("/v1/pets/1"), 200, true],
  ["a pet the client holds", () => request("/v1/pets/1", { headers: { "if-none-match": "*" } }), 304, true],
  ["a page", () => request("/v1/pets?limit=2"), 200, true],
  ["the last page", () => request("/v1/pets"), 200, true],
  ["a create", () => request("/v1/pets", { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"Ada","categoryId":1}' }), 201, true],
  ["a pet that does not exist", () => request("/v1/pets/99"), 404, false],
  ["a request without a key", () => new Request("http://pets.test/v1/pets/1"), 401, false],
  ["a body over the limit, which closes its connection", () => request("/v1/pets", { method: "POST", headers: { "content-type": "application/json" }, body: `{"name":"${"a".repeat(70_000)}"}` }), 413, false],
  ["a HEAD (a copy of its GET)", () => request("/v1/pets/1", { method: "HEAD" }), 200, false],
];

describe("headers an adapter asks the core to write into its answers", () => {
  for (const [what, sent, status, noted] of REQUESTS) {
    test(`${what}: answered ${status} with them, ${noted ? "noted as keeping its connection" : "not noted (the adapter finishes it)"}; without them asked, none`, async () => {
      const app = testApp();
      await createPets(app, [{ name: "Rex", categoryId: 1 }, { name: "Tom", categoryId: 2 }, { name: "Kit", categoryId: 1 }]);
      const { connection, asked } = announcing();
      const answer = await app.fetch(sent(), connection);
      expect(answer.status).toBe(status);
      expect(answer.headers.get("keep-alive")).toBe("timeout=7");
      expect(asked.carried.has(answer)).toBe(noted);
      const plain = await app.fetch(sent(), {});
      expect(plain.headers.get("keep-alive")).toBeNull();
    });
  }

  test("answers to requests that asked and that did not, in turn, each carry what their own request asked, in a Headers of their own", async () => {
    const app = testApp();
    await createPets(app, [{ name: "Rex", categoryId: 1 }]);
    const first = announcing();
    const second = announcing();
    const answers = [];
    for (const connection of [first.connection, {}, second.connection, undefined, first.connection]) answers.push(await app.fetch(request("/v1/pets/1"), connection));
    expect(answers.map((answer) => answer.headers.get("keep-alive"))).toEqual(["timeout=7", null, "timeout=7", null, "timeout=7"]);
    answers[0]!.headers.set("keep-alive", "timeout=1");
    expect(answers[4]!.headers.get("keep-alive")).toBe("timeout=7");
    expect(answers.map((answer) => answer.headers.get("deprecation"))).toEqual(Array(5).fill(answers[1]!.headers.get("deprecation")));
    expect(answers[1]!.headers.get("deprecation")).not.toBeNull();
  });
});
