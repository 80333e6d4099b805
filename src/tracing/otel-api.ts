/**
 * @module
 * The part of the OpenTelemetry API (`@opentelemetry/api`) the tracing feature uses, typed by its
 * shape: the host passes its own `api` object, so the package is the host's dependency, never ours,
 * and any 1.x version that has these members fits.
 */

/** An attribute value, as the API takes it. */
export type OtelAttributeValue = string | number | boolean;

/** Attributes of a span. */
export type OtelAttributes = Readonly<Record<string, OtelAttributeValue>>;

/** The API's immutable context: where the active span is kept. */
export interface OtelContext {
  getValue(key: symbol): unknown;
}

/** A span's identity, as `traceparent` carries it. */
export interface OtelSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
  readonly traceState?: OtelTraceState;
}

/** The API's `TraceState`: a `tracestate` list. */
export interface OtelTraceState {
  serialize(): string;
}

/** A span being recorded. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: OtelAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  /** False for a span the sampler dropped: nothing of it is kept. */
  isRecording(): boolean;
  end(): void;
}

/** How a span starts: its kind (`SpanKind`) and first attributes. */
export interface OtelSpanOptions {
  kind?: number;
  attributes?: OtelAttributes;
}

/** Starts spans. */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** The `@opentelemetry/api` module (`import * as api from "@opentelemetry/api"`), the members used here. */
export interface OtelApi {
  readonly context: {
    active(): OtelContext;
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: OtelContext, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F>;
  };
  readonly trace: {
    getTracer(name: string, version?: string): OtelTracer;
    getSpan(context: OtelContext): OtelSpan | undefined;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
  };
  createTraceState?(raw?: string): OtelTraceState;
}

/** `SpanKind` values of the API. */
export const SPAN_KIND = { internal: 0, server: 1, client: 2 } as const;

/** `SpanStatusCode.ERROR` of the API. */
export const STATUS_ERROR = 2;
