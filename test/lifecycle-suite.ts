/**
 * @module
 * The standalone server's run contract on one runtime: start-up output, settings, and graceful
 * shutdown. Run for every runtime by `http.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, unlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import type { Socket } from "node:net";
import type { Runtime } from "./server-process.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

/** A raw connection that sent `text`: send more on it, and its first whole answer (or how it ended without one). */
function openExchange(base: string, text: string): { send(more: string): void; readonly answer: Promise<string> } {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.write(text);
  const answer = new Promise<string>((resolve) => {
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const headEnd = received.indexOf("\r\n\r\n");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received)?.[1] ?? Number.NaN);
      if (headEnd !== -1 && received.length >= headEnd + 4 + length) resolve(received);
    });
    socket.on("error", (error: Error & { code?: string }) => resolve(`no answer: ${error.code ?? error.message}`));
    socket.on("close", () => resolve(received === "" ? "no answer: closed" : received));
  });
  void answer.then(() => socket.destroy());
  return { send: (more) => void socket.write(more), answer };
}

/** Opens a connection to a URL's host and port and sends `text` on it, leaving it open. */
async function holdOpen(base: string, text: string): Promise<Socket> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.on("error", () => {});
  await new Promise((resolve) => socket.on("connect", resolve));
  socket.write(text);
  return socket;
}

/** A log reader that goes away: it passes the lines up to the listening line (the test reads the URL from it), then exits. */
const READER_GONE_AFTER_LISTENING = "sed -u '/listening on/q'";

/** Sends `count` requests one after another, a little apart so that each one's log line is written alone: their statuses. */
async function answeredOneByOne(base: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    statuses.push(await fetch(`${base}/pets`, { headers: { authorization: "Bearer k" } }).then(async (response) => (await response.arrayBuffer(), response.status), () => 0));
    await Bun.sleep(20);
  }
  return statuses;
}

/**
 * How long a stop that has nothing left to wait for may take: under the 10 s grace (past it the exit
 * code is 1), with room for a busy machine.
 */
const PROMPT_STOP_MS = 8000;

