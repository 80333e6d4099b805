/**
 * @module
 * The request a wrap is handed is a `Request` on every adapter, as a middleware that checks one sees it
 * (`instanceof Request`, its tag, `util.inspect`), and so is a clone of it: on Node (`serveNode`, on
 * Node and on Deno) and with a body on `Deno.serve` the request is a look-alike, which reaches no
 * getter of `Request.prototype` (they throw on it); their headers are a `Headers` in the same way on
 * Node. A clone of a `TRACE`, a method Node's and Deno's
 * `Request` refuse to be made with, is a `TRACE` too, and the app answers it 405 as on Bun.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { rawExchange } from "./raw-http.ts";
import type { WrapServer } from "./wrap-servers.ts";
import { startWrapServer, stopWrapServers, WRAP_TARGETS } from "./wrap-servers.ts";

afterAll(stopWrapServers);

const HEAD = "Host: pets.test\r\nAuthorization: Bearer key\r\nConnection: close\r\n";
const JSON_BODY = '{"name":"Rex","categoryId":1}';

/** Each request sent, and the status the app gives the clone of it. */
const SENT: readonly (readonly [kind: string, request: string, answered: number])[] = [
  ["a GET", `GET /v1/pets HTTP/1.1\r\n${HEAD}\r\n`, 200],
  ["a POST with a body", `POST /v1/pets HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: ${JSON_BODY.length}\r\n\r\n${JSON_BODY}`, 201],
  ["a TRACE", `TRACE /v1/pets HTTP/1.1\r\n${HEAD}\r\n`, 405],
  ["a TRACE with a body", `TRACE /v1/pets HTTP/1.1\r\n${HEAD}Content-Length: 3\r\n\r\nabc`, 405],
];

/** What a request of `method` should be, to a middleware. */
const aRequest = (method: string, headers: object = HEADERS) => ({ method, isRequest: true, tag: "[object Request]", inspectedAs: "Request", reachedOnRequestPrototype: [], headers });

/** What a request's headers should be, to a middleware: `Headers`, and usable wherever a `Headers` is. */
const HEADERS = { isHeaders: true, tag: "[object Headers]", inspectedAs: "Headers", reachedOnHeadersPrototype: [], copiedHost: ["pets.test", "pets.test", "pets.test"] };

/**
 * The look-alike's headers on Deno's `node:http`: not a `Headers`, since Deno's `Response` reads the private
 * list of any `Headers` it is given (docs/decisions.md, "The request a wrap gets"), and usable as one.
 */
const DENO_NODE_HTTP_HEADERS = { ...HEADERS, isHeaders: false, tag: "[object Object]" };

describe.each(WRAP_TARGETS)("the request a wrap is handed, and its clone, %s", (_name, serve, command) => {
  const headers = serve === "node" && basename(command[0]!) === "deno" ? DENO_NODE_HTTP_HEADERS : HEADERS;
  let server: WrapServer;
  beforeAll(async () => {
    server = await startWrapServer(command, serve, "identity");
  }, 30_000);
  afterAll(() => server.child.kill("SIGKILL"));

  test.each(SENT)("%s is a Request, so is its clone, and the app answers the clone", async (_kind, request, answered) => {
    const exchange = await rawExchange(server.url, [request], { timeoutMs: 10_000 });
    expect(exchange.status).toBe(200);
    const method = request.slice(0, request.indexOf(" "));
    // The clone is a real `Request`, with the runtime's own `Headers`.
    expect(JSON.parse(exchange.body)).toEqual({ answered, request: aRequest(method, headers), clone: aRequest(method) });
  }, 20_000);
});
