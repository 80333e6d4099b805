/**
 * @module
 * The tracing wrap and its store spans carry the private `_answerNow` device: a traced read whose store
 * answers at once is answered with a `Response`, not a promise, and records the same spans (names,
 * kinds, parents, attributes, status), the same errors and the same `onError` reports as the promise
 * path, with the server's own recorder and with the host's OpenTelemetry SDK alike.
 */
import { describe, expect, test } from "bun:test";
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { App, PetStore } from "../src/mod.ts";
import type { RecordedSpan } from "../adapters/server/_span-recorder.ts";
import type { SamplerName } from "../adapters/server/trace-settings.ts";
import { createApp, createMemoryStore, StoreUnavailableError } from "../src/mod.ts";
import { tracing } from "../src/tracing/mod.ts";
import { _answerNowOf, _appAnsweringNow } from "../src/_internal/_answer-now.ts";
import { _methodNow } from "../src/_internal/stores.ts";
import { createSpanRecorder, hexOf } from "../adapters/server/_span-recorder.ts";
import { createAccessLog } from "../adapters/server/access-log.ts";
import { AUTH, createPets, KEY } from "./helpers.ts";

// As the host registers it (the SDK's context manager, carried across awaits).
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/** A request to the test apps, authenticated unless told otherwise. */
function request(path: string, init: RequestInit = {}): Request {
  return new Request(`http://pets.test:8080${path}`, { ...init, headers: { ...AUTH, "user-agent": "probe/1", ...init.headers } });
}

/** Traced requests answered without waiting on anything (the store reads at once), the status each answers, and whether it reads the store. */
const READS: readonly [string, () => Request, number, boolean][] = [
  ["a pet", () => request("/v1/pets/1"), 200, true],
  ["a pet, continuing the caller's trace", () => request("/v1/pets/2", { headers: { traceparent: TRACEPARENT, tracestate: "rojo=1" } }), 200, true],
  ["a 304 for a pet the client holds", () => request("/v1/pets/1", { headers: { "if-none-match": "*" } }), 304, true],
  ["a pet that does not exist", () => request("/v1/pets/99"), 404, true],
  ["a page", () => request("/v1/pets?limit=2"), 200, true],
  ["a page, filtered", () => request("/v1/pets?status=available&after=1"), 200, true],
  ["a refused query", () => request("/v1/pets?limit=0"), 400, false],
  ["a request without a key", () => new Request("http://pets.test:8080/v1/pets/1"), 401, false],
];

/** An app over `store` traced by the server's own recorder, keeping the spans that end and the errors reported. */
function serverTraced(store: PetStore, sampler: SamplerName = "parentbased_always_on") {
  const ended: RecordedSpan[] = [];
  const reported: unknown[] = [];
  const { api: own, tracer } = createSpanRecorder({ sampler, ratio: 1, attributeValueLengthLimit: 1024, ended: (span) => ended.push(span) });
  const traces = tracing({ api: own, tracer });
  const app = traces.wrap(createApp({ store: traces.store(store), apiKeys: [KEY], onError: (error) => reported.push(error) }));
  return { app, ended, reported, traces };
}

/** A memory store holding three pets, and the same store with its reads as plain promises (no device). */
async function storesWithPets(): Promise<{ now: PetStore; later: PetStore }> {
  const now = createMemoryStore();
  await createPets({ fetch: createApp({ store: now, apiKeys: [KEY] }).fetch, onError: () => {} }, [
    { name: "Rex", categoryId: 1, status: "available" },
    { name: "Tom", categoryId: 2, status: "sold" },
    { name: "Kit", categoryId: 1, status: "available" },
  ]);
  return { now, later: { ...now, get: (id) => now.get(id), list: (query) => now.list(query) } };
}

/** What a recorded span says, its ids as links: its parent is the span named, the caller, or none. */
function shapeOf(span: RecordedSpan, spans: readonly RecordedSpan[]) {
  const parent = span.parentSpanId === undefined ? undefined : hexOf(span.parentSpanId, 8);
  const parentSpan = spans.find((other) => hexOf(other.spanId, 8) === parent);
  const parentName = parentSpan?.name ?? (span.parentRemote ? `caller ${parent}` : parent);
  const { name, kind, attributes, added, statusCode, traceState } = span;
  return { name, kind, attributes, added, statusCode, parentName, traceState: traceState?.serialize(), parentTrace: parentSpan === undefined || hexOf(parentSpan.traceId, 16) === hexOf(span.traceId, 16) };
}

/** The answer's status and body and the spans recorded for it. */
async function partsOf(response: Response, spans: readonly RecordedSpan[]) {
  return { status: response.status, body: await response.text(), spans: spans.map((span) => shapeOf(span, spans)) };
}

