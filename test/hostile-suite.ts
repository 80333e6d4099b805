/**
 * @module
 * A bounded barrage of hostile requests over raw HTTP/1.1 against the real standalone server:
 * each class answers a 4xx (the service's error object, or the runtime's own refusal where the
 * runtime answers before the service runs; docs/decisions.md, "Hostile input"), never a 5xx, and after each
 * the server still answers and nothing stored has changed. Run for every runtime by `http.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Runtime, ServerProcess } from "./server-process.ts";
import { rawExchange } from "./raw-http.ts";
import { startServer } from "./server-process.ts";

const KEY = "hostile-key";
const AUTH_LINE = `Authorization: Bearer ${KEY}\r\n`;

/** A raw POST /v1/pets with the given body text and extra header lines. */
function post(body: string | Uint8Array, extraHeaders = ""): (string | Uint8Array)[] {
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  return [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n${extraHeaders}\r\n`, body];
}

/** A raw GET of `target` with extra header lines. */
function get(target: string, extraHeaders = "", host = "Host: x\r\n"): string[] {
  return [`GET ${target} HTTP/1.1\r\n${host}${AUTH_LINE}Connection: close\r\n${extraHeaders}\r\n`];
}

/** A chunked body of `size` bytes in 16 KiB chunks. */
function chunked(size: number): string {
  const chunk = "x".repeat(16384);
  const count = Math.ceil(size / chunk.length);
  return `${`${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(count)}0\r\n\r\n`;
}

/** One hostile class: what is sent, and the statuses it may get. */
interface HostileCase {
  readonly name: string;
  readonly chunks: readonly (string | Uint8Array)[];
  /** The statuses allowed; `0` stands for a connection closed without an answer. */
  readonly statuses: readonly number[];
  /** The runtimes that refuse the request themselves with a bare answer (docs/decisions.md, "Hostile input"): every other answer carries the error object. */
  readonly bareOn?: readonly Runtime[];
}

const bigQuery = Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join("&");

const CASES: readonly HostileCase[] = [
  { name: "malformed JSON", chunks: post('{"name": "Rex", '), statuses: [400] },
  { name: "JSON with raw control characters in a string", chunks: post('{"name":"a\u0001\u0000b","categoryId":1}'), statuses: [400] },
  { name: "an escaped U+0000, ESC and CSI in the name", chunks: post('{"name":"a\\u0000b\\u001b[31m\\u009b","categoryId":1}'), statuses: [400] },
  { name: "invalid UTF-8", chunks: post(new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])), statuses: [400] },
  { name: "a lone surrogate in the name", chunks: post('{"name":"\\ud800","categoryId":1}'), statuses: [400] },
  { name: "10,000-deep nesting under the size limit", chunks: post(`{"name":${"[".repeat(10000)}${"]".repeat(10000)},"categoryId":1}`), statuses: [400] },
  { name: "__proto__ and constructor keys", chunks: post('{"name":"Rex","categoryId":1,"__proto__":{"admin":true},"constructor":{"prototype":{}}}'), statuses: [400] },
  { name: "categoryId 1e400", chunks: post('{"name":"Rex","categoryId":1e400}'), statuses: [400] },
  { name: "categoryId 9007199254740993", chunks: post('{"name":"Rex","categoryId":9007199254740993}'), statuses: [400] },
  { name: "categoryId -0.0", chunks: post('{"name":"Rex","categoryId":-0.0}'), statuses: [400] },
  { name: "a body over the limit with Content-Length", chunks: post("x".repeat(200_000)), statuses: [413] },
  {
    name: "a declared 200 MB body (above Bun's own 128 MiB limit), answered before it is sent",
    chunks: [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: 200000000\r\n\r\n{"name"`],
    statuses: [413],
  },
  {
    name: "a chunked body over the limit",
    chunks: [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`, chunked(200_000)],
    statuses: [413],
  },
  {
    name: "a truncated body (the client stops sending)",
    chunks: [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"Half"`],
    statuses: [0],
  },
  { name: "a 100 KB URL", chunks: get(`/v1/pets?limit=${"1".repeat(100_000)}`), statuses: [431, 400], bareOn: ["bun", "deno-serve"] },
  { name: "1,000 query parameters", chunks: get(`/v1/pets?${bigQuery}`), statuses: [400] },
  { name: "64 KB of headers", chunks: get("/v1/pets", `X-Big: ${"a".repeat(65_536)}\r\n`), statuses: [431, 400], bareOn: ["bun", "deno-serve"] },
  { name: "two Authorization headers", chunks: get("/v1/pets", `Authorization: Bearer other\r\n`), statuses: [401] },
  { name: "NUL in a header value", chunks: get("/v1/pets", "X-Nul: a\u0000b\r\n"), statuses: [400], bareOn: ["bun", "deno-serve"] },
  {
    name: "Transfer-Encoding together with Content-Length",
    chunks: [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`, "0\r\n\r\n"],
    statuses: [400],
    bareOn: ["bun", "deno-serve"],
  },
  {
    name: "Transfer-Encoding: identity, chunked",
    chunks: [`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nTransfer-Encoding: identity, chunked\r\nConnection: close\r\n\r\n1e\r\n{"name":"Id","categoryId":1}  \r\n0\r\n\r\n`],
    statuses: [400],
    // Bun and Deno.serve refuse it bare; on node:http it reaches the service, which answers invalid_header.
    bareOn: ["bun", "deno-serve"],
  },
  {
    name: "Expect: 100-continue with a bad body",
    chunks: post("{", "Expect: 100-continue\r\n"),
    statuses: [400, 100],
  },
  // Bun closes the connection unanswered; node:http's parser refuses them (400 invalid_request); Deno.serve passes them on (405).
  { name: "a lowercase method", chunks: [`get /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Connection: close\r\n\r\n`], statuses: [405, 400, 0] },
  { name: "an unknown method", chunks: [`FOO /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Connection: close\r\n\r\n`], statuses: [405, 400, 0] },
  // Bun answers a bare 505 (it reads the request line as ending there).
  { name: "a raw ESC in the request target", chunks: get("/v1/pets\u001b[31m"), statuses: [400, 505], bareOn: ["bun", "deno-serve"] },
  { name: "a raw CR in the request target", chunks: get("/v1/pets\rX"), statuses: [400, 505], bareOn: ["bun", "deno-serve"] },
  { name: "TRACE", chunks: [`TRACE /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Connection: close\r\n\r\n`], statuses: [405] },
  // Deno.serve gives it the URL "/", where the standalone server's reference page answers GET and HEAD only (405).
  { name: "CONNECT", chunks: [`CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n${AUTH_LINE}\r\n`], statuses: [404, 405, 0] },
  { name: "an encoded slash in petId", chunks: get("/v1/pets/1%2F2"), statuses: [400] },
  { name: "dot segments above the base path", chunks: get("/v1/../../etc/passwd"), statuses: [404] },
  { name: "a Host that holds a path", chunks: get("/v1/pets", "", "Host: x/v1/openapi.json?\r\n"), statuses: [400] },
  { name: "a Host with a port past 65535", chunks: get("/v1/pets", "", "Host: evil.example:99999\r\n"), statuses: [400] },
  { name: "a Host that would break a Link header", chunks: get("/v1/pets", "", 'Host: evil.example>; rel="next", <x\r\n'), statuses: [400] },
];

/** Registers the barrage for one runtime. */
export function hostileSuite(runtime: Runtime): void {
  describe(`hostile input on ${runtime}`, () => {
    let server: ServerProcess;
    let before: string;
    const list = async () => await (await fetch(`${server.url}/pets?limit=100`, { headers: { authorization: `Bearer ${KEY}` } })).text();
    beforeAll(async () => {
      server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      await fetch(`${server.url}/pets`, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: '{"name":"Kept","categoryId":1}' });
      before = await list();
    }, 30_000);
    afterAll(async () => {
      await server?.stop("SIGKILL");
    });

    test.each(CASES.map((hostile) => [hostile.name, hostile] as const))("%s: a 4xx, no 5xx; the server still answers and nothing stored changes", async (_, hostile) => {
      const result = await rawExchange(server.url, hostile.chunks, { timeoutMs: 2000 });
      const status = result.status ?? 0;
      // The answer is shown when the status is not one of those allowed.
      expect(hostile.statuses.includes(status) ? "allowed" : result.text.slice(0, 300)).toBe("allowed");
      const final = /HTTP\/1\.1 (4\d\d)[^]*?\r\n\r\n([^]*)$/.exec(result.text);
      if (final !== null && !(hostile.bareOn ?? []).includes(runtime)) {
        expect(JSON.parse(final[2]!)).toEqual({ code: expect.any(String), message: expect.any(String), status: Number(final[1]) });
      }
      expect(await list()).toBe(before);
    });

    // node:http's parser refuses these before the service runs; the answer is written by `_node/client-error.ts`.
    if (!["bun", "deno-serve"].includes(runtime)) {
      test.each([["30 KB of headers", get("/v1/pets", `X-Big: ${"a".repeat(30_000)}\r\n`)], ["a lowercase method", [`get /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n`]]] as const)(
        "a request the server refuses before the service runs (%s) is answered with one Content-Length",
        async (_, chunks) => {
          const result = await rawExchange(server.url, chunks, { timeoutMs: 2000 });
          const head = result.text.slice(0, result.text.indexOf("\r\n\r\n"));
          expect({ status: result.status, lengths: head.match(/^content-length:/gim)?.length }).toEqual({ status: expect.any(Number), lengths: 1 });
        },
      );

      test("Node's fetch reads the error object of a request refused for its 30 KB of headers", async () => {
        const script = `const r = await fetch(process.argv[1], { headers: { "x-big": "a".repeat(30000) } }); console.log(r.status, await r.text());`;
        const node = Bun.spawn(["node", "--input-type=module", "-e", script, `${server.url}/pets`], { stdout: "pipe", stderr: "pipe" });
        const [out, err] = [await new Response(node.stdout).text(), await new Response(node.stderr).text()];
        expect(err).toBe("");
        const [status, ...body] = out.trim().split(" ");
        expect({ status, body: JSON.parse(body.join(" ")) as unknown }).toEqual({ status: "431", body: { code: "headers_too_large", message: expect.any(String), status: 431 } });
      });
    }

    test("pipelined requests on one connection are answered in order", async () => {
      const request = (limit: number) => `GET /v1/pets?limit=${limit} HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}\r\n`;
      const result = await rawExchange(server.url, [request(1) + request(0) + request(2)], { timeoutMs: 1500 });
      expect([...result.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1])).toEqual(["200", "400", "200"]);
    });

    test("an HTTP/1.0 request without Host is routed by its request target", async () => {
      const result = await rawExchange(server.url, [`GET /v1/pets/1 HTTP/1.0\r\n${AUTH_LINE}\r\n`]);
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ id: 1, name: "Kept", categoryId: 1 });
    });

    test.each([["/v1/x/../pets/1", 200], ["/v1/pets/./1", 200], ["/v1/pets/%2E%2e/pets/1", 200], ["/v1/pets/..", 404]])(
      "dot segments are resolved before routing, as a URL parser does: %s answers %d",
      async (path, status) => {
        const result = await rawExchange(server.url, get(path));
        expect(result.status).toBe(status);
      },
    );
  });
}
