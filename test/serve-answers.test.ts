/**
 * @module
 * `serveBun`, `serveDeno` and `serveNode` as a library, on their runtimes (`serveNode` on Node and on
 * Deno): what they send for an answer that is not a `Response`, and for one whose headers are
 * immutable while the server stops.
 */
import { describe, expect, test } from "bun:test";
import { captureOutput } from "./output.ts";
import { rawExchange, unchunked } from "./raw-http.ts";
import { NODE_TS } from "./node-ts.ts";

const FIXTURE = "test/fixtures/serve-app.ts";

/** How each adapter is run: the runtime's command, then the adapter's name for the fixture. */
const ADAPTERS: Record<string, readonly string[]> = {
  "serveBun on Bun": ["node_modules/.bin/bun", FIXTURE, "bun"],
  "serveDeno on Deno": ["node_modules/.bin/deno", "run", "--allow-all", FIXTURE, "deno"],
  "serveNode on Deno": ["node_modules/.bin/deno", "run", "--allow-all", FIXTURE, "node"],
  "serveNode on Node": [...NODE_TS, FIXTURE, "node"],
};

/** A fixture server: its base URL, what it printed, and how many `onError` lines it printed once `count` are out. */
interface Fixture extends AsyncDisposable {
  readonly base: string;
  output(): string;
  readonly exited: Promise<number>;
  reported(count: number): Promise<string[]>;
}

async function serveFixture(argv: readonly string[]): Promise<Fixture> {
  const child = Bun.spawn([...argv], { stdout: "pipe", stderr: "pipe" });
  const output = captureOutput(child);
  const started = Date.now();
  while (!/listening on \d+/.test(output()) && child.exitCode === null && Date.now() - started < 15_000) await Bun.sleep(20);
  const port = /listening on (\d+)/.exec(output())?.[1];
  if (port === undefined) throw new Error(`${argv.join(" ")} did not start:\n${output()}`);
  const reports = () => output().split("\n").filter((line) => line.startsWith("onError: "));
  return {
    base: `http://127.0.0.1:${port}`,
    output,
    exited: child.exited,
    // Printed after the answer went out: waited for, up to a bound, then a few moments more for any extra one.
    reported: async (count) => {
      for (const started = Date.now(); reports().length < count && Date.now() - started < 5000; ) await Bun.sleep(20);
      await Bun.sleep(200);
      return reports();
    },
    [Symbol.asyncDispose]: async () => {
      child.kill("SIGKILL");
      await child.exited;
    },
  };
}

