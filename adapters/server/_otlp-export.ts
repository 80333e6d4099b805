/**
 * @module
 * Private to the standalone server: exporting spans over OTLP/HTTP, recorded by the server's own
 * recorder (`_span-recorder.ts`), encoded as each ends (`_otlp-encode.ts`) and posted
 * (`_otlp-send.ts`); loaded by dynamic import only when tracing is configured, so a server without
 * `OTEL_EXPORTER_OTLP_ENDPOINT` loads and costs nothing of it. No OpenTelemetry package is needed;
 * with `OTEL_DENO` the spans go through Deno's own (`@opentelemetry/api`, `TRACE_PACKAGES`).
 *
 * A collector that is down, slow or refusing never holds a request: ended spans wait in a bounded
 * queue (2048 spans, sent 512 at a time, one export at a time, as the SDK's batch processor); when it
 * is full, spans are dropped, and spans dropped or lost in a failed export are counted, for the
 * metrics and the notice at the stop. The queue is bounded in bytes too, by the length an attribute's
 * value may have (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`): a client's long `User-Agent` is cut before the
 * span keeps it.
 */
import type { KeyRing } from "../../src/mod.ts";
import type { Tracing } from "../../src/tracing/mod.ts";
import type { TraceSettings } from "./trace-settings.ts";
import type { RecordedSpan } from "./_span-recorder.ts";
import { tracing } from "../../src/tracing/mod.ts";
import { jsonEncoder, protobufEncoder } from "./_otlp-encode.ts";
import { sendSpans } from "./_otlp-send.ts";
import { createSpanRecorder } from "./_span-recorder.ts";
import { familyHeader, label, sample } from "./_metric-kinds.ts";
import { VERSION } from "./_version.ts";

/** What an npm user installs beside the command to trace through Deno's own OpenTelemetry (`OTEL_DENO`): the version tested here (package.json's devDependencies, held to it by a test). */
export const TRACE_PACKAGES: readonly string[] = ["@opentelemetry/api@1.10.0"];

/** Spans that never reached the collector. */
export interface SpansLost {
  /** Dropped because the queue was full (the collector slower than the requests). */
  readonly queueFull: number;
  /** Sent in an export that failed (the collector down or refusing). */
  readonly exportFailed: number;
}

/** A running export. */
export interface TraceExport {
  /** The tracing feature over the server's own recorder (or Deno's OpenTelemetry). */
  readonly tracing: Tracing;
  /** The spans lost so far. */
  lost(): SpansLost;
  /** The lost spans as Prometheus families. */
  metricsText(): string;
  /** Sends the spans still queued; resolves after at most `ms` whatever the collector does. */
  flush(ms: number): Promise<void>;
}

/** Starts exporting with the settings: spans recorded by the project's own recorder, encoded and posted here. */
export function startTraceExport(settings: TraceSettings, keys?: KeyRing): TraceExport {
  const lost = { queueFull: 0, exportFailed: 0 };
  const queue = spanQueue(settings, lost);
  const { api, tracer } = createSpanRecorder({ ...settings, ended: queue.add });
  const traces = tracing({ api, tracer, ...(keys === undefined ? {} : { keys }) });
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
      return Promise.race([queue.flush(), late]).finally(() => clearTimeout(timer));
    },
  };
}

// The SDK's batch processor's defaults, kept: at most 2048 spans wait, sent 512 at a time, at least once a second.
const MAX_QUEUED = 2048;
const BATCH = 512;
const DELAY_MS = 1000;

/** The bounded queue of ended spans and its one export at a time. */
interface SpanQueue {
  /** Queues an ended span, or counts it lost when the queue is full. */
  readonly add: (span: RecordedSpan) => void;
  /** Exports everything queued; resolves when the last export settles. */
  flush(): Promise<void>;
}

function spanQueue(settings: TraceSettings, lost: { queueFull: number; exportFailed: number }): SpanQueue {
  const source = { resource: resourceOf(settings), scope: { name: "animal-store", version: VERSION }, timeOrigin: performance.timeOrigin };
  const json = settings.protocol === "http/json";
  const encoder = json ? jsonEncoder(source) : protobufEncoder(source);
  const send = { ...settings, contentType: json ? "application/json" : "application/x-protobuf" } as const;
  // Full batches, encoded, waiting their turn; and how many spans the open one holds.
  const sealed: { body: Uint8Array<ArrayBuffer> | string; spans: number }[] = [];
  let open = 0;
  let exporting: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function seal(): void {
    sealed.push({ body: encoder.seal(), spans: open });
    open = 0;
  }

  /** Sends the oldest batch, counting its spans lost when the collector does not take them. */
  function exportBatch(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    if (sealed.length === 0) seal();
    const batch = sealed.shift()!;
    // A failure of our own (never expected) counts as a failed export rather than stopping the queue.
    exporting = sendSpans(batch.body, send).catch(() => false).then((taken) => {
      if (!taken) lost.exportFailed += batch.spans;
      exporting = undefined;
      schedule();
    });
    return exporting;
  }

  /** A full batch goes at once, fewer after the delay; never two exports at a time, as the SDK's processor. */
  function schedule(): void {
    if (exporting !== undefined || sealed.length + open === 0) return;
    if (sealed.length > 0) void exportBatch();
    else if (timer === undefined) {
      timer = setTimeout(exportBatch, DELAY_MS);
      // A pending export never keeps the process alive (the stop flushes it).
      (timer as { unref?: () => void }).unref?.();
    }
  }

  return {
    add(span) {
      if (sealed.length * BATCH + open >= MAX_QUEUED) lost.queueFull++;
      else {
        encoder.add(span);
        if (++open === BATCH) seal();
      }
      schedule();
    },
    async flush() {
      while (exporting !== undefined || sealed.length + open > 0) await (exporting ?? exportBatch());
    },
  };
}

/** The resource the spans come from: the SDK's telemetry attributes (naming this recorder), then the user's, then the service. */
function resourceOf(settings: TraceSettings): Readonly<Record<string, string>> {
  const telemetry = { "telemetry.sdk.language": "nodejs", "telemetry.sdk.name": "animal-store", "telemetry.sdk.version": VERSION };
  return { ...telemetry, ...settings.resourceAttributes, "service.name": settings.serviceName, "service.version": VERSION };
}

/**
 * Spans through the runtime's own OpenTelemetry (Deno with `OTEL_DENO=true`, which backs
 * `@opentelemetry/api` and exports with the same `OTEL_*` variables): no SDK is loaded, so no span is
 * exported twice, and inside `Deno.serve`'s own server span ours is its child.
 */
export async function startRuntimeTraces(keys?: KeyRing): Promise<TraceExport> {
  const api = await import("@opentelemetry/api").catch((error: unknown) => {
    throw new Error(`Cannot trace through OTEL_DENO: @opentelemetry/api is not installed (${error instanceof Error ? error.message : String(error)}); run: npm install ${TRACE_PACKAGES.join(" ")}`);
  });
  // The runtime counts and flushes what it exports.
  return { tracing: tracing({ api, tracer: api.trace.getTracer("animal-store", VERSION), ...(keys === undefined ? {} : { keys }) }), lost: () => ({ queueFull: 0, exportFailed: 0 }), metricsText: () => "", flush: () => Promise.resolve() };
}
