// What a host app's own OpenTelemetry setup looks like: the SDK with an in-memory exporter (a real
// app would export), AsyncLocalStorage for the active span, and W3C trace context propagation.
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

export const exporter = new InMemorySpanExporter();
export const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
api.trace.setGlobalTracerProvider(provider);
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());

/** The spans recorded so far, for the packaging checks to read at GET /spans. */
export function recordedSpans() {
  return exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? "",
    attributes: span.attributes,
  }));
}
