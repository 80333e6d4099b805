/**
 * The server's own OTLP encoders write what the SDK's serializers write for the same spans: the
 * protobuf byte for byte, the JSON value for value.
 */
import { expect, test } from "bun:test";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { IdBytes, RecordedSpan } from "../adapters/server/_span-recorder.ts";
import { jsonEncoder, protobufEncoder } from "../adapters/server/_otlp-encode.ts";
import { bytesOfHex, hexOf } from "../adapters/server/_span-recorder.ts";

const SOURCE = { resource: { "service.name": "pets", "deployment.environment.name": "test", "team.size": 3 }, scope: { name: "animal-store", version: "1.2.3" }, timeOrigin: 1_764_299_999_500.25 };

/** An id as the recorder keeps it, at an offset into its bytes as ids drawn from the pool are. */
const id = (hex: string): IdBytes => ({ bytes: new Uint8Array([0xee, ...bytesOfHex(hex)]), at: 1 });

/** Spans as the recorder keeps them, with times and ids fixed; the second's parent came from a caller, and its attributes take each way a value is written (short, near and past a one-byte length, beyond ASCII, negative, large). */
const SPANS: RecordedSpan[] = [
  {
    traceId: id("4bf92f3577b34da6a3ce929d0e0e4736"),
    spanId: id("00f067aa0ba902b7"),
    parentSpanId: undefined,
    parentRemote: false,
    traceState: undefined,
    name: "PetStore.list",
    kind: 0,
    startMs: 623.206,
    endMs: 624.25,
    attributes: {},
    added: ["error.type", "Error"],
    statusCode: 2,
  },
  {
    traceId: id("4bf92f3577b34da6a3ce929d0e0e4736"),
    spanId: id("b7ad6b7169203331"),
    parentSpanId: id("0af7651916cd43dd"),
    parentRemote: true,
    traceState: { serialize: () => "rojo=00f067aa0ba902b7" },
    name: "GET /v1/pets/{petId}",
    kind: 1,
    startMs: 1_499.75,
    endMs: 1_499.751,
    attributes: { "http.request.method": "GET", "server.port": 8080, "x.ratio": 0.5, "x.flag": true, "user_agent.original": "probé/1 ✓", "x.near": "n".repeat(120), "x.long": "l".repeat(300), "x.negative": -1, "x.large": 2 ** 40 },
    added: ["http.response.status_code", 200, "animal_store.api_key.name", "ci"],
    statusCode: 0,
  },
];

/** The same spans as the SDK's `ReadableSpan`s. */
function readable(span: RecordedSpan, hrTimes: [[number, number], [number, number]]): ReadableSpan {
  const added: Record<string, unknown> = {};
  for (let at = 0; at < span.added.length; at += 2) added[span.added[at] as string] = span.added[at + 1];
  const traceState = span.traceState === undefined ? {} : { traceState: span.traceState as never };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => ({ traceId: hexOf(span.traceId, 16), spanId: hexOf(span.spanId, 8), traceFlags: 1, ...traceState }),
    ...(span.parentSpanId === undefined ? {} : { parentSpanContext: { traceId: hexOf(span.traceId, 16), spanId: hexOf(span.parentSpanId, 8), traceFlags: 1, isRemote: span.parentRemote } }),
    startTime: hrTimes[0],
    endTime: hrTimes[1],
    status: { code: span.statusCode },
    attributes: { ...span.attributes, ...added } as ReadableSpan["attributes"],
    links: [],
    events: [],
    duration: [0, 0],
    ended: true,
    resource: RESOURCE,
    instrumentationScope: SOURCE.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

const RESOURCE = resourceFromAttributes(SOURCE.resource);
const SDK_SPANS = [
  readable(SPANS[0]!, [[1_764_300_000, 123_456_000], [1_764_300_000, 124_500_000]]),
  readable(SPANS[1]!, [[1_764_300_001, 0], [1_764_300_001, 1_000]]),
];

test("a batch in protobuf is byte for byte what the SDK's serializer writes, and the encoder starts afresh after each", () => {
  const encoder = protobufEncoder(SOURCE);
  for (const span of SPANS) encoder.add(span);
  const expected = ProtobufTraceSerializer.serializeRequest(SDK_SPANS)!;
  expect(encoder.seal()).toEqual(new Uint8Array(expected));
  encoder.add(SPANS[1]!);
  expect(encoder.seal()).toEqual(new Uint8Array(ProtobufTraceSerializer.serializeRequest([SDK_SPANS[1]!])!));
});

test("a batch in OTLP's JSON is, parsed, what the SDK's serializer writes", () => {
  const encoder = jsonEncoder(SOURCE);
  for (const span of SPANS) encoder.add(span);
  const expected = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(SDK_SPANS)));
  expect(JSON.parse(encoder.seal() as string)).toEqual(expected);
});
