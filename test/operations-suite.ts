/**
 * @module
 * What an operator sees of the standalone server on one runtime: `GET /health`, the access log
 * on stdout with `X-Request-Id`, and `Server-Timing`. Run for every runtime by `http.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import type { Runtime } from "./server-process.ts";
import { rawExchange } from "./raw-http.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

const KEY = "operations-secret-key";
const AUTH = { authorization: `Bearer ${KEY}` };

/** The origin of a server's base URL, where `/health` lives. */
function origin(base: string): string {
  return new URL(base).origin;
}

/** Waits until the server's output has a line matching `pattern`, at most a few seconds. */
async function lineMatching(output: () => string, pattern: RegExp): Promise<string | undefined> {
  for (let i = 0; i < 100; i++) {
    const line = output().split("\n").find((candidate) => pattern.test(candidate));
    if (line !== undefined) return line;
    await Bun.sleep(20);
  }
  return undefined;
}

/** Registers the operator-facing tests for one runtime. */
export function operationsSuite(runtime: Runtime): void {
  describe(`operating the server on ${runtime}`, () => {
    test("GET /health answers 200 {\"status\":\"ok\"} without a key", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const response = await fetch(`${origin(server.url)}/health`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: "ok" });
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("GET /health answers 503 naming the reason once the data file cannot be written", async () => {
      const server = await startServer(runtime, { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY }, { maxFileKiB: 4 });
      try {
        for (let i = 0; i < 200; i++) {
          const created = await fetch(`${server.url}/pets`, {
            method: "POST",
            headers: { ...AUTH, "content-type": "application/json" },
            body: JSON.stringify({ name: `pet number ${i}`, categoryId: i }),
          });
          if (created.status === 503) break;
        }
        const health = await fetch(`${origin(server.url)}/health`);
        expect(health.status).toBe(503);
        expect(((await health.json()) as { message: string }).message).toStartWith("Cannot take writes: the data file could not be written");
        // The store refuses writes until a restart reloads the file: liveness says so, for an orchestrator to restart it.
        const live = await fetch(`${origin(server.url)}/health/live`);
        expect(live.status).toBe(503);
        expect(((await live.json()) as { message: string }).message).toStartWith("Cannot recover without a restart: the data file could not be written");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("once SIGTERM arrives, GET /health no longer answers 200 while the in-flight request finishes", async () => {
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      const health = () => fetch(`${origin(server.url)}/health`, { signal: AbortSignal.timeout(2000) }).then((response) => response.status, () => 0);
      expect(await health()).toBe(200);
      const url = new URL(server.url);
      const body = '{"name":"Late","categoryId":1}';
      const socket = connect(Number(url.port), url.hostname);
      let answer = "";
      socket.on("data", (chunk) => (answer += chunk.toString()));
      const closed = new Promise((resolve) => socket.on("close", resolve));
      await new Promise((resolve) => socket.on("connect", resolve));
      socket.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`);
      await Bun.sleep(200);
      const exited = server.stop("SIGTERM");
      await Bun.sleep(200);
      // 503 where the server still answers, 0 where it already refuses connections: a probe fails either way.
      expect([0, 503]).toContain(await health());
      socket.write(body.slice(5));
      await closed;
      expect(answer).toStartWith("HTTP/1.1 201");
      expect(await exited).toBe(0);
    }, 20_000);

    test("logs one line per request on stdout with the X-Request-Id it answers and the key's name (key-1, the first of API_KEYS), never the key", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const response = await fetch(`${server.url}/pets?limit=3`, { headers: AUTH });
        const id = response.headers.get("x-request-id");
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        // Off by default.
        expect(response.headers.get("server-timing")).toBeNull();
        const line = await lineMatching(server.output, new RegExp(` ${id} `));
        expect(line).toMatch(new RegExp(`^\\S+Z ${id} GET /v1/pets\\?limit=3 200 2 [0-9.]+ms keyName=key-1$`));
        await fetch(`${server.url}/pets`, { headers: { authorization: "Bearer not-the-key" } });
        await lineMatching(server.output, / 401 /);
        for (const key of [KEY, "not-the-key"]) expect(server.output()).not.toContain(key);
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("LOG_HEALTH=off keeps the probes out of the access log, the metrics still count each under its own route, and an API path never passes for one", async () => {
      await using server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG_HEALTH: "off", METRICS_PORT: "0" });
      for (const path of ["/health", "/health/live", "/health/ready", "/health/started?probe=k8s"]) expect((await fetch(`${origin(server.url)}${path}`)).status).toBe(200);
      // Sent as written (fetch would resolve the dots first): the app serves it as GET /v1/pets, and the log shows it.
      const dotted = await rawExchange(server.url, [`GET /health/../v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`]);
      expect(dotted.status).toBe(200);
      const dottedId = /^x-request-id: (\S+)\r$/im.exec(dotted.text)?.[1];
      expect(await lineMatching(server.output, new RegExp(` ${dottedId} GET \\S+ 200 `))).toBeDefined();
      const id = (await fetch(`${server.url}/pets`, { headers: AUTH })).headers.get("x-request-id");
      expect(await lineMatching(server.output, new RegExp(` ${id} `))).toContain(" GET /v1/pets 200 ");
      expect(server.output()).not.toMatch(/ GET \/health(\/live|\/ready|\/started)?[ ?]/);
      const metrics = await (await fetch(/metrics on (http:\/\/\S+)/.exec(server.output())![1]!)).text();
      for (const route of ["/health", "/health/live", "/health/ready", "/health/started"]) {
        expect(metrics).toContain(`animal_store_http_requests_total{route="${route}",method="GET",status="200"} 1\n`);
      }
    }, 20_000);

    test("LOG_FORMAT=json logs JSON Lines", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG_FORMAT: "json" });
      try {
        const id = (await fetch(`${server.url}/pets`, { headers: { ...AUTH, "x-request-id": "trace-7" } })).headers.get("x-request-id");
        expect(id).toBe("trace-7");
        const line = await lineMatching(server.output, /"requestId":"trace-7"/);
        expect(JSON.parse(line!)).toMatchObject({ requestId: "trace-7", method: "GET", target: "/v1/pets", status: 200, bytes: 2 });
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("every request answered before SIGTERM has its log line when the server exits, none torn", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      const ids: string[] = [];
      try {
        const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => fetch(`${server.url}/pets?limit=${1 + (i % 100)}`, { headers: AUTH })));
        for (const answer of answers) ids.push(answer.headers.get("x-request-id")!);
      } finally {
        expect(await server.stop("SIGTERM")).toBe(0);
      }
      const lines = server.output().split("\n").filter((line) => / GET \/v1\/pets\?limit=/.test(line));
      expect(lines).toHaveLength(200);
      for (const line of lines) expect(line).toMatch(/^\S+Z [0-9a-f-]{36} GET \/v1\/pets\?limit=\d+ 200 2 [0-9.]+ms keyName=key-1$/);
      expect(new Set(lines.map((line) => line.split(" ")[1]))).toEqual(new Set(ids));
    }, 30_000);

    test("a character outside the Basic Multilingual Plane in the query is logged percent-encoded and changes no answer", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const created = await fetch(`${server.url}/pets?\u{1F600}`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
        expect(created.status).toBe(201);
        const line = await lineMatching(server.output, / POST \/v1\/pets\?/);
        expect(line).toContain("POST /v1/pets?%F0%9F%98%80 201");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("SERVER_TIMING=on gives every answer Server-Timing (the 401 and 404 too), and CORS lets a page read it", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, SERVER_TIMING: "on", CORS_ORIGINS: "*" });
      try {
        const answers = await Promise.all([
          fetch(`${server.url}/pets`, { headers: { ...AUTH, origin: "https://app.example" } }),
          fetch(`${server.url}/pets`),
          fetch(`${server.url}/nowhere`, { headers: AUTH }),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404]);
        for (const answer of answers) expect(answer.headers.get("server-timing")).toMatch(/^app;dur=[0-9]+\.[0-9]{3}$/);
        expect(answers[0]!.headers.get("access-control-expose-headers")?.split(", ")).toContain("Server-Timing");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("LOG=off logs no requests and sends no X-Request-Id", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG: "off" });
      try {
        const response = await fetch(`${server.url}/pets`, { headers: AUTH });
        expect(response.headers.get("x-request-id")).toBeNull();
        await Bun.sleep(200);
        expect(server.output()).not.toContain("/v1/pets ");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);
  });
}
