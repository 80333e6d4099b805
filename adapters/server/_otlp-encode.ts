/**
 * @module
 * Private to the standalone server: a batch of recorded spans as an OTLP `ExportTraceServiceRequest`
 * (opentelemetry-proto's `trace.proto`), in protobuf or in OTLP's JSON, as the SDK's serializers
 * write it (test/otlp-encode.test.ts holds both to them). Written by hand into one reused buffer: the
 * SDK's serializer was the largest share of a traced request's time (bench/RESULTS.md).
 */
import type { OtelAttributes, OtelAttributeValue } from "../../src/tracing/mod.ts";
import type { IdBytes, RecordedSpan } from "./_span-recorder.ts";
import { hexOf } from "./_span-recorder.ts";

/** Who made the spans: the resource's attributes and the instrumentation scope. */
export interface SpanSource {
  readonly resource: OtelAttributes;
  readonly scope: { readonly name: string; readonly version: string };
  /** The epoch milliseconds the spans' times count from (`performance.timeOrigin`). */
  readonly timeOrigin: number;
}

// OTLP's flags: the W3C trace flags, and whether the parent's remoteness is known (always) and true.
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

/** The request for `spans` in OTLP's JSON encoding (ids as hex, 64-bit numbers as decimal strings). */
export function encodeJson(spans: readonly RecordedSpan[], source: SpanSource): string {
  return JSON.stringify({
    resourceSpans: [{
      resource: { attributes: jsonAttributes(source.resource, []), droppedAttributesCount: 0 },
      scopeSpans: [{ scope: source.scope, spans: spans.map((span) => jsonSpan(span, source.timeOrigin)) }],
    }],
  });
}

function jsonSpan(span: RecordedSpan, origin: number): unknown {
  return {
    traceId: hexOf(span.traceId, 16),
    spanId: hexOf(span.spanId, 8),
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: hexOf(span.parentSpanId, 8) }),
    ...(span.traceState === undefined ? {} : { traceState: span.traceState.serialize() }),
    name: span.name,
    kind: span.kind + 1,
    startTimeUnixNano: nanosText(origin, span.startMs),
    endTimeUnixNano: nanosText(origin, span.endMs),
    attributes: jsonAttributes(span.attributes, span.added),
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    status: { code: span.statusCode },
    links: [],
    droppedLinksCount: 0,
    flags: spanFlags(span),
  };
}

function jsonAttributes(attributes: OtelAttributes, added: readonly (string | OtelAttributeValue)[]): unknown[] {
  const list: unknown[] = [];
  for (const key in attributes) list.push({ key, value: jsonValue(attributes[key]!) });
  for (let at = 0; at < added.length; at += 2) list.push({ key: added[at], value: jsonValue(added[at + 1]!) });
  return list;
}

function jsonValue(value: OtelAttributeValue): unknown {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
}

/** A span's time as whole nanoseconds since the epoch, in decimal. */
function nanosText(origin: number, ms: number): string {
  const seconds = secondsOf(origin, ms);
  const nanos = nanosOf(origin, ms);
  return seconds === 0 ? String(nanos) : `${seconds}${String(nanos).padStart(9, "0")}`;
}

// `origin` + `ms` as whole seconds and nanoseconds, each part split apart before the sum as the SDK
// splits `performance.timeOrigin` and `performance.now()`: their sum in one number would lose the
// nanoseconds to rounding. Two functions of numbers, not one of a pair: a pair is an array a time.

/** The whole seconds of `origin` + `ms`. */
function secondsOf(origin: number, ms: number): number {
  return wholeSeconds(origin) + wholeSeconds(ms) + (partNanos(origin) + partNanos(ms) >= 1e9 ? 1 : 0);
}

/** The nanoseconds past `secondsOf(origin, ms)`. */
function nanosOf(origin: number, ms: number): number {
  const sum = partNanos(origin) + partNanos(ms);
  return sum >= 1e9 ? sum - 1e9 : sum;
}

