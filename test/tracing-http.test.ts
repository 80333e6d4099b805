/**
 * Traces from the standalone server of every runtime, as a collector receives them over OTLP/HTTP
 * (protobuf and JSON): the caller's trace kept, one server span per request named by its route,
 * the stable HTTP attributes, the store's spans as children, errors marked, the same ids in the
 * access log line, and no key, query value or body text anywhere in what is sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NodeLineRuntime, Runtime, ServerProcess } from "./server-process.ts";
import { OTHER_NODE_LINES } from "./server-process.ts";
import type { OtlpReceiver, ReceivedSpan } from "./fixtures/otlp-receiver.ts";
import { startOtlpReceiver } from "./fixtures/otlp-receiver.ts";
import { postgresServer } from "./postgres-server.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

const KEY = "tracing-key-Zq81";
const AUTH = { authorization: `Bearer ${KEY}` };
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const SERVER_KIND = 2;
/** A User-Agent past the attribute length limit (1024 characters by default). */
const LONG_AGENT = `long/1 (${"Zq81".repeat(1000)})`;
const SUITES: readonly { runtime: Runtime | NodeLineRuntime; protocol: string; log: string; compression: string }[] = [
  { runtime: "bun", protocol: "http/protobuf", log: "json", compression: "gzip" },
  { runtime: "node", protocol: "http/json", log: "text", compression: "none" },
  { runtime: "deno", protocol: "http/protobuf", log: "text", compression: "none" },
  { runtime: "deno-serve", protocol: "http/json", log: "json", compression: "gzip" },
  // The other maintained Node.js lines (`node` is NODE_ON_PATH), where the SDK's own code runs.
  ...OTHER_NODE_LINES.map((runtime) => ({ runtime, protocol: "http/protobuf", log: "json", compression: "none" })),
];

const isServer = (span: ReceivedSpan) => span.kind === SERVER_KIND;

