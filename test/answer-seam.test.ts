/**
 * @module
 * The answer seam: a `Wrap` around the app, and `setHeaders`, which changes an answer in place where
 * it may (Node's `FastResponse` keeps its fast text body) and copies it where its headers are
 * immutable, on Bun, Deno and Node.
 */
import { describe, expect, test } from "bun:test";
import type { App, Wrap } from "../src/mod.ts";
import { setHeaders } from "../src/mod.ts";
import { FastResponse } from "../adapters/node.ts";
import { get, testApp } from "./helpers.ts";
import { NODE_TS } from "./node-ts.ts";

/** A wrap that marks every answer, as a feature on the seam would. */
const marked: Wrap = (app: App) => ({
  fetch: (request, connection) => app.fetch(request, connection).then((response) => setHeaders(response, { "x-marked": request.method })),
  onError: app.onError,
});

/** The same check run by another runtime: setHeaders on an answer of `Response.redirect`, whose headers that runtime makes immutable. */
async function redirectMarkedBy(command: string[]): Promise<string> {
  const script = `import { setHeaders } from "./src/mod.ts";
const redirect = Response.redirect("http://a.example/", 302);
const marked = setHeaders(redirect, { "x-marked": "yes" });
console.log(JSON.stringify([marked === redirect, marked.status, marked.headers.get("location"), marked.headers.get("x-marked")]));`;
  const child = Bun.spawn([...command, script], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(err);
  return out.trim();
}

describe("the answer seam", () => {
  test("a wrap sees every answer, the core's errors included, and its headers reach the client", async () => {
    const app = marked(testApp());
    expect((await get(app, "/v1/pets")).headers.get("x-marked")).toBe("GET");
    expect((await get(app, "/nowhere")).headers.get("x-marked")).toBe("GET");
  });

  test("setHeaders sets the headers on the answer itself, replacing values it had", () => {
    const answer = new Response("x", { headers: { "x-a": "1", "content-type": "text/plain" } });
    expect(setHeaders(answer, { "x-a": "2", "x-b": "3" })).toBe(answer);
    expect([...answer.headers]).toEqual([["content-type", "text/plain"], ["x-a", "2"], ["x-b", "3"]]);
  });

  test("on Node's FastResponse the text body stays on the fast path, with the new headers", () => {
    const answer = new FastResponse('{"a":1}', { status: 201, headers: { "content-type": "application/json" } });
    const marked = setHeaders(answer as unknown as Response, { "x-request-id": "abc" }) as unknown as FastResponse;
    expect(marked).toBe(answer);
    expect(marked.toNodeParts()).toEqual({ status: 201, headers: { "content-type": "application/json", "x-request-id": "abc" }, body: '{"a":1}' });
  });

  test("an answer whose headers are immutable is copied: same status, headers and body, plus the new ones", async () => {
    const answer = new Response("moved", { status: 302, statusText: "Found", headers: { location: "/there" } });
    const immutable = new Headers(answer.headers);
    immutable.set = () => {
      throw new TypeError("Headers are immutable");
    };
    Object.defineProperty(answer, "headers", { value: immutable });
    const copy = setHeaders(answer, { "x-marked": "yes" });
    expect(copy).not.toBe(answer);
    expect([copy.status, copy.statusText, copy.headers.get("location"), copy.headers.get("x-marked"), await copy.text()]).toEqual([302, "Found", "/there", "yes", "moved"]);
  });

  test("Deno and Node copy an answer of Response.redirect (immutable headers there); Bun sets them in place", async () => {
    expect(await redirectMarkedBy(["node_modules/.bin/deno", "eval", "--ext=ts"])).toBe('[false,302,"http://a.example/","yes"]');
    expect(await redirectMarkedBy([...NODE_TS, "--input-type=module", "--eval"])).toBe('[false,302,"http://a.example/","yes"]');
    expect(await redirectMarkedBy(["node_modules/.bin/bun", "--eval"])).toBe('[true,302,"http://a.example/","yes"]');
  }, 60_000);

  test("a header value the Fetch API refuses is refused with a TypeError, in place or copied", () => {
    expect(() => setHeaders(new Response("x"), { "x-a": "line\nbreak" })).toThrow(TypeError);
    expect(() => setHeaders(Response.redirect("http://a.example/"), { "x-a": "line\nbreak" })).toThrow(TypeError);
  });
});