/** The whole seconds of `ms`, after its nanoseconds are rounded. */
function wholeSeconds(ms: number): number {
  const seconds = Math.floor(ms / 1000);
  return Math.round((ms - seconds * 1000) * 1e6) === 1e9 ? seconds + 1 : seconds;
}

/** The nanoseconds of `ms` past its whole seconds, rounded. */
function partNanos(ms: number): number {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos === 1e9 ? 0 : nanos;
}

function spanFlags(span: RecordedSpan): number {
  return (span.parentRemote ? FLAGS_IS_REMOTE : 0) | FLAGS_HAS_IS_REMOTE | 0x01;
}

/** Spans encoded as they end into the open batch, so that no span object outlives its request; `seal` makes the batch an export's body. */
export interface BatchEncoder {
  add(span: RecordedSpan): void;
  /** The request of the spans added since the last seal. */
  seal(): Uint8Array<ArrayBuffer> | string;
}

/** A batch encoder to OTLP's JSON. */
export function jsonEncoder(source: SpanSource): BatchEncoder {
  // The request without spans, cut where they go: the last `[]` is the spans' list.
  const empty = encodeJson([], source);
  const head = empty.slice(0, empty.lastIndexOf("[]"));
  const tail = empty.slice(empty.lastIndexOf("[]") + 2);
  let spans: string[] = [];
  return {
    add: (span) => void spans.push(JSON.stringify(jsonSpan(span, source.timeOrigin))),
    seal() {
      const body = `${head}[${spans.join(",")}]${tail}`;
      spans = [];
      return body;
    },
  };
}

/** A batch encoder to protobuf; the resource and scope are written once and kept. */
export function protobufEncoder(source: SpanSource): BatchEncoder {
  const header = new Writer();
  const resourceStart = header.begin(1);
  attributesField(header, 1, source.resource, []);
  header.varintField(2, 0);
  header.end(resourceStart);
  const resource = header.bytes();
  header.reset();
  const scopeStart = header.begin(1);
  header.string(1, source.scope.name);
  header.string(2, source.scope.version);
  header.end(scopeStart);
  const scope = header.bytes();
  const spans = new Writer();
  const out = new Writer();
  return {
    add(span) {
      const start = spans.begin(2);
      spanFields(spans, span, source.timeOrigin);
      spans.end(start);
    },
    seal() {
      out.reset();
      const resourceSpans = out.begin(1);
      out.raw(resource);
      const scopeSpans = out.begin(2);
      out.raw(scope);
      out.raw(spans.view());
      out.end(scopeSpans);
      out.end(resourceSpans);
      spans.reset();
      return out.bytes();
    },
  };
}

/** `Span`'s fields in the SDK serializer's order. */
function spanFields(out: Writer, span: RecordedSpan, origin: number): void {
  out.id(1, span.traceId, 16);
  out.id(2, span.spanId, 8);
  const traceState = span.traceState?.serialize();
  if (traceState !== undefined && traceState !== "") out.string(3, traceState);
  if (span.parentSpanId !== undefined) out.id(4, span.parentSpanId, 8);
  out.string(5, span.name);
  out.varintField(6, span.kind + 1);
  out.fixed64(7, secondsOf(origin, span.startMs), nanosOf(origin, span.startMs));
  out.fixed64(8, secondsOf(origin, span.endMs), nanosOf(origin, span.endMs));
  attributesField(out, 9, span.attributes, span.added);
  // Nothing dropped (10), no events (11, 12), no links (13, 14): the counts written as the SDK writes them.
  out.varintField(10, 0);
  out.varintField(12, 0);
  out.varintField(14, 0);
  // `Status` is its code alone (0 or 2): two bytes, written without measuring.
  out.tag(15, 2);
  out.byte(2);
  out.varintField(3, span.statusCode);
  out.tag(16, 5);
  out.uint32(spanFlags(span));
}

/** A repeated `KeyValue` field. */
function attributesField(out: Writer, field: number, attributes: OtelAttributes, added: readonly (string | OtelAttributeValue)[]): void {
  for (const key in attributes) keyValue(out, field, key, attributes[key]!);
  for (let at = 0; at < added.length; at += 2) keyValue(out, field, added[at] as string, added[at + 1]!);
}

