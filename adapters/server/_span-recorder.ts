/**
 * @module
 * Private to the standalone server: a span recorder of the project's own behind the part of the
 * OpenTelemetry API the tracing feature talks to (`OtelApi`, `OtelTracer`, `OtelSpan`), so a traced
 * request makes no SDK span objects. A span keeps its ids (the random bytes they were drawn as,
 * written out as hex only when asked for), times, name, kind, status and the attributes it was given
 * (the start's own object, never copied entry by entry nor written into: the server's callers hand a
 * fresh or a frozen one); an ended span goes to the export's queue, which
 * encodes it at once. Samplers and the length limit are the SDK's, as
 * `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` and `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` name them;
 * the active span is carried across the app's awaits by `AsyncLocalStorage`, as the SDK's context
 * manager carries it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { OtelApi, OtelAttributes, OtelAttributeValue, OtelContext, OtelSpan, OtelSpanContext, OtelSpanOptions, OtelTracer, OtelTraceState } from "../../src/tracing/mod.ts";
import type { SamplerName } from "./trace-settings.ts";
import { SAMPLED_FLAG } from "../../src/tracing/mod.ts";
import { HEX_PAIRS } from "./_log-numbers.ts";

/** An id's bytes: `length` of them in `bytes` from `at` (a span's ids are views into the pool they were drawn from). */
export interface IdBytes {
  readonly bytes: Uint8Array;
  readonly at: number;
}

/** A span as recorded, ended, waiting for the export: what the encoders read. */
export interface RecordedSpan {
  /** The trace id's 16 bytes. */
  readonly traceId: IdBytes;
  /** The span id's 8 bytes. */
  readonly spanId: IdBytes;
  /** The parent's span id's 8 bytes; `undefined` for a root span. */
  readonly parentSpanId: IdBytes | undefined;
  /** True when the parent came from the caller's `traceparent`. */
  readonly parentRemote: boolean;
  readonly traceState: OtelTraceState | undefined;
  readonly name: string;
  /** The API's `SpanKind` (0 internal, 1 server, 2 client). */
  readonly kind: number;
  /** Milliseconds since `performance.timeOrigin`, fractional. */
  readonly startMs: number;
  readonly endMs: number;
  /** The attributes the span started with, each string cut to the length limit. */
  readonly attributes: OtelAttributes;
  /** Attributes set later, as key, value, key, value. */
  readonly added: readonly (string | OtelAttributeValue)[];
  /** The status code: 0 unset, 2 error. */
  readonly statusCode: number;
}

/** How spans are sampled and cut, and where ended ones go. */
export interface RecorderOptions {
  readonly sampler: SamplerName;
  /** The sampled fraction for the `traceidratio` samplers. */
  readonly ratio: number;
  /** The longest an attribute's string value may be, in characters. */
  readonly attributeValueLengthLimit: number;
  /** Takes each span as it ends. */
  readonly ended: (span: RecordedSpan) => void;
}

/** The recorder: the API object and the tracer to give the tracing feature. */
export interface SpanRecorder {
  readonly api: OtelApi;
  readonly tracer: OtelTracer;
}

/** A context: the active span or the caller's, when there is one. */
interface Context extends OtelContext {
  readonly span: OtelSpan | undefined;
}

/** Creates a recorder. */
export function createSpanRecorder(options: RecorderOptions): SpanRecorder {
  const storage = new AsyncLocalStorage<Context>();
  const root = contextOf(undefined);
  const sampled = samplerOf(options.sampler, options.ratio);
  const { attributeValueLengthLimit: limit, ended } = options;
  const tracer: OtelTracer = {
    startSpan(name, spanOptions, context) {
      const parent = parentOf((context as Context | undefined)?.span);
      const traceId = parent === undefined ? randomId(16) : parent.traceId;
      const spanId = randomId(8);
      if (!sampled(parent, traceId)) return new Unrecorded(droppedContext(traceId, spanId, parent?.traceState));
      return new Recording(traceId, spanId, parent, name, spanOptions, limit, ended);
    },
  };
  const api: OtelApi = {
    context: {
      active: () => storage.getStore() ?? root,
      with: (context, fn, thisArg, ...args) => (thisArg === undefined ? storage.run(context as Context, fn, ...args) : storage.run(context as Context, () => fn.apply(thisArg, args))),
    },
    trace: {
      getTracer: () => tracer,
      getSpan: (context) => (context as Context).span,
      // A recorded span is its own context: no holder is made for it.
      setSpan: (_context, span) => (span instanceof Recording ? span : contextOf(span)),
      setSpanContext: (_context, spanContext) => contextOf(new Unrecorded(spanContext)),
    },
    // The feature hands over a `tracestate` it has already checked and normalised.
    createTraceState: (raw = "") => ({ serialize: () => raw }),
  };
  return { api, tracer };
}

function contextOf(span: OtelSpan | undefined): Context {
  return new SpanHolder(span);
}