/** Registers the run-contract tests for one runtime. */
export function lifecycleSuite(runtime: Runtime): void {
  describe(`standalone server on ${runtime}`, () => {
    test("without API_KEYS it prints a generated key that works, then the listening line", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: "" });
      try {
        const key = /generated API key: (\S+)/.exec(server.output())?.[1];
        expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(server.output().indexOf("generated API key")).toBeLessThan(server.output().indexOf("listening on"));
        expect((await fetch(`${server.url}/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("never prints a configured key", async () => {
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS: "very-secret-key" });
      await fetch(`${server.url}/pets`, { headers: { authorization: "Bearer very-secret-key" } });
      await server.stop("SIGTERM");
      expect(server.output()).not.toContain("very-secret-key");
    }, 20_000);

    test.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)("on %s it finishes the in-flight request, then exits 0", async (signal) => {
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS: "k" });
      const url = new URL(server.url);
      const body = '{"name":"Late","categoryId":1}';
      const socket = connect(Number(url.port), url.hostname);
      let response = "";
      socket.on("data", (chunk) => (response += chunk.toString()));
      const closed = new Promise((resolve) => socket.on("close", resolve));
      await new Promise((resolve) => socket.on("connect", resolve));
      socket.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`);
      await Bun.sleep(300);
      const exited = server.stop(signal);
      await Bun.sleep(300);
      socket.write(body.slice(5));
      await closed;
      expect(response).toStartWith("HTTP/1.1 201");
      expect(await exited).toBe(0);
      expect(server.output()).toContain("stopped");
    }, 20_000);

    test("SIGTERM while a create's body is still arriving: its 201, then the same client's next create, sent at once on a new connection, gets 503 rather than a reset", async () => {
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS: "k" });
      const body = '{"name":"Late","categoryId":1}';
      const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const first = openExchange(server.url, head + body.slice(0, 5));
      await Bun.sleep(300);
      const exited = server.stop("SIGTERM");
      // The answer comes well past the stop's quiet time (250 ms).
      await Bun.sleep(400);
      first.send(body.slice(5));
      expect(await first.answer).toStartWith("HTTP/1.1 201");
      const next = openExchange(server.url, head + body);
      expect(await next.answer).toStartWith("HTTP/1.1 503");
      expect(await exited).toBe(0);
    }, 20_000);

    test("SIGTERM with connections holding half-sent requests on the API and metrics ports: stopped, exit 0 at once, the data file's lock released", async () => {
      const dataFile = tempDataFile();
      await using server = await startServer(runtime, { STORE: "file", DATA_FILE: dataFile, API_KEYS: "k", METRICS_PORT: "0" });
      const metricsUrl = /metrics on (http:\/\/\S+)/.exec(server.output())?.[1] ?? "";
      const held = [
        ...(await Promise.all(Array.from({ length: 20 }, () => holdOpen(server.url, "GET /v1/pe")))),
        await holdOpen(metricsUrl, "GET /metr"),
      ];
      await Bun.sleep(300);
      const started = Date.now();
      const code = await server.stop("SIGTERM");
      for (const socket of held) socket.destroy();
      expect({ code, stopped: server.output().includes("stopped") }).toEqual({ code: 0, stopped: true });
      expect(Date.now() - started).toBeLessThan(PROMPT_STOP_MS);
      expect(existsSync(`${dataFile}.lock`)).toBe(false);
    }, 20_000);

    test("SIGTERM while a create's body has stalled: the create is cut, nothing is stored, stopped, exit 0 before the grace, the lock released", async () => {
      const dataFile = tempDataFile();
      await using server = await startServer(runtime, { STORE: "file", DATA_FILE: dataFile, API_KEYS: "k" });
      const stalled = openExchange(server.url, "POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + '{"name":"S');
      await Bun.sleep(300);
      const started = Date.now();
      const code = await server.stop("SIGTERM");
      expect({ code, stopped: server.output().includes("stopped") }).toEqual({ code: 0, stopped: true });
      expect(Date.now() - started).toBeLessThan(PROMPT_STOP_MS + 1000);
      expect(await stalled.answer).not.toStartWith("HTTP/1.1 201");
      expect(existsSync(`${dataFile}.lock`)).toBe(false);
      expect(await Bun.file(dataFile).text()).not.toContain('"S');
    }, 20_000);

    test("SIGTERM while a create waits on a disk that does not answer: after the 10 s grace the store is still flushed and closed, its lock released, exit 1", async () => {
      const dataFile = tempDataFile();
      await using server = await startServer(runtime, { STORE: "file", DATA_FILE: dataFile, API_KEYS: "k" }, { preload: "./test/fixtures/hold-write.ts" });
      writeFileSync(`${dataFile}.hold`, "");
      const create = fetch(`${server.url}/pets`, { method: "POST", headers: { authorization: "Bearer k", "content-type": "application/json" }, body: '{"name":"Held","categoryId":1}' }).catch(() => undefined);
      while (!server.output().includes("holding a write")) await Bun.sleep(20);
      const exited = server.stop("SIGTERM");
      while (!server.output().includes("did not finish in time")) await Bun.sleep(20);
      unlinkSync(`${dataFile}.hold`);
      expect(await exited).toBe(1);
      await create;
      expect(server.output()).toMatch(/closed .*pets\.json: 1 pets/);
      expect(server.output()).not.toContain("stopped");
      expect(existsSync(`${dataFile}.lock`)).toBe(false);
    }, 30_000);

    test("with LOG_FORMAT=json every line on stdout is a JSON object: the access log and the server's own lines, from start to stop", async () => {
      await using server = await startServer(runtime, { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: "", LOG_FORMAT: "json" });
      const key = /generated API key: ([\w-]+)/.exec(server.output())?.[1];
      await fetch(`${server.url}/pets`, { headers: { authorization: `Bearer ${key}` } });
      expect(await server.stop("SIGTERM")).toBe(0);
      const lines = server.stdout().trimEnd().split("\n");
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.map((record) => record["message"] ?? record["target"])).toEqual([
        expect.stringMatching(/^opened .*pets\.json: 0 pets loaded/),
        expect.stringMatching(/^API_KEYS is not set; generated API key: /),
        `API reference: ${new URL(server.url).origin}/`,
        `listening on ${server.url}`,
        "/v1/pets",
        expect.stringMatching(/^closed .*pets\.json/),
        "stopped",
      ]);
      for (const record of records.filter((record) => "message" in record)) expect(record).toEqual({ time: expect.any(String), level: "info", message: expect.any(String) });
    }, 20_000);

    test("a stdout reader that exits (`| sed '/listening on/q'`): every request is still answered, the lost lines are counted in /metrics, stderr says so once, SIGTERM exits 0", async () => {
      const server = await startServer(runtime, { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: "k", METRICS_PORT: "0" }, { outputReader: { command: READER_GONE_AFTER_LISTENING } });
      try {
        const metricsUrl = /metrics on (http:\/\/\S+)/.exec(server.output())?.[1] ?? "";
        const statuses = await answeredOneByOne(server.url, 20);
        expect(statuses).toEqual(Array(20).fill(200));
        const dropped = Number(/^animal_store_log_lines_dropped_total (\d+)$/m.exec(await (await fetch(metricsUrl)).text())?.[1]);
        expect(dropped).toBeGreaterThan(0);
        expect(server.output().match(/stdout is closed \(EPIPE\)/g)).toHaveLength(1);
      } finally {
        expect(await server.stop("SIGTERM")).toBe(0);
      }
      expect(server.output()).not.toMatch(/^\s+at /m);
    }, 30_000);

    test("a reader of both stdout and stderr that exits: every request is still answered, SIGTERM exits 0", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: "k" }, { outputReader: { command: READER_GONE_AFTER_LISTENING, stderrToo: true } });
      try {
        expect(await answeredOneByOne(server.url, 20)).toEqual(Array(20).fill(200));
      } finally {
        expect(await server.stop("SIGTERM")).toBe(0);
      }
    }, 30_000);

    test("a bad setting stops the start with a message naming it and exit code 2", async () => {
      const error = await startServer(runtime, { PORT: "eighty", STORE: "memory" }).catch((failure: Error) => failure);
      expect(String(error)).toContain("exit code 2");
      expect(String(error)).toContain('PORT must be an integer from 0 to 65535, got "eighty"');
    }, 20_000);
  });
}
