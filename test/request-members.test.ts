/**
 * @module
 * A wrap may use every member of the request it is given on every adapter, as of a real `Request`: the
 * body read once (each way, on clones of its own), `bodyUsed`, `clone()` giving two readable bodies, a
 * body partly read through its stream counting as used, and `signal` aborting when the client goes away
 * before the answer. On Node (`serveNode`, on Node and on Deno) the request is the lazy look-alike, whose
 * fixed members are the Fetch standard's for a request made from a URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { openSocket, rawExchange } from "./raw-http.ts";
import { FETCH_DEFAULTS } from "./fixtures/request-members.ts";
import type { WrapServer } from "./wrap-servers.ts";
import { startWrapServer, stopWrapServers, WRAP_TARGETS } from "./wrap-servers.ts";

afterAll(stopWrapServers);

const JSON_BODY = '{"name":"Rex","categoryId":1}';
const FORM_BODY = "name=Rex&tag=a&tag=b";

/** A POST of `body` to /v1/pets, with a `Content-Length`, chunked in two chunks, or unfinished (its first chunk alone). */
function post(body: string, contentType: string, framing: "length" | "chunked" | "unfinished", use = "every"): string {
  const head = `POST /v1/pets HTTP/1.1\r\nHost: pets.test\r\nAuthorization: Bearer key\r\nContent-Type: ${contentType}\r\nX-Use: ${use}\r\nConnection: close\r\n`;
  if (framing === "length") return `${head}Content-Length: ${body.length}\r\n\r\n${body}`;
  const half = Math.floor(body.length / 2);
  const chunk = (part: string) => `${part.length.toString(16)}\r\n${part}\r\n`;
  const first = `${head}Transfer-Encoding: chunked\r\n\r\n${chunk(body.slice(0, half))}`;
  return framing === "unfinished" ? first : `${first}${chunk(body.slice(half))}0\r\n\r\n`;
}

/** What the wrap said of a request, answered whole. */
async function reported(server: WrapServer, request: string): Promise<Record<string, unknown>> {
  const exchange = await rawExchange(server.url, [request], { timeoutMs: 10_000 });
  expect(exchange.status).toBe(200);
  return JSON.parse(exchange.body);
}

/**
 * Whether the runtime `binary` runs has `textStream()` on its own `Request` (Bun's and Deno's; Node's
 * from 26 on), asked of the runtime itself, so the expectation follows whichever line runs the suite.
 */
function hasTextStream(binary: string): boolean {
  const code = 'console.log("textStream" in Request.prototype)';
  const argv = basename(binary) === "deno" ? [binary, "eval", code] : [binary, "-e", code];
  const asked = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (asked.exitCode !== 0) throw new Error(`Cannot ask ${binary} about its Request: ${asked.stderr.toString()}`);
  return asked.stdout.toString().trim() === "true";
}

/**
 * What every member gives for a body: the app reads it (a create) or refuses it unread (a 415). Bun's
 * `blob()` of a request has no type (Bun's own: its `Request` keeps none); elsewhere it is the request's
 * media type. Where the runtime's `Request` has `textStream()`, it is used after the app.
 */
function expectedUse(runtime: string, textStreams: boolean, body: string, contentType: string, read: Record<string, unknown>, answered: 201 | 415): Record<string, unknown> {
  const blob = { value: [runtime === "bun" ? "" : contentType, body] };
  const used = { threw: "TypeError" };
  // Then textStream() or text() reads it if the app did not, and clone() refuses it.
  const textStream = textStreams ? { textStream: answered === 201 ? used : { value: body } } : {};
  const after = answered === 201 ? { bodyUsed: true, ...textStream, text: used } : { bodyUsed: false, ...textStream, text: textStreams ? used : { value: body } };
  return {
    before: { missing: [], method: "POST", url: "http://pets.test/v1/pets", bodyUsed: false, hasBody: true, aborted: false },
    read: { text: { value: body }, arrayBuffer: { value: body }, bytes: { value: body }, blob, body: { value: body }, ...read },
    answered,
    after: { ...after, clone: { threw: "TypeError" }, aborted: false },
    copy: { method: "POST", url: "http://pets.test/v1/pets", contentType, bodyUsed: false, text: body, aborted: false },
  };
}

