/**
 * @module
 * Traces with the host's OpenTelemetry: one span per request, continuing the caller's W3C trace
 * context (or the host's own span), named by the route template (`GET /v1/pets/{petId}`) with the
 * stable HTTP semantic-convention attributes, and a child span per store operation. The host passes
 * its `@opentelemetry/api` object; nothing of OpenTelemetry is a dependency of this package.
 *
 * ```ts
 * import * as api from "@opentelemetry/api";
 * import { createApp, createMemoryStore } from "animal-store";
 * import { tracing } from "animal-store/tracing";
 * const traces = tracing({ api });
 * const app = traces.wrap(createApp({ store: traces.store(createMemoryStore()), apiKeys: ["secret"] }));
 * ```
 */
import type { KeyRing } from "../api-keys/mod.ts";
import type { PetStore } from "../store.ts";
import type { App, ConnectionInfo, Wrap } from "../types.ts";
import type { OtelApi, OtelContext, OtelSpan, OtelTracer } from "./otel-api.ts";
import type { SpanRunner } from "./_store-spans.ts";
import type { _Answer } from "../_internal/_answer-now.ts";
import { _answerNowOf, _appAnsweringNow } from "../_internal/_answer-now.ts";
import { createRouteMatcher, ROUTES } from "../routes.ts";
import { SPAN_KIND } from "./otel-api.ts";
import { endServerSpan, serverSpanStart } from "./_server-span.ts";
import { _createSpanRunnerNow, createSpanRunner, storeWithSpans } from "./_store-spans.ts";
import { readTraceContext } from "./trace-context.ts";

export { SPAN_KIND, STATUS_ERROR } from "./otel-api.ts";
export type { OtelApi, OtelAttributes, OtelAttributeValue, OtelContext, OtelSpan, OtelSpanContext, OtelSpanOptions, OtelTracer, OtelTraceState } from "./otel-api.ts";
export type { SpanRunner } from "./_store-spans.ts";
export type { TraceContext } from "./trace-context.ts";
export { parseTraceparent, parseTracestate, readTraceContext, SAMPLED_FLAG } from "./trace-context.ts";

/** What the tracing feature needs: the host's API object, and optionally its tracer and the app's base path. */
export interface TracingOptions {
  /** The host's `@opentelemetry/api` module (`import * as api from "@opentelemetry/api"`). */
  readonly api: OtelApi;
  /** The tracer to start spans with. Default: `api.trace.getTracer("animal-store")`. */
  readonly tracer?: OtelTracer;
  /** The path the app is mounted under, as given to `createApp`. Default `/v1`. */
  readonly basePath?: string;
  /** The app's key ring (`createKeyRing`, given to `createApp` as `apiKeys`): a request's span then names its key (`animal_store.api_key.name`). */
  readonly keys?: KeyRing;
}

/** A trace id and the id of the span a request was answered in, as a log line carries them. */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

/** Traces for one app. */
export interface Tracing {
  /** The app with a span around every request: the feature's answer seam. */
  readonly wrap: Wrap;
  /** The store with a child span around every operation made while a request's span is active. */
  store(store: PetStore): PetStore;
  /** Runs `work` in a child span of the active request span (for a store's own steps, e.g. SQL statements). */
  readonly inSpan: SpanRunner;
  /** The ids of the span `request` is being, or was, answered in; `undefined` when it had none (no tracer provider registered). */
  idsOf(request: Request): TraceIds | undefined;
}

const INVALID_TRACE_ID = "0".repeat(32);

/** Traces over the host's OpenTelemetry API. */
export function tracing(options: TracingOptions): Tracing {
  const { api, keys } = options;
  const tracer = options.tracer ?? api.trace.getTracer("animal-store");
  const basePath = options.basePath ?? "/v1";
  const matchRoute = createRouteMatcher(ROUTES);
  const inSpan = createSpanRunner(api, tracer);
  const inSpanNow = _createSpanRunnerNow(api, tracer);
  const spans = new WeakMap<Request, OtelSpan>();

  /** Where the request's span hangs: the host's active span, else the caller's `traceparent`, else a new trace. */
  function parentOf(request: Request): { context: OtelContext; hosted: boolean } {
    const active = api.context.active();
    if (api.trace.getSpan(active) !== undefined) return { context: active, hosted: true };
    const incoming = readTraceContext(request.headers);
    if (incoming === undefined) return { context: active, hosted: false };
    const { traceId, parentId, flags, tracestate } = incoming;
    const traceState = tracestate === undefined ? undefined : api.createTraceState?.(tracestate);
    const remote = { traceId, spanId: parentId, traceFlags: flags, isRemote: true, ...(traceState === undefined ? {} : { traceState }) };
    return { context: api.trace.setSpanContext(active, remote), hosted: false };
  }

  function wrap(app: App): App {
    const answer = _answerNowOf(app);
    // `_answerNow`: an answer the app gives now ends the span now and goes on as it is, with no
    // promise; one it promises ends the span when it settles (bench/RESULTS.md, issue 53).
    function answerNow(request: Request, connection?: ConnectionInfo): _Answer {
      const parent = parentOf(request);
      const { name, attributes } = serverSpanStart(request, matchRoute, basePath);
      // Inside a host's own server span ours is a step of it, not a second server span.
      const span = tracer.startSpan(name, { kind: parent.hosted ? SPAN_KIND.internal : SPAN_KIND.server, attributes }, parent.context);
      spans.set(request, span);
      let answered: _Answer;
      try {
        // A span the sampler dropped has no children to find it: the app runs outside any context. The
        // app is called in a closure, not through `with`'s arguments, which a host's context manager may not pass on.
        answered = span.isRecording() ? api.context.with(api.trace.setSpan(parent.context, span), () => answer(request, connection)) : answer(request, connection);
      } catch (error) {
        endServerSpan(span, 500, keyNameOf(request));
        throw error;
      }
      if (!(answered instanceof Promise)) return ended(span, request, answered);
      return answered.then(
        (response) => ended(span, request, response),
        (error: unknown) => {
          endServerSpan(span, 500, keyNameOf(request));
          throw error;
        },
      );
    }
    return _appAnsweringNow(answerNow, app.onError);
  }

  /** `response`, the request's span ended with its status. */
  function ended(span: OtelSpan, request: Request, response: Response): Response {
    endServerSpan(span, response.status, keyNameOf(request));
    return response;
  }

  /** The name of the key the app found on the request (the same lookup), known or expired. */
  function keyNameOf(request: Request): string | undefined {
    return keys?.keyOf(request).key?.name;
  }

  function idsOf(request: Request): TraceIds | undefined {
    const context = spans.get(request)?.spanContext();
    // The API without a provider answers with the invalid, all-zero ids.
    return context === undefined || context.traceId === INVALID_TRACE_ID ? undefined : { traceId: context.traceId, spanId: context.spanId };
  }

  return { wrap, store: (store) => storeWithSpans(store, inSpan, inSpanNow), inSpan, idsOf };
}