/** What a child takes from its parent: the trace, the parent's id, whether it came from a caller, its decision and `tracestate`. */
interface Parent {
  readonly traceId: IdBytes;
  readonly spanId: IdBytes;
  readonly remote: boolean;
  readonly sampled: boolean;
  readonly traceState: OtelTraceState | undefined;
}

/** A span as a parent: a recorded one by its own bytes, any other (the caller's, a dropped one) by its ids' hex. */
function parentOf(span: OtelSpan | undefined): Parent | undefined {
  if (span === undefined) return undefined;
  if (span instanceof Recording) return span;
  return span instanceof Unrecorded ? span.asParent() : parentOfContext(span.spanContext());
}

/** A parent from the API's form of a span's identity (hex ids, trace flags). */
function parentOfContext(context: OtelSpanContext): Parent {
  const { traceId, spanId, traceFlags, traceState } = context;
  return { traceId: { bytes: bytesOfHex(traceId), at: 0 }, spanId: { bytes: bytesOfHex(spanId), at: 0 }, remote: context.isRemote === true, sampled: (traceFlags & SAMPLED_FLAG) !== 0, traceState };
}

/** The context of a span the sampler dropped: its ids as hex, not sampled. */
function droppedContext(traceId: IdBytes, spanId: IdBytes, traceState: OtelTraceState | undefined): OtelSpanContext {
  return { traceId: hexOf(traceId, 16), spanId: hexOf(spanId, 8), traceFlags: 0, ...(traceState === undefined ? {} : { traceState }) };
}

// A class, not an object with a closure: a context is made per span, and the bundles name every closure made.
/** A context holding a span, under any key (only the span is ever asked for). */
class SpanHolder implements Context {
  readonly span: OtelSpan | undefined;
  constructor(span: OtelSpan | undefined) {
    this.span = span;
  }
  getValue(): OtelSpan | undefined {
    return this.span;
  }
}

// A class, not closures: one shape for every span and no functions made per span. A recorded span
// is its own context (`Context`) and its children's parent (`Parent`), so starting one makes no
// other object, and its ids stay bytes unless its context is asked for (the access log's ids).
/** A sampled span being recorded; on `end` it is handed to the queue. */
class Recording implements OtelSpan, RecordedSpan, Context, Parent {
  readonly traceId: IdBytes;
  readonly spanId: IdBytes;
  readonly name: string;
  readonly parentSpanId: IdBytes | undefined;
  readonly parentRemote: boolean;
  readonly traceState: OtelTraceState | undefined;
  readonly kind: number;
  readonly startMs: number = now();
  endMs = 0;
  attributes: OtelAttributes;
  added: (string | OtelAttributeValue)[] = [];
  statusCode = 0;
  readonly limit: number;
  readonly whenEnded: (span: RecordedSpan) => void;
  readonly remote = false;
  readonly sampled = true;
  #ended = false;
  #context: OtelSpanContext | undefined;

  constructor(traceId: IdBytes, spanId: IdBytes, parent: Parent | undefined, name: string, options: OtelSpanOptions | undefined, limit: number, whenEnded: (span: RecordedSpan) => void) {
    this.traceId = traceId;
    this.spanId = spanId;
    this.name = name;
    this.limit = limit;
    this.whenEnded = whenEnded;
    this.parentSpanId = parent?.spanId;
    this.parentRemote = parent?.remote === true;
    this.traceState = parent?.traceState;
    this.kind = options?.kind ?? 0;
    this.attributes = cutAttributes(options?.attributes ?? {}, limit);
  }

  /** As a context, the span is the active one. */
  get span(): OtelSpan {
    return this;
  }

  getValue(): OtelSpan {
    return this;
  }