describe("a traced answer now, with the server's recorder", () => {
  for (const [what, sent, status, reads] of READS) {
    test(`${what} is answered now (${status}), a Response, with the spans the promise path records`, async () => {
      const { now, later } = await storesWithPets();
      const traced = serverTraced(now);
      const answer = _answerNowOf(traced.app)(sent());
      expect(answer).toBeInstanceOf(Response);
      const promised = serverTraced(later);
      const promise = _answerNowOf(promised.app)(sent());
      // A store without the device is waited for, as every traced read was before the device.
      expect(promise instanceof Promise).toBe(reads);
      const [a, b] = [await partsOf(answer as Response, traced.ended), await partsOf(await promise, promised.ended)];
      expect(a.status).toBe(status);
      expect(a).toEqual(b);
    });
  }

  test("a read's store span is the server span's child, ended before it, in the same trace", async () => {
    const traced = serverTraced((await storesWithPets()).now);
    expect(_answerNowOf(traced.app)(request("/v1/pets"))).toBeInstanceOf(Response);
    const [store, server] = traced.ended;
    expect(shapeOf(store!, traced.ended)).toMatchObject({ name: "PetStore.list", kind: 0, parentName: "GET /v1/pets", parentTrace: true });
    expect(server).toMatchObject({ name: "GET /v1/pets", kind: 1, statusCode: 0 });
    expect(server!.added).toEqual(["http.response.status_code", 200]);
  });

  test("a traced app's fetch still promises, answering the same", async () => {
    const traced = serverTraced((await storesWithPets()).now);
    const answer = traced.app.fetch(request("/v1/pets/1"));
    expect(answer).toBeInstanceOf(Promise);
    expect((await answer).status).toBe(200);
    expect(traced.ended.map((span) => span.name)).toEqual(["PetStore.get", "GET /v1/pets/{petId}"]);
  });

  test("a span the sampler dropped records nothing, and the read is answered now", async () => {
    const traced = serverTraced((await storesWithPets()).now, "always_off");
    const answer = _answerNowOf(traced.app)(request("/v1/pets/1"));
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(200);
    expect(traced.ended).toEqual([]);
    expect(traced.traces.idsOf(request("/v1/pets/1"))).toBeUndefined();
  });

  for (const [error, status] of [[new Error("disk gone"), 500], [new StoreUnavailableError("the disk failed"), 503]] as const) {
    test(`a read that throws now (${error.name}) answers the same ${status}, with the same spans and report, as one that rejects`, async () => {
      const answers = [];
      for (const read of [_methodNow(() => { throw error; }), () => Promise.reject(error)]) {
        const traced = serverTraced({ ...createMemoryStore(), get: read, list: read });
        const now: boolean[] = [];
        const statuses: number[] = [];
        for (const path of ["/v1/pets/1", "/v1/pets"]) {
          const answer = _answerNowOf(traced.app)(request(path));
          now.push(answer instanceof Response);
          statuses.push((await answer).status);
        }
        answers.push({ now, statuses, spans: traced.ended.map((span) => shapeOf(span, traced.ended)), reported: traced.reported });
      }
      const [now, later] = answers;
      expect(now!.now).toEqual([true, true]);
      expect(later!.now).toEqual([false, false]);
      expect(now!.statuses).toEqual([status, status]);
      expect(now!.spans).toEqual(later!.spans);
      expect(now!.reported).toEqual(later!.reported);
      expect(now!.reported).toEqual(status === 500 ? [error, error] : []);
      expect(now!.spans[2]).toMatchObject({ name: "PetStore.list", statusCode: 2, added: ["error.type", error.name] });
      expect(now!.spans[3]).toMatchObject({ name: "GET /v1/pets", statusCode: 2, added: ["http.response.status_code", status, "error.type", String(status)] });
    });
  }

  test("a wrap inside that throws now rejects the traced fetch as a rejection does, the span ended as a 500", async () => {
    const failure = new Error("wrap broke");
    const spans: RecordedSpan[][] = [];
    const throwing: App = _appAnsweringNow(() => {
      throw failure;
    }, () => {});
    const rejecting: App = { fetch: () => Promise.reject(failure), onError: () => {} };
    for (const inner of [throwing, rejecting]) {
      const ended: RecordedSpan[] = [];
      const { api: own, tracer } = createSpanRecorder({ sampler: "always_on", ratio: 1, attributeValueLengthLimit: 1024, ended: (span) => ended.push(span) });
      const app = tracing({ api: own, tracer }).wrap(inner);
      expect(() => _answerNowOf(app)(request("/v1/pets"))).toThrow(failure);
      await expect(app.fetch(request("/v1/pets"))).rejects.toBe(failure);
      spans.push(ended);
    }
    const [now, later] = spans.map((ended) => ended.map((span) => shapeOf(span, ended)));
    expect(now).toEqual(later!);
    expect(now![0]).toMatchObject({ name: "GET /v1/pets", statusCode: 2, added: ["http.response.status_code", 500, "error.type", "500"] });
  });

  test("through the access log, a traced read is answered now and its line names the request's span", async () => {
    const lines: string[] = [];
    const traced = serverTraced((await storesWithPets()).now);
    const log = createAccessLog({ format: "json", write: (line) => lines.push(line), writeError: () => {}, traceIds: traced.traces.idsOf });
    const answer = _answerNowOf(log.wrap(traced.app))(request("/v1/pets/1", { headers: { traceparent: TRACEPARENT } }));
    expect(answer).toBeInstanceOf(Response);
    log.flush();
    const server = traced.ended.find((span) => span.kind === 1)!;
    expect(JSON.parse(lines[0]!)).toMatchObject({ status: 200, traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: hexOf(server.spanId, 8) });
  });
});

describe("a traced answer now, with the host's OpenTelemetry SDK", () => {
  test("a read is answered now, and the SDK gets its server span and the store span as its child", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer("test");
    const traces = tracing({ api, tracer });
    const app = traces.wrap(createApp({ store: traces.store((await storesWithPets()).now), apiKeys: [KEY] }));
    const answer = _answerNowOf(app)(request("/v1/pets/1", { headers: { traceparent: TRACEPARENT } }));
    expect(answer).toBeInstanceOf(Response);
    const [store, server] = exporter.getFinishedSpans();
    expect([store?.name, server?.name, server?.kind]).toEqual(["PetStore.get", "GET /v1/pets/{petId}", api.SpanKind.SERVER]);
    expect(store?.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
    expect(server?.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(server?.attributes["http.response.status_code"]).toBe(200);
  });
});
