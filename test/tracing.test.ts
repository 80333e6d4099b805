import { afterEach, describe, expect, test } from "bun:test";
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { OtelApi } from "../src/tracing/mod.ts";
import type { PetStore } from "../src/mod.ts";
import { createApp, createKeyRing, createMemoryStore, StoreUnavailableError } from "../src/mod.ts";
import { tracing } from "../src/tracing/mod.ts";
import { AUTH, KEY } from "./helpers.ts";

// The host's API object fits the structural type as it is.
const hostApi: OtelApi = api;
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const exporter = new InMemorySpanExporter();
// The SDK's default sampler: the caller's sampled flag decides, else every trace is recorded.
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer("test");
afterEach(() => exporter.reset());

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

function tracedApp(store: PetStore = createMemoryStore()) {
  const traces = tracing({ api: hostApi, tracer });
  return { traces, app: traces.wrap(createApp({ store: traces.store(store), apiKeys: [KEY] })) };
}

function send(app: { fetch(request: Request): Promise<Response> }, path: string, init: RequestInit = {}): Promise<Response> {
  return app.fetch(new Request(`http://pets.test:8080${path}`, { ...init, headers: { ...AUTH, "user-agent": "probe/1", ...init.headers } }));
}

function serverSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.kind === api.SpanKind.SERVER);
}

describe("a span per request, with the host's OpenTelemetry", () => {
  test("given the app's key ring, a span names the request's key (animal_store.api_key.name), never the key; none without a known key (issue 50)", async () => {
    const keys = createKeyRing([{ name: "shop", key: KEY }]);
    const traces = tracing({ api: hostApi, tracer, keys });
    const app = traces.wrap(createApp({ store: createMemoryStore(), apiKeys: keys }));
    await send(app, "/v1/pets");
    await send(app, "/v1/pets", { headers: { authorization: "Bearer wrong" } });
    const [known, unknown] = serverSpans();
    expect(known?.attributes["animal_store.api_key.name"]).toBe("shop");
    expect(unknown?.attributes["animal_store.api_key.name"]).toBeUndefined();
    expect(JSON.stringify(serverSpans().map((span) => span.attributes))).not.toContain(KEY);
  });

  test("the span continues the caller's traceparent and is named by the route template, never the path", async () => {
    const { app } = tracedApp();
    await send(app, "/v1/pets/7", { headers: { traceparent: TRACEPARENT, tracestate: "rojo=1" } });
    const [span] = serverSpans();
    expect(span?.name).toBe("GET /v1/pets/{petId}");
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span?.parentSpanContext?.traceState?.serialize()).toBe("rojo=1");
  });

  test("the span carries the stable HTTP attributes and the answer's status", async () => {
    const { app } = tracedApp();
    await send(app, "/v1/pets?limit=5&status=sold");
    expect(serverSpans()[0]?.attributes).toEqual({
      "http.request.method": "GET",
      "http.route": "/v1/pets",
      "url.scheme": "http",
      "server.address": "pets.test",
      "server.port": 8080,
      "user_agent.original": "probe/1",
      "http.response.status_code": 200,
    });
  });

  test("a malformed traceparent starts a new trace, and the request is answered as usual", async () => {
    const { app } = tracedApp();
    const response = await send(app, "/v1/pets", { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01-extra` } });
    expect(response.status).toBe(200);
    const [span] = serverSpans();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(span?.parentSpanContext).toBeUndefined();
  });

  test("each store operation is a child span of the request's span", async () => {
    const { app } = tracedApp();
    await send(app, "/v1/pets", { method: "POST", body: JSON.stringify({ name: "Rex", categoryId: 1 }), headers: { "content-type": "application/json" } });
    const [server] = serverSpans();
    const store = exporter.getFinishedSpans().find((span) => span.name === "PetStore.create");
    expect(server?.name).toBe("POST /v1/pets");
    expect(store?.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
    expect(store?.spanContext().traceId).toBe(server!.spanContext().traceId);
  });

  test("a 5xx marks the span as an error with error.type; a 4xx does not", async () => {
    const failing: PetStore = { ...createMemoryStore(), list: () => Promise.reject(new StoreUnavailableError("the disk is full")) };
    const { app } = tracedApp(failing);
    expect((await send(app, "/v1/pets")).status).toBe(503);
    await send(app, "/v1/nowhere");
    const [unavailable, missing] = serverSpans();
    expect(unavailable?.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(unavailable?.attributes["error.type"]).toBe("503");
    expect(missing?.name).toBe("GET");
    expect(missing?.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(exporter.getFinishedSpans().find((span) => span.name === "PetStore.list")?.attributes["error.type"]).toBe("StoreUnavailableError");
  });

  test("no key, Authorization value, query value or body text appears in any span", async () => {
    const { app } = tracedApp();
    await send(app, "/v1/pets", { method: "POST", body: JSON.stringify({ name: "Secret-Name-Zq", categoryId: 1 }), headers: { "content-type": "application/json" } });
    await send(app, "/v1/pets?status=sold&limit=3&after=Query-Value-Zq");
    await send(app, "/v1/pets/Path-Value-Zq");
    const recorded = JSON.stringify(exporter.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
    for (const secret of [KEY, "Bearer", "Secret-Name-Zq", "Query-Value-Zq", "Path-Value-Zq"]) expect(recorded).not.toContain(secret);
  });

  test("inside a host's own span, ours is its child, of kind INTERNAL", async () => {
    const { app } = tracedApp();
    const host = tracer.startSpan("host request", { kind: api.SpanKind.SERVER });
    await api.context.with(api.trace.setSpan(api.context.active(), host), () => send(app, "/v1/pets", { headers: { traceparent: TRACEPARENT } }));
    host.end();
    const ours = exporter.getFinishedSpans().find((span) => span.name === "GET /v1/pets");
    expect(ours?.kind).toBe(api.SpanKind.INTERNAL);
    expect(ours?.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
  });

  test("the ids of a request's span are there for its log line", async () => {
    const { app, traces } = tracedApp();
    const request = new Request("http://pets.test/v1/pets", { headers: { ...AUTH, traceparent: TRACEPARENT } });
    await app.fetch(request);
    expect(traces.idsOf(request)).toEqual({ traceId: TRACE_ID, spanId: serverSpans()[0]!.spanContext().spanId });
  });

  test("a request the caller did not sample records nothing, store operations included, and keeps its trace id for the log", async () => {
    const { app, traces } = tracedApp();
    const request = new Request("http://pets.test/v1/pets", { method: "POST", body: JSON.stringify({ name: "Rex", categoryId: 1 }), headers: { ...AUTH, "content-type": "application/json", traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-00` } });
    expect((await app.fetch(request)).status).toBe(201);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(traces.idsOf(request)?.traceId).toBe(TRACE_ID);
  });
});