  spanContext(): OtelSpanContext {
    const { traceId, spanId, traceState } = this;
    return (this.#context ??= { traceId: hexOf(traceId, 16), spanId: hexOf(spanId, 8), traceFlags: SAMPLED_FLAG, ...(traceState === undefined ? {} : { traceState }) });
  }

  isRecording(): boolean {
    return !this.#ended;
  }

  setAttribute(key: string, value: OtelAttributeValue): this {
    if (this.#ended) return this;
    const kept = typeof value === "string" && value.length > this.limit ? copiedPrefix(value, this.limit) : value;
    // A key set again replaces its value, as the API says: copied from the start's object, never written into it.
    if (Object.hasOwn(this.attributes, key)) this.attributes = { ...this.attributes, [key]: kept };
    else {
      let at = 0;
      while (at < this.added.length && this.added[at] !== key) at += 2;
      this.added[at] = key;
      this.added[at + 1] = kept;
    }
    return this;
  }

  setStatus(status: { code: number }): this {
    if (!this.#ended) this.statusCode = status.code;
    return this;
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.endMs = now();
    this.whenEnded(this);
  }
}

/** A span the sampler dropped, or the caller's: ids only, nothing kept. */
class Unrecorded implements OtelSpan {
  readonly context: OtelSpanContext;
  #parent: Parent | undefined;
  constructor(context: OtelSpanContext) {
    this.context = context;
  }
  spanContext(): OtelSpanContext {
    return this.context;
  }
  /** The span as its children's parent, its ids read once. */
  asParent(): Parent {
    return (this.#parent ??= parentOfContext(this.context));
  }
  isRecording(): boolean {
    return false;
  }
  setAttribute(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  end(): void {}
}

/** Milliseconds since `performance.timeOrigin`: monotonic within the process, the SDK's clock too. */
function now(): number {
  return performance.now();
}

/** `attributes` itself unless a string in it is longer than `limit`; then a copy with those cut. */
function cutAttributes(attributes: OtelAttributes, limit: number): OtelAttributes {
  let long = false;
  for (const key in attributes) long ||= typeof attributes[key] === "string" && attributes[key].length > limit;
  if (!long) return attributes;
  const cut: Record<string, OtelAttributeValue> = {};
  for (const key in attributes) {
    const value = attributes[key]!;
    cut[key] = typeof value === "string" && value.length > limit ? copiedPrefix(value, limit) : value;
  }
  return cut;
}

/**
 * The first `length` characters of `text` as a new string, not a view into `text` (a surrogate pair
 * cut in two ends in U+FFFD, as OTLP would send it): `slice` keeps the whole value alive behind the
 * cut on every engine, and a 14 KB `User-Agent` stayed whole in the span queue (bench/RESULTS.md).
 */
function copiedPrefix(text: string, length: number): string {
  return new TextDecoder().decode(new TextEncoder().encode(text.slice(0, length)));
}

type Sampled = (parent: Parent | undefined, traceId: IdBytes) => boolean;

/** The sampler `OTEL_TRACES_SAMPLER` names, deciding as the SDK's does. */
function samplerOf(name: SamplerName, ratio: number): Sampled {
  const rootName = name.replace("parentbased_", "");
  const root: Sampled = rootName === "always_on" ? () => true : rootName === "always_off" ? () => false : ratioSampler(ratio);
  // A parent's decision, remote or local, is followed; only a root span asks the root sampler.
  return name.startsWith("parentbased_") ? (parent, traceId) => (parent === undefined ? root(parent, traceId) : parent.sampled) : root;
}

/** The SDK's `TraceIdRatioBasedSampler`: the trace id's four 32-bit words (big-endian, as its hex reads) XORed, under `ratio` of 2^32. */
function ratioSampler(ratio: number): Sampled {
  const bound = ratio === 1 ? 2 ** 32 : Math.floor(ratio * 0xffffffff);
  return (_parent, { bytes, at }) => {
    let accumulated = 0;
    for (let word = at; word < at + 16; word += 4) accumulated ^= (bytes[word]! << 24) | (bytes[word + 1]! << 16) | (bytes[word + 2]! << 8) | bytes[word + 3]!;
    return accumulated >>> 0 < bound;
  };
}

// Random bytes drawn 4 KiB at a time: one `getRandomValues` call per some 170 requests. A full pool
// is replaced, never refilled, as the spans still recording hold views into it.
let pool = new Uint8Array(4096);
let taken = pool.length;

/** `length` random bytes, never all zero (an invalid id), as a view into the pool. */
function randomId(length: number): IdBytes {
  if (taken + length > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(pool.length));
    taken = 0;
  }
  const at = taken;
  taken += length;
  let any = 0;
  for (let index = at; index < taken; index++) any |= pool[index]!;
  if (any === 0) pool[taken - 1] = 1;
  return { bytes: pool, at };
}

// Each byte's two hex digits as character codes, and the codes of an 8- and a 16-byte id's digits,
// reused: one `String.fromCharCode` call makes a flat string, where pairs added one by one make a
// rope (an 8-byte id 0.05 against 0.09 µs on Node and Deno, 0.11 against 0.24 on Bun).
const HEX_CODES = new Uint8Array(512);
for (let byte = 0; byte < 256; byte++) for (const digit of [0, 1]) HEX_CODES[byte * 2 + digit] = HEX_PAIRS[byte]!.charCodeAt(digit);
const DIGITS: Record<number, number[]> = { 8: new Array<number>(16).fill(0), 16: new Array<number>(32).fill(0) };

/** An id's `length` (8 or 16) bytes as lowercase hex. */
export function hexOf({ bytes, at }: IdBytes, length: 8 | 16): string {
  const digits = DIGITS[length]!;
  for (let index = 0; index < length; index++) {
    const byte = bytes[at + index]!;
    digits[index * 2] = HEX_CODES[byte * 2]!;
    digits[index * 2 + 1] = HEX_CODES[byte * 2 + 1]!;
  }
  return String.fromCharCode.apply(null, digits);
}

/** Lowercase hex digits (an id the API handed over) as the bytes they spell. */
export function bytesOfHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}
