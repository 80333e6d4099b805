/**
 * @module
 * Private to the standalone server: exporting spans over OTLP/HTTP with the official OpenTelemetry
 * SDK and exporter, loaded by dynamic import only when tracing is configured, so a server without
 * `OTEL_EXPORTER_OTLP_ENDPOINT` loads and costs nothing of it. The packages are devDependencies
 * (in the tests and the executable); an npm install of the command adds them with `TRACE_PACKAGES`.
 *
 * A collector that is down, slow or refusing never holds a request: ended spans wait in the SDK's
 * bounded batch queue (2048 spans, sent 512 at a time); when it is full, spans are dropped, and
 * spans dropped or lost in a failed export are counted (the SDK reports both to the meter given
 * here), for the metrics and the notice at the stop. The queue is bounded in bytes too, by the length
 * an attribute's value may have (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`): a client's long `User-Agent` is
 * cut before the span keeps it.
 */
import type { KeyRing } from "../../src/mod.ts";
import type { OtelTracer, Tracing } from "../../src/tracing/mod.ts";
import type { TraceSettings } from "./trace-settings.ts";
import { tracing } from "../../src/tracing/mod.ts";
import { familyHeader, label, sample } from "./_metric-kinds.ts";
import { VERSION } from "./_version.ts";

/** What an npm user installs beside the command to export traces: the versions tested here (package.json's devDependencies, held to them by a test). */
export const TRACE_PACKAGES: readonly string[] = [
  "@opentelemetry/api@1.10.0",
  "@opentelemetry/context-async-hooks@3.1.1",
  "@opentelemetry/resources@3.1.1",
  "@opentelemetry/sdk-trace@3.1.1",
  "@opentelemetry/exporter-trace-otlp-proto@0.301.1",
  "@opentelemetry/exporter-trace-otlp-http@0.301.0",
];

/** Spans that never reached the collector. */
export interface SpansLost {
  /** Dropped because the queue was full (the collector slower than the requests). */
  readonly queueFull: number;
  /** Sent in an export that failed (the collector down or refusing). */
  readonly exportFailed: number;
}

/** A running export. */
export interface TraceExport {
  /** The tracing feature over the SDK's tracer. */
  readonly tracing: Tracing;
  /** The spans lost so far. */
  lost(): SpansLost;
  /** The lost spans as Prometheus families. */
  metricsText(): string;
  /** Sends the spans still queued; resolves after at most `ms` whatever the collector does. */
  flush(ms: number): Promise<void>;
}

/** Starts exporting with the settings; rejects, naming the install line, when the packages are missing. */
export async function startTraceExport(settings: TraceSettings, keys?: KeyRing): Promise<TraceExport> {
  const [api, hooks, resources, sdk, exporters] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
    settings.protocol === "http/json" ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]).catch((error: unknown) => {
    throw new Error(`Cannot export traces: the OpenTelemetry packages are not installed (${error instanceof Error ? error.message : String(error)}); run: npm install ${TRACE_PACKAGES.join(" ")}`);
  });
  const lost = { queueFull: 0, exportFailed: 0 };
  // The SDK counts every span it is done with on this counter, `error.type` saying why one was lost.
  const meter = api.createNoopMeter();
  meter.createCounter = (name) => ({
    add(value, attributes) {
      if (name !== "otel.sdk.processor.span.processed" || attributes?.["error.type"] === undefined) return;
      if (attributes["error.type"] === "queue_full") lost.queueFull += value;
      else lost.exportFailed += value;
    },
  });
  const selfObsMeterProvider = { getMeter: () => meter };
  // Every request runs in its span's context, so the store's spans find their parent across awaits.
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  const exporter = new exporters.OTLPTraceExporter({ url: settings.url, timeoutMillis: settings.timeoutMs, headers: { ...settings.headers }, compression: settings.compression as NonNullable<ExporterConfig["compression"]> });
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ ...settings.resourceAttributes, "service.name": settings.serviceName, "service.version": VERSION }),
    sampler: samplerOf(sdk, settings),
    spanLimits: { attributeValueLengthLimit: settings.attributeValueLengthLimit },
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter, maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 1000, selfObsMeterProvider })],
  });
  const traces = tracing({ api, tracer: cuttingAttributes(provider.getTracer("animal-store", VERSION), settings.attributeValueLengthLimit), ...(keys === undefined ? {} : { keys }) });
  return {
    tracing: traces,
    lost: () => ({ ...lost }),
    metricsText: () =>
      familyHeader("animal_store_trace_spans_lost_total", "counter", "Spans never exported: queue_full dropped while the collector lagged, export_failed sent in an export that failed.") +
      sample("animal_store_trace_spans_lost_total", label("reason", "queue_full"), lost.queueFull) +
      sample("animal_store_trace_spans_lost_total", label("reason", "export_failed"), lost.exportFailed),
    flush: (ms) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((done) => (timer = setTimeout(done, ms)));
      return Promise.race([provider.forceFlush().catch(() => undefined), late]).finally(() => clearTimeout(timer));
    },
  };
}

