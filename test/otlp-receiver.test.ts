import { expect, test } from "bun:test";
import * as api from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { spansOfJson, spansOfProtobuf } from "./fixtures/otlp-receiver.ts";

test("the test receiver decodes the official serializers' protobuf and JSON into the same spans", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ resource: resourceFromAttributes({ "service.name": "probe" }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer("probe");
  const parent = tracer.startSpan("GET /v1/pets", { kind: api.SpanKind.SERVER, attributes: { "http.request.method": "GET", "server.port": 8080, "x.flag": true, "x.ratio": 0.5 } });
  const child = tracer.startSpan("PetStore.list", {}, api.trace.setSpan(api.ROOT_CONTEXT, parent));
  child.setStatus({ code: api.SpanStatusCode.ERROR });
  child.end();
  parent.end();
  const spans = exporter.getFinishedSpans();
  const fromJson = spansOfJson(JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))));
  const fromProtobuf = spansOfProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
  expect(fromProtobuf).toEqual(fromJson);
  expect(fromJson.map(({ name, kind, statusCode }) => ({ name, kind, statusCode }))).toEqual([
    { name: "PetStore.list", kind: 1, statusCode: 2 },
    { name: "GET /v1/pets", kind: 2, statusCode: 0 },
  ]);
  expect(fromJson[1]?.attributes).toEqual({ "http.request.method": "GET", "server.port": 8080, "x.flag": true, "x.ratio": 0.5 });
  expect(fromJson[0]?.parentSpanId).toBe(parent.spanContext().spanId);
  expect(fromJson[0]?.traceId).toBe(parent.spanContext().traceId);
  expect(fromJson[0]?.resource["service.name"]).toBe("probe");
});