describe.each(WRAP_TARGETS)("a wrap using every member of the request, %s", (_name, serve, command) => {
  const runtime = basename(command[0]!);
  const textStreams = hasTextStream(command[0]!);
  let server: WrapServer;
  beforeAll(async () => {
    server = await startWrapServer(command, serve, "request");
  }, 30_000);
  afterAll(() => server.child.kill("SIGKILL"));

  /** The wrap's report, its fixed members checked where the request is ours (Bun's and Deno's are theirs) and then left out. */
  const used = async (request: string) => {
    const { fixed, ...rest } = await reported(server, request);
    if (serve === "node") expect(fixed).toEqual(FETCH_DEFAULTS);
    return rest;
  };

  for (const framing of ["length", "chunked"] as const) {
    test(`a JSON create (${framing === "length" ? "Content-Length" : "chunked"}): each reader of a clone gives the body, the app reads the request's and creates, then the body is used and a clone kept before still reads it`, async () => {
      const json = { json: { value: { name: "Rex", categoryId: 1 } }, formData: { threw: "TypeError" } };
      expect(await used(post(JSON_BODY, "application/json", framing))).toEqual(expectedUse(runtime, textStreams, JSON_BODY, "application/json", json, 201));
    }, 20_000);
  }

  test("a form: formData() of a clone gives its fields, json() refuses it, and the app answers 415 leaving the body unread", async () => {
    const form = { json: { threw: "SyntaxError" }, formData: { value: [["name", "Rex"], ["tag", "a"], ["tag", "b"]] } };
    const contentType = "application/x-www-form-urlencoded";
    expect(await used(post(FORM_BODY, contentType, "length"))).toEqual(expectedUse(runtime, textStreams, FORM_BODY, contentType, form, 415));
  }, 20_000);

  for (const framing of ["length", "chunked"] as const) {
    test(`a body partly read through its stream (${framing === "length" ? "Content-Length" : "chunked"}) is used: text() and clone() refuse it, and the app answers 400`, async () => {
      const after = { first: "a chunk", bodyUsed: true, text: { threw: "TypeError" }, clone: { threw: "TypeError" }, answered: 400 };
      expect(await used(post(JSON_BODY, "application/json", framing, "part"))).toEqual(after);
    }, 20_000);
  }

  /**
   * A request the wrap waits on: without a body, with a whole body, and with a chunked one still on its
   * way; `Deno.serve` aborts no signal while a request's body is still coming (Deno's own), so not there.
   */
  const waiting = {
    "a GET": "GET /v1/pets HTTP/1.1\r\nHost: pets.test\r\nAuthorization: Bearer key\r\nX-Use: abort\r\n\r\n",
    "a POST with its body": post(JSON_BODY, "application/json", "length", "abort"),
    ...(serve === "deno" ? {} : { "a POST whose chunked body is still on its way": post(JSON_BODY, "application/json", "unfinished", "abort") }),
  };
  for (const [kind, request] of Object.entries(waiting)) {
    test(`the signal of ${kind} and its clone's are not aborted while the client waits, and abort once it goes away before the answer`, async () => {
      /** Waits until the fixture has printed `text` `times` times (up to 10 s); whether it has. */
      const printed = async (text: string, times: number) => {
        const count = () => server.output().split(text).length - 1;
        for (let waited = 0; count() < times && waited < 10_000; waited += 20) await Bun.sleep(20);
        return count() === times;
      };
      const earlier = server.output().split("waiting for the client to go away").length - 1;
      const socket = openSocket(server.url);
      socket.on("error", () => {});
      socket.write(request);
      expect(await printed("waiting for the client to go away", earlier + 1)).toBe(true);
      socket.destroy();
      expect(await printed("signal: aborted at first false, then AbortError, its clone's AbortError", earlier + 1)).toBe(true);
    }, 20_000);
  }
});