/**
 * Spans through the runtime's own OpenTelemetry (Deno with `OTEL_DENO=true`, which backs
 * `@opentelemetry/api` and exports with the same `OTEL_*` variables): no SDK is loaded, so no span is
 * exported twice, and inside `Deno.serve`'s own server span ours is its child.
 */
export async function startRuntimeTraces(keys?: KeyRing): Promise<TraceExport> {
  const api = await import("@opentelemetry/api").catch((error: unknown) => {
    throw new Error(`Cannot trace through OTEL_DENO: @opentelemetry/api is not installed (${error instanceof Error ? error.message : String(error)}); run: npm install ${TRACE_PACKAGES[0]}`);
  });
  // The runtime counts and flushes what it exports.
  return { tracing: tracing({ api, tracer: api.trace.getTracer("animal-store", VERSION), ...(keys === undefined ? {} : { keys }) }), lost: () => ({ queueFull: 0, exportFailed: 0 }), metricsText: () => "", flush: () => Promise.resolve() };
}

/**
 * The tracer with every string attribute a span starts with cut to `limit` characters, as a string of
 * its own. The SDK cuts to the same limit with `substring`, which on every engine keeps the whole value
 * alive behind the cut: a 14 KB `User-Agent` stayed whole in the span queue (bench/RESULTS.md).
 */
function cuttingAttributes(tracer: OtelTracer, limit: number): OtelTracer {
  return {
    startSpan(name, options, context) {
      const attributes = options?.attributes;
      let long = false;
      for (const key in attributes) long ||= typeof attributes[key] === "string" && attributes[key].length > limit;
      if (!long) return tracer.startSpan(name, options, context);
      const cut = Object.fromEntries(Object.entries(attributes!).map(([key, value]) => [key, typeof value === "string" && value.length > limit ? copiedPrefix(value, limit) : value]));
      return tracer.startSpan(name, { ...options, attributes: cut }, context);
    },
  };
}

/** The first `length` characters of `text` as a new string, not a view into `text` (a surrogate pair cut in two ends in U+FFFD, as OTLP would send it). */
function copiedPrefix(text: string, length: number): string {
  return new TextDecoder().decode(new TextEncoder().encode(text.slice(0, length)));
}

type Sdk = typeof import("@opentelemetry/sdk-trace");
// The exporter takes its compression as an enum of the same two strings.
type ExporterConfig = NonNullable<ConstructorParameters<typeof import("@opentelemetry/exporter-trace-otlp-proto").OTLPTraceExporter>[0]>;
type Sampler = import("@opentelemetry/sdk-trace").Sampler;

/** The SDK sampler `OTEL_TRACES_SAMPLER` names. */
function samplerOf(sdk: Sdk, settings: TraceSettings): Sampler {
  const { sampler, ratio } = settings;
  const root: Sampler = sampler.endsWith("always_on") ? new sdk.AlwaysOnSampler() : sampler.endsWith("always_off") ? new sdk.AlwaysOffSampler() : new sdk.TraceIdRatioBasedSampler(ratio);
  return sampler.startsWith("parentbased_") ? new sdk.ParentBasedSampler({ root }) : root;
}
