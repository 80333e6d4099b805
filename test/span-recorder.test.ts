/**
 * The server's own span recorder decides and records as the SDK would: its samplers take the same
 * traces, a parent's decision is followed by the parent-based ones, a long string attribute is cut,
 * and an attribute set twice keeps its last value.
 */
import { expect, test } from "bun:test";
import * as api from "@opentelemetry/api";
import { TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace";
import type { RecordedSpan } from "../adapters/server/_span-recorder.ts";
import type { SamplerName } from "../adapters/server/trace-settings.ts";
import { createSpanRecorder, hexOf } from "../adapters/server/_span-recorder.ts";

/** A recorder with `sampler`, keeping what ends. */
function recorder(sampler: SamplerName, ratio = 1, attributeValueLengthLimit = 1024) {
  const ended: RecordedSpan[] = [];
  return { ...createSpanRecorder({ sampler, ratio, attributeValueLengthLimit, ended: (span) => ended.push(span) }), ended };
}

const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("");

test("traceidratio takes the traces the SDK's sampler takes, whatever the caller decided", () => {
  const { api: own, tracer } = recorder("traceidratio", 0.3);
  const sdk = new TraceIdRatioBasedSampler(0.3);
  const decisions = Array.from({ length: 400 }, () => {
    const traceId = hex(16);
    const parent = own.trace.setSpanContext(own.context.active(), { traceId, spanId: hex(8), traceFlags: 0, isRemote: true });
    const ours = tracer.startSpan("probe", {}, parent).isRecording();
    const theirs = sdk.shouldSample(api.ROOT_CONTEXT, traceId).decision === api.SamplingDecision.RECORD_AND_SAMPLED;
    return [ours, theirs];
  });
  expect(decisions.filter(([ours, theirs]) => ours !== theirs)).toEqual([]);
  expect(decisions.some(([ours]) => ours)).toBe(true);
  expect(decisions.some(([ours]) => !ours)).toBe(true);
});

test("the parent-based samplers follow a caller's decision, and their root sampler decides a new trace", () => {
  const { api: own, tracer } = recorder("parentbased_always_off");
  const withCaller = (traceFlags: number) => own.trace.setSpanContext(own.context.active(), { traceId: hex(16), spanId: hex(8), traceFlags, isRemote: true });
  expect([tracer.startSpan("a", {}, withCaller(1)).isRecording(), tracer.startSpan("b", {}, withCaller(0)).isRecording(), tracer.startSpan("c", {}, own.context.active()).isRecording()]).toEqual([true, false, false]);
});

test("a span the sampler dropped keeps its trace and tracestate with an id of its own, and records nothing", () => {
  const { api: own, tracer, ended } = recorder("always_off");
  const traceId = hex(16);
  const parent = own.trace.setSpanContext(own.context.active(), { traceId, spanId: hex(8), traceFlags: 1, isRemote: true, traceState: own.createTraceState!("rojo=1") });
  const span = tracer.startSpan("dropped", {}, parent);
  span.end();
  expect(span.spanContext()).toMatchObject({ traceId, traceFlags: 0 });
  expect(span.spanContext().traceState?.serialize()).toBe("rojo=1");
  expect(span.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(ended).toEqual([]);
});

test("a child carries its parent's trace, id and tracestate; a long string attribute is cut; an attribute set again keeps the last value", () => {
  const { api: own, tracer, ended } = recorder("parentbased_always_on", 1, 8);
  const traceId = hex(16);
  const caller = own.trace.setSpanContext(own.context.active(), { traceId, spanId: "0af7651916cd43dd", traceFlags: 1, isRemote: true, traceState: own.createTraceState!("rojo=1") });
  const parent = tracer.startSpan("server", { kind: 1, attributes: { "user_agent.original": "probe/1.0 (long)", "server.port": 80 } }, caller);
  own.context.with(own.trace.setSpan(own.context.active(), parent), () => {
    const child = tracer.startSpan("store", { kind: 0 }, own.context.active());
    child.setAttribute("error.type", "First");
    child.setAttribute("error.type", "Second");
    child.setStatus({ code: 2 });
    child.end();
  });
  parent.setAttribute("server.port", 8080);
  parent.end();
  parent.setAttribute("late", true);
  const [child, server] = ended;
  expect(server).toMatchObject({ name: "server", kind: 1, parentRemote: true, attributes: { "user_agent.original": "probe/1.", "server.port": 8080 }, added: [] });
  expect(hexOf(server!.traceId, 16)).toBe(traceId);
  expect(hexOf(server!.parentSpanId!, 8)).toBe("0af7651916cd43dd");
  expect(child).toMatchObject({ name: "store", parentRemote: false, added: ["error.type", "Second"], statusCode: 2 });
  expect([hexOf(child!.traceId, 16), hexOf(child!.spanId, 8), hexOf(child!.parentSpanId!, 8)]).toEqual([parent.spanContext().traceId, expect.stringMatching(/^[0-9a-f]{16}$/), parent.spanContext().spanId]);
  expect(child!.traceState?.serialize()).toBe("rojo=1");
  expect(server!.endMs).toBeGreaterThanOrEqual(server!.startMs);
});