function tracingSuite(runtime: Runtime | NodeLineRuntime, protocol: string, log: string, compression: string): void {
  describe(`traces from the server on ${runtime} (${protocol}, LOG_FORMAT=${log}, compression ${compression})`, () => {
    let receiver: OtlpReceiver;
    let server: ServerProcess;
    let petId = 0;
    let exitCode = -1;

    beforeAll(async () => {
      receiver = startOtlpReceiver();
      server = await startServer(runtime, {
        STORE: "file",
        DATA_FILE: tempDataFile(),
        API_KEYS: KEY,
        LOG_FORMAT: log,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: "pets-under-test",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=Zq81%20general,x-tenant=general",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=pets",
        OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression,
      });
      const created = await fetch(`${server.url}/pets`, {
        method: "POST",
        headers: { ...AUTH, "content-type": "application/json", traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: "rojo=00f067aa0ba902b7" },
        body: JSON.stringify({ name: "Body-Text-Zq81", categoryId: 1 }),
      });
      petId = ((await created.json()) as { id: number }).id;
      expect((await fetch(`${server.url}/pets/${petId}`, { headers: { ...AUTH, "user-agent": "probe/1" } })).status).toBe(200);
      expect((await fetch(`${server.url}/pets?status=sold&after=0&limit=7`, { headers: { ...AUTH, traceparent: "00-garbage" } })).status).toBe(200);
      expect((await fetch(`${server.url}/pets/Path-Text-Zq81`, { headers: AUTH })).status).toBe(400);
      expect((await fetch(`${server.url}/nowhere`, { headers: { ...AUTH, "user-agent": LONG_AGENT } })).status).toBe(404);
      // The spans are sent at the latest by the graceful stop, within its grace.
      exitCode = await server.stop("SIGTERM");
    }, 60_000);
    afterAll(async () => {
      await server?.stop("SIGKILL").catch(() => undefined);
      await receiver?.stop();
    });

    test("every export carries the configured headers, the traces' own winning, and is compressed as configured", () => {
      expect(receiver.headers.length).toBeGreaterThan(0);
      for (const headers of receiver.headers) {
        expect([headers.get("x-collector-key"), headers.get("x-tenant"), headers.get("content-encoding") ?? "none"]).toEqual(["Zq81 general", "pets", compression]);
      }
    });

    test("the stop exits 0 having sent every request's server span, each named by its route template", () => {
      expect(exitCode).toBe(0);
      expect(receiver.spans.filter(isServer).map((span) => span.name).toSorted()).toEqual(["GET", "GET /v1/pets", "GET /v1/pets/{petId}", "GET /v1/pets/{petId}", "POST /v1/pets"]);
      expect(receiver.spans.every((span) => span.contentType === (protocol === "http/json" ? "application/json" : "application/x-protobuf"))).toBe(true);
    });

    test("the caller's traceparent is continued: its trace id kept, its span the parent, its tracestate carried", () => {
      const created = receiver.spans.find((span) => span.name === "POST /v1/pets")!;
      expect(created.traceId).toBe(TRACE_ID);
      expect(created.parentSpanId).toBe(CALLER_SPAN);
      expect(created.traceState).toBe("rojo=00f067aa0ba902b7");
      const listed = receiver.spans.find((span) => span.name === "GET /v1/pets")!;
      expect(listed.traceId).not.toBe(TRACE_ID); // a malformed traceparent starts a new trace
      expect(listed.parentSpanId).toBe("");
    });

    test("a server span carries the stable HTTP attributes and the name of the request's key, and the resource the service's name", () => {
      const got = receiver.spans.find((span) => span.name === "GET /v1/pets/{petId}" && span.attributes["http.response.status_code"] === 200)!;
      const { port, hostname } = new URL(server.url);
      expect(got.attributes).toEqual({
        "http.request.method": "GET",
        "http.route": "/v1/pets/{petId}",
        "url.scheme": "http",
        "server.address": hostname,
        "server.port": Number(port),
        "user_agent.original": "probe/1",
        "http.response.status_code": 200,
        "animal_store.api_key.name": "key-1",
      });
      expect(got.resource["service.name"]).toBe("pets-under-test");
      expect(got.resource["deployment.environment.name"]).toBe("test");
    });

    test("a User-Agent past the attribute length limit is sent cut to it, 1024 characters by default", () => {
      const nowhere = receiver.spans.find((span) => span.name === "GET")!;
      expect(nowhere.attributes["user_agent.original"]).toBe(LONG_AGENT.slice(0, 1024));
    });

    test("each store operation is a child span of its request's span", () => {
      for (const [server, store] of [["POST /v1/pets", "PetStore.create"], ["GET /v1/pets", "PetStore.list"]] as const) {
        const parent = receiver.spans.find((span) => span.name === server)!;
        const child = receiver.spans.find((span) => span.name === store)!;
        expect(child.parentSpanId).toBe(parent.spanId);
        expect(child.traceId).toBe(parent.traceId);
      }
    });

    test("the access log line carries the trace id and the id of the span it was answered in", () => {
      const created = receiver.spans.find((span) => span.name === "POST /v1/pets")!;
      const line = server.stdout().split("\n").find((candidate) => candidate.includes("POST") && candidate.includes("/v1/pets"))!;
      expect(line).toContain(log === "json" ? `"traceId":"${TRACE_ID}","spanId":"${created.spanId}"` : `trace=${TRACE_ID} span=${created.spanId}`);
    });

    test("no API key, Authorization value, query value, path value or body text is in anything sent to the collector", () => {
      const sent = receiver.bodies.map((body) => new TextDecoder().decode(body)).join("\n");
      expect(sent).toContain("PetStore.create");
      for (const secret of [KEY, "Bearer", "Body-Text-Zq81", "Path-Text-Zq81", "status=sold", "limit=7"]) expect(sent).not.toContain(secret);
    });
  });
}

for (const { runtime, protocol, log, compression } of SUITES) tracingSuite(runtime, protocol, log, compression);

