/**
 * @module
 * Private to the tracing feature: a child span for every store operation made while a request's span
 * is active, named by the operation (`PetStore.create`), never carrying what is stored or asked for.
 */
import type { PetStore } from "../store.ts";
import { wrapStore } from "../store.ts";
import type { OtelApi, OtelSpan, OtelTracer } from "./otel-api.ts";
import { SPAN_KIND, STATUS_ERROR } from "./otel-api.ts";
import { _carryReadNow } from "../_internal/_answer-now.ts";

/** Runs `work` inside a span named `name` of `kind`, a child of the active span; without an active span, just runs it. */
export type SpanRunner = <T>(name: string, kind: number, attributes: Readonly<Record<string, string>>, work: () => Promise<T>) => Promise<T>;

/** A `SpanRunner` for work done now: the span ends when `work` returns or throws (`_answerNow`). */
export type _SpanRunnerNow = <T>(name: string, kind: number, attributes: Readonly<Record<string, string>>, work: () => T) => T;

/** A runner over the host's API and tracer: the span ends when `work` settles, with status ERROR and `error.type` when it rejects. */
export function createSpanRunner(api: OtelApi, tracer: OtelTracer): SpanRunner {
  return (name, kind, attributes, work) => {
    const active = api.context.active();
    // Work outside any request (a flush at shutdown, a health probe's store check) starts no trace
    // of its own, and a request whose span was not sampled records no children.
    if (api.trace.getSpan(active)?.isRecording() !== true) return work();
    const span = tracer.startSpan(name, { kind, attributes }, active);
    return api.context.with(api.trace.setSpan(active, span), work).then(
      (value) => (span.end(), value),
      (error: unknown) => {
        endFailed(span, error);
        throw error;
      },
    );
  };
}

/** The runner's twin for a read the store answers now: the same span, started, run in and ended with no promise (`_answerNow`, bench/RESULTS.md). */
export function _createSpanRunnerNow(api: OtelApi, tracer: OtelTracer): _SpanRunnerNow {
  return (name, kind, attributes, work) => {
    const active = api.context.active();
    if (api.trace.getSpan(active)?.isRecording() !== true) return work();
    const span = tracer.startSpan(name, { kind, attributes }, active);
    let value;
    try {
      value = api.context.with(api.trace.setSpan(active, span), work);
    } catch (error) {
      endFailed(span, error);
      throw error;
    }
    span.end();
    return value;
  };
}

/** Ends the span of work that failed with `error`: status ERROR and the error's type only (a message may quote what was stored, as a database's does). */
function endFailed(span: OtelSpan, error: unknown): void {
  span.setAttribute("error.type", error instanceof Error ? error.name : "_OTHER");
  span.setStatus({ code: STATUS_ERROR });
  span.end();
}

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * `store` with every measured operation (`STORE_METHODS`) in a span of its own, `PetStore.create`, while
 * a request's span is active; a read the store answers now is spanned now too, so the core answers it
 * with no promise as it would untraced (`_answerNow`).
 */
export function storeWithSpans(store: PetStore, run: SpanRunner, runNow: _SpanRunnerNow): PetStore {
  const wrapped = wrapStore(store, (method, _label, work) => run(`PetStore.${method}`, SPAN_KIND.internal, NO_ATTRIBUTES, work));
  return {
    ...wrapped,
    get: _carryReadNow(wrapped.get, store.get, (read) => runNow("PetStore.get", SPAN_KIND.internal, NO_ATTRIBUTES, read)),
    list: _carryReadNow(wrapped.list, store.list, (read) => runNow("PetStore.list", SPAN_KIND.internal, NO_ATTRIBUTES, read)),
  };
}