/** The three ways a request asks its connection to end after the answer, or not. */
const REQUESTS = {
  "Connection: close": (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  "HTTP/1.0": (path: string) => `GET ${path} HTTP/1.0\r\n\r\n`,
  "keep-alive": (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`,
};

describe.each(Object.keys(ADAPTERS))("%s", (adapter) => {
  test.each(["/string", "/undefined"])("an app answering %s instead of a Response gets one 500 with the error object, reported once, however the connection ends", async (path) => {
    await using server = await serveFixture(ADAPTERS[adapter]!);
    const answers: [string, number | undefined, string][] = [];
    for (const [name, request] of Object.entries(REQUESTS)) {
      const answer = await rawExchange(server.base, [request(path)], { untilAnswered: true, timeoutMs: 5000 });
      answers.push([name, answer.status, answer.body]);
    }
    const error = '{"code":"internal_error","message":"An unexpected error occurred","status":500}';
    expect(answers).toEqual(Object.keys(REQUESTS).map((name) => [name, 500, error]));
    expect(await server.reported(3)).toEqual(Array(3).fill(`onError: The app answered GET ${path} with ${path.slice(1)}, not a Response`));
  }, 30_000);

  test.each(["/redirect-at-stop", "/fetched-at-stop"])("an answer with immutable headers (%s) sent while the server stops goes out as it is, with Connection: close", async (path) => {
    await using server = await serveFixture(ADAPTERS[adapter]!);
    const answer = await rawExchange(server.base, [REQUESTS["keep-alive"](path)], { untilAnswered: true, timeoutMs: 5000 });
    const expected = path === "/redirect-at-stop" ? { status: 302, location: "http://a.example/next", body: "" } : { status: 200, location: undefined, body: "fetched" };
    // Sent whole or in chunks: a copied answer's body is a stream (`setHeaders`), which Deno's server sends chunked.
    const body = /\r\ntransfer-encoding: chunked\r\n/i.test(answer.text) ? unchunked(answer.body) : answer.body;
    expect({ status: answer.status, location: /\r\nlocation: (\S+)/i.exec(answer.text)?.[1], body }).toEqual(expected);
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain("closed");
    expect(await server.reported(0)).toEqual([]);
  }, 30_000);

  test("a body that arrives in pieces reaches the app whole, in a buffer of its own length, also two on one connection", async () => {
    await using server = await serveFixture(ADAPTERS[adapter]!);
    const body = '{"name":"Rex","tag":"a-b"}';
    const bytes = Buffer.byteLength(body);
    const head = (framing: string) => `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n`;
    const chunk = (part: string) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`;
    const pieces = {
      whole: [`${head(`Content-Length: ${bytes}\r\n`)}${body}`],
      "Content-Length, in pieces": [head(`Content-Length: ${bytes}\r\n`), body.slice(0, 5), body.slice(5, 12), body.slice(12)],
      "chunked, in pieces": [head("Transfer-Encoding: chunked\r\n"), chunk(body.slice(0, 9)), chunk(body.slice(9)), "0\r\n\r\n"],
      "two on one connection": [`${head(`Content-Length: ${bytes}\r\n`)}${body}${head(`Content-Length: 2\r\nConnection: close\r\n`)}{}`],
    };
    const echoed: Record<string, unknown> = {};
    for (const [name, sent] of Object.entries(pieces)) {
      const answer = await rawExchange(server.base, sent, { gapMs: 30, timeoutMs: 5000, untilAnswered: name !== "two on one connection" });
      echoed[name] = answer.text.split(/\r\n\r\n/).filter((part) => part.startsWith("{")).map((part) => JSON.parse(part.replace(/HTTP\/1\.1[^]*$/, "")));
    }
    const echo = { byteLength: bytes, text: body };
    expect(echoed).toEqual({ whole: [echo], "Content-Length, in pieces": [echo], "chunked, in pieces": [echo], "two on one connection": [echo, { byteLength: 2, text: "{}" }] });
  }, 30_000);
});

describe("serveBun's Keep-Alive announcement, which the core writes into its own answers", () => {
  const get = (path: string, extra = "") => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer key\r\n${extra}\r\n`;
  const announced = (text: string) => [...text.matchAll(/\r\nkeep-alive: ([^\r]*)/gi)].map((match) => match[1]!);

  test("a core answer, one a host's wrap replaced and a host's own each carry it once; one whose request or answer closes the connection none", async () => {
    await using server = await serveFixture(ADAPTERS["serveBun on Bun"]!);
    const over = `{"name":"${"a".repeat(70_000)}"}`;
    const sent = {
      "the core's": get("/v1/pets"),
      "the core's error": get("/v1/pets/99"),
      "replaced by a wrap": get("/v1/pets?replaced"),
      "the host's own": get("/elsewhere"),
      "the core's, to Connection: close": get("/v1/pets", "Connection: close\r\n"),
      "the core's 413": `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer key\r\nContent-Type: application/json\r\nContent-Length: ${over.length}\r\n\r\n${over}`,
    };
    const seen: Record<string, [number | undefined, string[]]> = {};
    for (const [name, request] of Object.entries(sent)) {
      const answer = await rawExchange(server.base, [request], { untilAnswered: true, timeoutMs: 5000 });
      seen[name] = [answer.status, announced(answer.text)];
    }
    expect(seen).toEqual({
      "the core's": [200, ["timeout=5"]],
      "the core's error": [404, ["timeout=5"]],
      "replaced by a wrap": [200, ["timeout=5"]],
      "the host's own": [200, ["timeout=5"]],
      "the core's, to Connection: close": [200, []],
      "the core's 413": [413, []],
    });
  }, 30_000);
});