describe("a 5xx in a trace", () => {
  test("an answer 503 (the data file cannot be written) marks its server span and its store span as errors", async () => {
    const receiver = startOtlpReceiver();
    const server = await startServer("bun", { STORE: "file", DATA_FILE: tempDataFile(), API_KEYS: KEY, LOG: "off", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, { maxFileKiB: 4 });
    try {
      let status = 0;
      for (let i = 0; i < 200 && status !== 503; i++) {
        status = (await fetch(`${server.url}/pets`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ name: `pet number ${i}`, categoryId: i }) })).status;
      }
      expect(status).toBe(503);
      const [failed] = await receiver.waitFor((span) => isServer(span) && span.attributes["http.response.status_code"] === 503, 1);
      expect(failed?.statusCode).toBe(2);
      expect(failed?.attributes["error.type"]).toBe("503");
      const store = await receiver.waitFor((span) => span.parentSpanId === failed!.spanId, 1);
      expect(store[0]?.statusCode).toBe(2);
    } finally {
      await server.stop("SIGKILL");
      await receiver.stop();
    }
  }, 60_000);
});

describe("Deno's own OpenTelemetry (OTEL_DENO=true)", () => {
  test("with Deno.serve, the server's spans go through Deno's exporter, inside Deno's server span, and no SDK exports beside it", async () => {
    const receiver = startOtlpReceiver();
    const server = await startServer("deno-serve", { STORE: "memory", API_KEYS: KEY, LOG: "off", OTEL_DENO: "true", OTEL_SERVICE_NAME: "pets-on-deno", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    try {
      expect((await fetch(`${server.url}/pets`, { headers: { ...AUTH, traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } })).status).toBe(200);
      expect(await server.stop("SIGTERM")).toBe(0);
      const [ours] = await receiver.waitFor((span) => span.name === "GET /v1/pets", 1);
      const deno = receiver.spans.find((span) => span.spanId === ours!.parentSpanId);
      expect(deno?.kind).toBe(SERVER_KIND);
      expect(deno?.parentSpanId).toBe(CALLER_SPAN);
      expect(ours?.kind).toBe(1); // INTERNAL, inside Deno's server span
      expect(receiver.spans.find((span) => span.name === "PetStore.list")?.parentSpanId).toBe(ours!.spanId);
      // An SDK of ours would have exported too, its export traced by Deno as a client span.
      expect(receiver.spans.every((span) => span.resource["service.name"] === "pets-on-deno" && span.kind !== 3)).toBe(true);
    } finally {
      await server.stop("SIGKILL").catch(() => undefined);
      await receiver.stop();
    }
  }, 60_000);
});

for (const runtime of ["bun", "node", ...OTHER_NODE_LINES] as const) {
  describe(`PostgreSQL statements in a trace, on ${runtime}`, () => {
    test("each statement is a client span under its store operation, named by its operation, with no value it carried", async () => {
      const database = await (await postgresServer()).createDatabase();
      const receiver = startOtlpReceiver();
      const server = await startServer(runtime, { STORE: "postgres", DATABASE_URL: database, API_KEYS: KEY, LOG: "off", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      try {
        const created = await fetch(`${server.url}/pets`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ name: "Sql-Value-Zq81", categoryId: 4242 }) });
        expect(created.status).toBe(201);
        expect((await fetch(`${server.url}/pets?status=sold`, { headers: AUTH })).status).toBe(200);
        expect(await server.stop("SIGTERM")).toBe(0);
        const [list] = await receiver.waitFor((span) => span.name === "PetStore.list", 1);
        const [select] = await receiver.waitFor((span) => span.parentSpanId === list!.spanId, 1);
        expect(select).toMatchObject({ name: "SELECT", kind: 3, attributes: { "db.system.name": "postgresql", "db.operation.name": "SELECT" } });
        const [create] = await receiver.waitFor((span) => span.name === "PetStore.create", 1);
        expect(receiver.spans.some((span) => span.kind === 3 && span.traceId === create!.traceId)).toBe(true);
        const sent = receiver.bodies.map((body) => new TextDecoder().decode(body)).join("\n");
        for (const value of ["Sql-Value-Zq81", "4242", database.replace(/^.*@/, ""), "sold"]) expect(sent).not.toContain(value);
      } finally {
        await server.stop("SIGKILL").catch(() => undefined);
        await receiver.stop();
      }
    }, 90_000);
  });
}