/** `KeyValue` (1 key, 2 value) with `AnyValue` (1 string, 2 bool, 3 int, 4 double). */
function keyValue(out: Writer, field: number, key: string, value: OtelAttributeValue): void {
  if (typeof value === "string" ? out.shortKeyString(field, key, value) : Number.isSafeInteger(value) && (value as number) >= 0 && out.shortKeyInt(field, key, value as number)) return;
  const pair = out.begin(field);
  out.string(1, key);
  const any = out.begin(2);
  if (typeof value === "string") out.string(1, value);
  else if (typeof value === "boolean") out.varintField(2, value ? 1 : 0);
  else if (Number.isInteger(value)) out.int64(3, value);
  else out.double(4, value);
  out.end(any);
  out.end(pair);
}

// The most bytes a length takes before its message is written: lengths up to 2^35.
const LENGTH_ROOM = 5;

// A class, not closures: the writer's state and its many small writes in one shape.
/** Protobuf's wire format into one growing buffer. */
class Writer {
  #buffer = new Uint8Array(64 * 1024);
  #view = new DataView(this.#buffer.buffer);
  #at = 0;
  #encoder = new TextEncoder();

  reset(): void {
    this.#at = 0;
  }

  /** What was written, as a view that the next write may change. */
  view(): Uint8Array {
    return this.#buffer.subarray(0, this.#at);
  }

  /** A copy of what was written. */
  bytes(): Uint8Array<ArrayBuffer> {
    return this.#buffer.slice(0, this.#at);
  }

  raw(bytes: Uint8Array): void {
    this.#room(bytes.length);
    this.#buffer.set(bytes, this.#at);
    this.#at += bytes.length;
  }

  tag(field: number, wire: number): void {
    this.#varint(field * 8 + wire);
  }

  varintField(field: number, value: number): void {
    this.tag(field, 0);
    this.#varint(value);
  }

