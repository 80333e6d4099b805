import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createApp } from "../src/app.ts";
import { createMemoryStore } from "../src/memory-store.ts";
import { NODE_TS } from "./node-ts.ts";

/** The Node bridge for any Fetch API handler, run on real Node (through the loader `npm run start:node` uses). */
describe("toNodeListener on Node", () => {
  let child: ReturnType<typeof Bun.spawn>;
  let base = "";
  let output = "";
  beforeAll(async () => {
    child = Bun.spawn([...NODE_TS, "test/fixtures/node-bridge-server.ts"], { stdout: "pipe", stderr: "pipe" });
    const decoder = new TextDecoder();
    const collect = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
    };
    void collect(child.stdout as ReadableStream<Uint8Array>);
    void collect(child.stderr as ReadableStream<Uint8Array>);
    const started = Date.now();
    while (!/listening on (\S+)/.test(output) && Date.now() - started < 15_000) await Bun.sleep(20);
    base = /listening on (\S+)/.exec(output)?.[1] ?? "";
    expect(base).not.toBe("");
  }, 20_000);
  afterAll(() => {
    child.kill("SIGKILL");
  });

  /** How often the server has printed `text`, once it has printed it at all (its output is piped, so it may trail the answer). */
  const timesLogged = async (text: string) => {
    for (let waited = 0; !output.includes(text) && waited < 3000; waited += 20) await Bun.sleep(20);
    return output.split(text).length - 1;
  };

  test("a handler that throws answers 500 with the error object, is logged, and the server keeps serving", async () => {
    const response = await fetch(`${base}/throw`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ code: "internal_error", message: "An unexpected error occurred", status: 500 });
    expect((await fetch(`${base}/ok`)).status).toBe(200);
    expect(output).toContain("logged: handler failed on purpose");
  });

  test("without onError, a handler's throw is printed with the bridge's name", async () => {
    expect((await fetch(`${base}/default/throw`)).status).toBe(500);
    expect(await timesLogged("animal-store (toNodeListener): Error: handler failed on purpose")).toBe(1);
  });

  /** A POST whose body the stand-in parser named `parser` reads before the bridge. */
  const afterParser = (path: string, parser: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: "POST", body, headers: { "x-parser": parser, ...headers }, signal: AbortSignal.timeout(3000) });
  const SERVICE = { authorization: "Bearer key", "content-type": "application/json" };

  test("a body Koa's or Fastify's parser read and kept on its own request answers 500 at once naming both fixes, reported once, never hangs", async () => {
    for (let i = 0; i < 2; i++) {
      const response = await afterParser("/koa/body", "nothing", '{"name":"Rex"}');
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        code: "internal_error",
        message: "Cannot read the request body: a body parser before this handler already read the request body and kept it on its host's own request " +
          "(Koa's @koa/bodyparser on ctx.request.body, Fastify on request.body); mount the handler before the parser: in Koa, app.use() it before bodyParser(); " +
          "in Fastify, register it in a plugin with no content-type parsers",
        status: 500,
      });
    }
    expect(await timesLogged("logged: Cannot read the body of POST /koa/body")).toBe(1);
  });

  test("a body Express's parser read and kept nothing of names Express and express.json()", async () => {
    const response = await afterParser("/express/body", "nothing", '{"name":"Rex"}', { "x-host": "express" });
    expect({ status: response.status, message: ((await response.json()) as { message: string }).message }).toEqual({
      status: 500,
      message: "Cannot read the request body: a body parser before this handler already read the request body and left nothing usable on req.body; " +
        "mount the handler before body parsers such as express.json()",
    });
  });

  test("a body express.json() parsed first reaches the handler written back as JSON, with its own Content-Length, reported once", async () => {
    for (let i = 0; i < 2; i++) {
      const response = await afterParser("/json/body", "json", '{ "name": "Rex", "categoryId": 1.0 }');
      expect({ status: response.status, length: response.headers.get("x-length"), body: await response.text() })
        .toEqual({ status: 200, length: "29", body: '{"name":"Rex","categoryId":1}' });
    }
    expect(await timesLogged("logged: Reading the body of POST /json/body from request.body")).toBe(1);
  });

  test("without onError, the one-time note about a body a parser read is printed as one line, without a stack", async () => {
    await (await afterParser("/default/body", "json", '{"name":"Rex"}')).text();
    const line = "animal-store (toNodeListener): Reading the body of POST /default/body from request.body:";
    expect(await timesLogged(line)).toBe(1);
    const printed = output.slice(output.indexOf(line)).split("\n");
    expect({ error: printed[0]!.includes("Error:"), next: printed[1]?.trimStart().startsWith("at ") }).toEqual({ error: false, next: false });
  });

  test("a body express.json() parsed first that nests too deep to write back as JSON answers 400 invalid_body, not 500", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const response = await afterParser("/json/body", "json", deep);
    const body = (await response.json()) as { code: string; message: string };
    expect({ status: response.status, code: body.code }).toEqual({ status: 400, code: "invalid_body" });
    expect(body.message).toContain("it nests too deep to be written back as JSON");
  });

  test("a body express.raw() read first reaches the handler byte for byte", async () => {
    const response = await afterParser("/raw/body", "raw", '{ "categoryId": 1.0 }');
    expect(await response.text()).toBe('{ "categoryId": 1.0 }');
  });

  test("a body express.text() read first reaches the handler as sent", async () => {
    const response = await afterParser("/text/body", "text", '{ "categoryId": 1.0, "name": "Rêx" }');
    expect(await response.text()).toBe('{ "categoryId": 1.0, "name": "Rêx" }');
  });

  test("a JSON string holding a pet's JSON, parsed first by express.json({ strict: false }), is refused 400 as a non-object body and not stored", async () => {
    const response = await afterParser("/v1/pets", "json", JSON.stringify('{"name":"x","categoryId":7}'), SERVICE);
    expect({ status: response.status, code: ((await response.json()) as { code: string }).code }).toEqual({ status: 400, code: "invalid_body" });
    expect(await (await fetch(`${base}/v1/pets`, { headers: SERVICE })).json()).toEqual([]);
  });

  for (const parser of ["text", "json"]) {
    test(`a body with bytes that are not UTF-8, read first by a ${parser} parser (which puts U+FFFD for them), is refused 400 invalid_body and not stored`, async () => {
      const body = new Uint8Array([...new TextEncoder().encode('{"name":"R'), 0xff, ...new TextEncoder().encode('x","categoryId":7}')]);
      const response = await afterParser("/v1/pets", parser, body, SERVICE);
      const answer = (await response.json()) as { code: string; message: string };
      expect({ status: response.status, code: answer.code }).toEqual({ status: 400, code: "invalid_body" });
      expect(answer.message).toContain("U+FFFD");
      expect(await (await fetch(`${base}/v1/pets`, { headers: SERVICE })).json()).toEqual([]);
    });
  }

  test("a response body that fails midway cuts that connection only; the server keeps serving", async () => {
    const broken = await fetch(`${base}/broken-stream`).then((response) => response.text()).then(() => "whole", () => "cut");
    expect(broken).toBe("cut");
    expect((await fetch(`${base}/ok`)).status).toBe(200);
    expect(output).toContain("logged: stream broke on purpose");
  });

  test("the request signal aborts only when a client leaves, not after successful answers", async () => {
    const aborts = async () => ((await (await fetch(`${base}/aborts`)).json()) as { aborts: number }).aborts;
    const before = await aborts();
    for (let i = 0; i < 5; i++) await (await fetch(`${base}/ok`)).text();
    expect(await aborts()).toBe(before);
    const leaving = new AbortController();
    const gone = fetch(`${base}/slow`, { signal: leaving.signal }).catch(() => "left");
    await Bun.sleep(50);
    leaving.abort();
    expect(await gone).toBe("left");
    await Bun.sleep(400);
    expect(await aborts()).toBe(before + 1);
  });

  test("method, URL, headers and body reach the handler", async () => {
    const response = await fetch(`${base}/echo?x=1`, { method: "PUT", body: "hello" });
    expect(response.headers.get("x-method")).toBe("PUT");
    expect(await response.text()).toBe("hello");
    expect(await (await fetch(`${base}/a/b?c=d`)).json()).toEqual({ path: "/a/b", method: "GET" });
  });

  test("several Set-Cookie headers are all kept", async () => {
    const response = await fetch(`${base}/cookies`);
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  test("a streamed body with a Content-Length is sent without chunked encoding", async () => {
    const raw = await rawRequest(base, "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(raw).toContain("content-length: 7");
    expect(raw.toLowerCase()).not.toContain("transfer-encoding");
    expect(raw.endsWith("one,two")).toBe(true);
  });

  test("a target Node's Request cannot be made of (OPTIONS *) is answered 400 and the host keeps serving", async () => {
    const raw = await rawRequest(base, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"code":"invalid_request"');
    expect((await fetch(`${base}/ok`)).status).toBe(200);
  });

  test("a TRACE, which Node's Request refuses, reaches the handler with its body, as it does through serveNode and on Bun", async () => {
    const raw = await rawRequest(base, "TRACE /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).toContain("x-method: TRACE");
    expect(raw.endsWith("\r\n\r\nabc")).toBe(true);
  });

  test("the service answers a TRACE through the bridge as it does in-process (405 method_not_allowed with Allow), as serveNode does", async () => {
    const app = createApp({ store: createMemoryStore(), apiKeys: ["key"] });
    // Bun's Request takes any method: the app's own answer, as Bun.serve gives it.
    const expected = await app.fetch(new Request("http://x/v1/pets", { method: "TRACE", headers: { authorization: "Bearer key" } }));
    const raw = await rawRequest(base, "TRACE /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer key\r\nConnection: close\r\n\r\n");
    const [head = "", body] = raw.split("\r\n\r\n");
    const answered = { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), allow: /\r\nallow: ([^\r]*)/i.exec(head)?.[1] ?? null, body };
    expect(answered).toEqual({ status: expected.status, allow: expected.headers.get("allow"), body: await expected.text() });
    expect(expected.status).toBe(405);
  });

  test("a GET or HEAD with a body reaches the handler without it, as on Bun and Deno, and the host keeps serving", async () => {
    const raw = await rawRequest(base, "GET /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).toContain("x-method: GET");
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
    expect((await fetch(`${base}/ok`)).status).toBe(200);
  });

  test("HEAD answers carry the Content-Length of the GET body and no body", async () => {
    const raw = await rawRequest(base, "HEAD /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const length = JSON.stringify({ path: "/ok", method: "HEAD" }).length;
    expect(raw).toContain(`content-length: ${length}`);
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
  });
});

function rawRequest(base: string, request: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = "";
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on("connect", () => socket.write(request));
    socket.on("data", (chunk) => (text += chunk.toString()));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on("error", reject);
  });
}
