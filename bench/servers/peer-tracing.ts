/**
 * @module
 * The peers traced as their users trace them. When `OTEL_EXPORTER_OTLP_ENDPOINT` is set, this registers
 * the official OpenTelemetry SDK with the settings the project's own export uses
 * (`adapters/server/_otlp-export.ts`, which records and sends its spans itself: the same sampler,
 * batch queue, protobuf over OTLP/HTTP and context across awaits, read from the same variables) as the
 * process's global tracer provider, where the peers' own packages
 * (`@fastify/otel`, `@hono/otel`, `@elysiajs/opentelemetry`) find it, the way their guides set it up
 * before the app. Untraced, nothing of OpenTelemetry is loaded. Import it before building the app.
 */
import process from "node:process";
import { defaultOf } from "../../adapters/server/settings.ts";
import { readTraceSettings } from "../../adapters/server/trace-settings.ts";

/** Whether this peer is traced (an endpoint is set). */
export const TRACED: boolean = await startTracing();

async function startTracing(): Promise<boolean> {
  const problems: string[] = [];
  const settings = readTraceSettings((name) => process.env[name] ?? defaultOf(name), problems);
  if (problems.length > 0) throw new Error(problems.join("\n"));
  if (settings === undefined) return false;
  const [api, core, hooks, resources, sdk, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const root = settings.sampler.endsWith("always_on") ? new sdk.AlwaysOnSampler() : settings.sampler.endsWith("always_off") ? new sdk.AlwaysOffSampler() : new sdk.TraceIdRatioBasedSampler(settings.ratio);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ ...settings.resourceAttributes, "service.name": settings.serviceName }),
    sampler: settings.sampler.startsWith("parentbased_") ? new sdk.ParentBasedSampler({ root }) : root,
    spanLimits: { attributeValueLengthLimit: settings.attributeValueLengthLimit },
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: settings.url, timeoutMillis: settings.timeoutMs }), maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 1000 })],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  return true;
}