  /** A signed 64-bit integer: negative ones as their ten-byte two's complement. */
  int64(field: number, value: number): void {
    this.tag(field, 0);
    if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) return this.#varint(value);
    let rest = BigInt.asUintN(64, BigInt(value));
    this.#room(10);
    for (; rest >= 0x80n; rest >>= 7n) this.#buffer[this.#at++] = Number(rest & 0x7fn) | 0x80;
    this.#buffer[this.#at++] = Number(rest);
  }

  double(field: number, value: number): void {
    this.tag(field, 1);
    this.#room(8);
    this.#view.setFloat64(this.#at, value, true);
    this.#at += 8;
  }

  uint32(value: number): void {
    this.#room(4);
    this.#view.setUint32(this.#at, value, true);
    this.#at += 4;
  }

  /** Seconds and nanoseconds as `fixed64` nanoseconds, in exact arithmetic below 2^53 on each half. */
  fixed64(field: number, seconds: number, nanos: number): void {
    this.tag(field, 1);
    // seconds × 10^9 + nanos = high × 2^16 × 10^9 + (low × 10^9 + nanos), with high, low the seconds' halves.
    const upper = Math.floor(seconds / 65536) * 1e9;
    const lower = (seconds % 65536) * 1e9 + nanos;
    const low = (lower % 2 ** 32) + (upper % 65536) * 65536;
    const high = Math.floor(lower / 2 ** 32) + Math.floor(upper / 65536) + Math.floor(low / 2 ** 32);
    this.uint32(low % 2 ** 32);
    this.uint32(high);
  }

  string(field: number, text: string): void {
    this.tag(field, 2);
    this.#room(text.length * 3 + LENGTH_ROOM);
    // Short ASCII, the common case, byte by byte after a one-byte length; anything else by the encoder.
    if (text.length < 128) {
      const start = this.#at++;
      for (let index = 0; index < text.length; index++) {
        const code = text.charCodeAt(index);
        if (code >= 0x80) {
          this.#at = start;
          return this.#encoded(text);
        }
        this.#buffer[this.#at++] = code;
      }
      this.#buffer[start] = text.length;
      return;
    }
    this.#encoded(text);
  }

  byte(value: number): void {
    this.#room(1);
    this.#buffer[this.#at++] = value;
  }

  /**
   * A `KeyValue` of a string in one forward pass, its lengths known before it is written, when the
   * key and value are ASCII and short (every length one byte); false, with nothing written, otherwise.
   */
  shortKeyString(field: number, key: string, value: string): boolean {
    const start = this.#at;
    if (this.#shortPair(field, key, value.length + 2) && this.#ascii(0x0a, value)) return true;
    this.#at = start;
    return false;
  }

  /** A `KeyValue` of a whole number below 2^53 in one forward pass, as `shortKeyString`. */
  shortKeyInt(field: number, key: string, value: number): boolean {
    let size = 1;
    for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 128)) size++;
    const start = this.#at;
    if (this.#shortPair(field, key, size + 1)) {
      this.varintField(3, value);
      return true;
    }
    this.#at = start;
    return false;
  }

  /** An id's `length` bytes (a trace or span id). */
  id(field: number, { bytes, at }: IdBytes, length: number): void {
    this.tag(field, 2);
    this.#varint(length);
    this.#room(length);
    for (let index = at; index < at + length; index++) this.#buffer[this.#at++] = bytes[index]!;
  }

  /** Starts a length-delimited message, leaving room for its length; returns where, for `end`. */
  begin(field: number): number {
    this.tag(field, 2);
    this.#room(LENGTH_ROOM);
    const start = this.#at;
    this.#at += LENGTH_ROOM;
    return start;
  }

  /** Ends the message begun at `start`: its length written, its bytes moved up to the length's real size. */
  end(start: number): void {
    const length = this.#at - start - LENGTH_ROOM;
    this.#at = start;
    this.#varint(length);
    this.#buffer.copyWithin(this.#at, start + LENGTH_ROOM, start + LENGTH_ROOM + length);
    this.#at += length;
  }

  /**
   * A short `KeyValue`'s start: its tag and length, the key, then its `AnyValue`'s tag and length
   * (`anyLength`), with room for the value; false when a length would take more than one byte or
   * the key is not ASCII.
   */
  #shortPair(field: number, key: string, anyLength: number): boolean {
    const pairLength = key.length + 2 + anyLength + 2;
    if (pairLength >= 128) return false;
    this.tag(field, 2);
    this.#room(pairLength + 1);
    this.#buffer[this.#at++] = pairLength;
    if (!this.#ascii(0x0a, key)) return false;
    this.#buffer[this.#at++] = 0x12;
    this.#buffer[this.#at++] = anyLength;
    return true;
  }

  /** `tag`, then `text` (under 128 characters) as a one-byte length and its bytes; false at a character beyond ASCII. */
  #ascii(tag: number, text: string): boolean {
    const buffer = this.#buffer;
    buffer[this.#at++] = tag;
    buffer[this.#at++] = text.length;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) return false;
      buffer[this.#at++] = code;
    }
    return true;
  }

  #encoded(text: string): void {
    const start = this.#at;
    this.#at += LENGTH_ROOM;
    const { written } = this.#encoder.encodeInto(text, this.#buffer.subarray(this.#at));
    this.#at = start;
    this.#varint(written);
    this.#buffer.copyWithin(this.#at, start + LENGTH_ROOM, start + LENGTH_ROOM + written);
    this.#at += written;
  }

  /** A varint of a whole number below 2^53. */
  #varint(value: number): void {
    this.#room(8);
    for (; value >= 0x80; value = Math.floor(value / 128)) this.#buffer[this.#at++] = (value % 128) | 0x80;
    this.#buffer[this.#at++] = value;
  }

  #room(bytes: number): void {
    if (this.#at + bytes + LENGTH_ROOM <= this.#buffer.length) return;
    const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.#at + bytes + LENGTH_ROOM));
    grown.set(this.#buffer.subarray(0, this.#at));
    this.#buffer = grown;
    this.#view = new DataView(grown.buffer);
  }
}
