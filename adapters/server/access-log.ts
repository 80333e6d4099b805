/**
 * @module
 * The standalone server's access log: one line per request (method, path and query, status, body
 * bytes, duration, request id) as JSON Lines or plain text, the request id sent back as
 * `X-Request-Id`; and error lines that carry the id of the request they happened in.
 *
 * Nothing from a request is logged but its method, target and id, and the name of the API key it
 * came with (the name the key ring gave it, in the same lookup the app made): never `Authorization`,
 * an API key, its hash or a body. A client's own `X-Request-Id` is kept when it is a short token (so
 * a proxy's id follows the request through), else the server makes one.
 *
 * Observing costs nothing it need not: the length is the one the answer declares (the core's JSON
 * answers all declare it), so no body is read; ids come from a counter; and what is learnt of each
 * answer is kept, and the lines made and written together, 64 at a time or every 10 ms (see
 * `_batch.ts`), as one string, the time formatted once a second and the numbers written from tables
 * (`_log-numbers.ts`). `X-Request-Id` is set on the answer here: given through a plug, in the record the
 * core makes each answer from, it made every answer slower (`bench/RESULTS.md`, "Issue 53, second round");
 * set here, the Node adapter keeps it beside the core's shared header record, copied once as it writes.
 */
import type { App, ConnectionInfo, KeyRing, Wrap } from "../../src/mod.ts";
import type { TraceIds } from "../../src/tracing/mod.ts";
import type { Output } from "./output.ts";
import { setHeaders } from "../../src/mod.ts";
import { _answerNowOf, _appAnsweringNow, rawTarget } from "../../src/_server-entry.ts";
import { readTraceContext } from "../../src/tracing/mod.ts";
import { createBatch } from "./_batch.ts";
import { createHexCounter, millisecondsText } from "./_log-numbers.ts";
import { createOutput } from "./output.ts";

/** How log lines are written: JSON Lines, or plain text for people. */
export type LogFormat = "json" | "text";

/** The log formats, for the settings. */
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

/** Where and how a log writes. */
export interface AccessLogOptions {
  readonly format: LogFormat;
  /** Writes a request line, without its newline. Default: stdout. Lines come 64 or 10 ms at a time (see `flush`). */
  readonly write?: (line: string) => void;
  /** Writes an error line, without its newline. Default: stderr, at once. */
  readonly writeError?: (line: string) => void;
  /** The trace and span a request was answered in, when traces are recorded. Default: the caller's, from its `traceparent`. */
  readonly traceIds?: (request: Request) => TraceIds | undefined;
  /** The stdout and stderr of the defaults, which count the lines they could not write. Default: the process's. */
  readonly output?: Output;
  /** The app's keys: a line then names the key its request came with (valid or expired). Default: no names. */
  readonly keys?: KeyRing;
}

/** One server's log. */
export interface AccessLog {
  /** The app with every request logged and answered with `X-Request-Id`: the log's answer seam. */
  readonly wrap: Wrap;
  /** Logs an unexpected error with the id of the request it happened in; an `onError` for `createApp`. */
  reportError(error: unknown, request?: Request): void;
  /** Writes the request lines not yet written; call it before the process exits. */
  flush(): void;
}

/** One request as the log records it. */
export interface RequestRecord {
  readonly time: string;
  readonly requestId: string;
  readonly method: string;
  /** The path and query as the client sent them. */
  readonly target: string;
  readonly status: number;
  /** The length of the answer's body (what a GET would send, for HEAD and 304). */
  readonly bytes: number;
  readonly durationMs: number;
  /** The trace the request belongs to and the span it was answered in (the caller's, when none is recorded here). */
  readonly trace?: TraceIds | undefined;
  /** The name of the API key the request came with, when it carried a configured one (valid or expired). */
  readonly keyName?: string | undefined;
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What the log learns of a request as it is answered, made into a line later. */
interface Answered {
  /** When it was answered, in milliseconds since the epoch. */
  readonly at: number;
  readonly requestId: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly bytes: number;
  readonly durationMs: number;
  readonly trace: TraceIds | undefined;
  readonly keyName: string | undefined;
}

/** A log with the given format, writing to stdout and stderr unless told otherwise. */
export function createAccessLog(options: AccessLogOptions): AccessLog {
  const { write } = options;
  // Made only when a default is used: each one listens for errors on the process's streams.
  const output = write === undefined || options.writeError === undefined ? options.output ?? createOutput() : undefined;
  // To stdout the batch's lines are one string, built as they are made.
  const writeLines = write === undefined
    ? (batch: readonly Answered[]) => {
      let text = "";
      for (const answered of batch) text += `${lineOf(answered)}\n`;
      output?.out(text);
    }
    : (batch: readonly Answered[]) => {
      for (const answered of batch) write(lineOf(answered));
    };
  const writeError = options.writeError ?? ((line: string) => output?.err(`${line}\n`));
  const format = options.format === "json" ? requestLineJson : requestLineText;
  const traceIds = options.traceIds ?? callerTrace;
  const { keys } = options;
  const clock = createClock();
  const nextId = createRequestIds();
  // The id of each request being answered, for errors reported while answering it.
  const ids = new WeakMap<Request, string>();
  const answers = createBatch<Answered>((batch) => {
    try {
      writeLines(batch);
    } catch (error) {
      // The log never changes an answer: lines that cannot be written are reported, the answers sent.
      reportError(error);
    }
  });

  function lineOf(answered: Answered): string {
    const { requestId, method, status, bytes, durationMs, trace, keyName } = answered;
    return format({ time: clock(answered.at), requestId, method, target: rawTarget(answered.url), status, bytes, durationMs, trace, keyName });
  }

  function wrap(app: App): App {
    const answer = _answerNowOf(app);
    // No layer of its own: the id is read before the app runs and the answer noted when it is
    // ready, in one callback (an async function here was one more promise per request); and an
    // answer the app gave now is noted now and passed on as it is (`_answerNow`, bench/RESULTS.md).
    function answerNow(request: Request, connection?: ConnectionInfo): Response | Promise<Response> {
      const started = performance.now();
      const given = request.headers.get("x-request-id");
      const requestId = given !== null && CLIENT_REQUEST_ID.test(given) ? given : nextId();
      ids.set(request, requestId);
      const answered = answer(request, connection);
      return answered instanceof Promise ? answered.then((response) => sized(request, response, requestId, started)) : sized(request, answered, requestId, started);
    }
    return _appAnsweringNow(answerNow, app.onError);
  }

  /** `response` noted with the length of its body: the one it declares, or, where it declares none, read. */
  function sized(request: Request, response: Response, requestId: string, started: number): Response | Promise<Response> {
    const declared = declaredLength(response);
    if (declared === undefined) return withLength(response).then(({ measured, bytes }) => noted(request, measured, requestId, started, bytes));
    return noted(request, response, requestId, started, declared);
  }

  /** `response` with its `X-Request-Id`, and noted for the log. */
  function noted(request: Request, response: Response, requestId: string, started: number, bytes: number): Response {
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    const keyName = keys?.keyOf(request).key?.name;
    answers.push({ at: Date.now(), requestId, method: request.method, url: request.url, status: response.status, bytes, durationMs, trace: traceIds(request), keyName });
    return setHeaders(response, { "x-request-id": requestId });
  }

  function reportError(error: unknown, request?: Request): void {
    const requestId = request === undefined ? undefined : ids.get(request);
    const detail = error instanceof Error ? error.stack ?? String(error) : String(error);
    const time = clock(Date.now());
    writeError(options.format === "json"
      ? JSON.stringify({ time, level: "error", requestId, message: "unexpected error", error: detail })
      : `${time} ERROR unexpected error${requestId === undefined ? "" : ` in request ${requestId}`}: ${detail}`);
  }

  return { wrap, reportError, flush: answers.flush };
}

/** A request line as JSON: the record's fields in order, the key's name and the trace's only when there are some. */
export function requestLineJson(record: RequestRecord): string {
  // The time, the ids and key names hold no character JSON escapes (the id is checked or made here,
  // trace ids are hex, a key's name letters, digits, `.`, `_` and `-`).
  const { trace, keyName } = record;
  const named = keyName === undefined ? "" : `,"keyName":"${keyName}"`;
  const traced = trace === undefined ? "" : `,"traceId":"${trace.traceId}","spanId":"${trace.spanId}"`;
  return `{"time":"${record.time}","requestId":"${record.requestId}","method":${JSON.stringify(record.method)},"target":${JSON.stringify(record.target)},"status":${record.status},"bytes":${record.bytes},"durationMs":${millisecondsText(record.durationMs)}${named}${traced}}`;
}

/** A request line as plain text: time, id, method, target, status, bytes, duration, and `keyName=…` and `trace=… span=…` when there are some. */
export function requestLineText(record: RequestRecord): string {
  const { trace, keyName } = record;
  const named = keyName === undefined ? "" : ` keyName=${keyName}`;
  const traced = trace === undefined ? "" : ` trace=${trace.traceId} span=${trace.spanId}`;
  return `${record.time} ${record.requestId} ${visible(record.method)} ${visible(record.target)} ${record.status} ${record.bytes} ${millisecondsText(record.durationMs)}ms${named}${traced}`;
}

/** The caller's trace and span, from a valid `traceparent`: what joins a line to its trace when none is recorded here. */
function callerTrace(request: Request): TraceIds | undefined {
  const caller = readTraceContext(request.headers);
  return caller === undefined ? undefined : { traceId: caller.traceId, spanId: caller.parentId };
}

/**
 * `text` with anything but visible ASCII percent-encoded as UTF-8, so a line is always one line. A
 * lone surrogate, which has no UTF-8, is written as U+FFFD's bytes (`encodeURIComponent` would throw).
 */
export function visible(text: string): string {
  let plain = true;
  for (let i = 0; i < text.length && plain; i++) plain = isVisibleAscii(text.charCodeAt(i));
  if (plain) return text;
  let out = "";
  for (const character of text) {
    if (character.length === 1 && isVisibleAscii(character.charCodeAt(0))) out += character;
    else out += encodeURIComponent(character.length === 1 && isSurrogate(character.charCodeAt(0)) ? "\ufffd" : character);
  }
  return out;
}

function isVisibleAscii(unit: number): boolean {
  return unit >= 0x21 && unit <= 0x7e;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/**
 * The length of the body `response` declares, 0 for a status that has none, or `undefined` when it
 * declares none (a host's own answer).
 */
function declaredLength(response: Response): number | undefined {
  const declared = response.headers.get("content-length");
  if (declared !== null) return Number(declared);
  return response.status === 204 || response.status === 304 ? 0 : undefined;
}

/** An answer that declares no length, its body read and put in a new answer that declares it; and that length. */
async function withLength(response: Response): Promise<{ measured: Response; bytes: number }> {
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set("content-length", String(body.byteLength));
  return { measured: new Response(body, { status: response.status, headers }), bytes: body.byteLength };
}

/**
 * A time as ISO 8601 with milliseconds, formatting the date and second only when the second
 * changes: `Date#toISOString` per line was 0.8–1.5 µs, this 0.2 µs (Bun 1.4, Node 20, in-process).
 */
function createClock(): (now: number) => string {
  let second = Number.NaN;
  let prefix = "";
  return (now) => {
    const ms = now % 1000;
    if (now - ms !== second) {
      second = now - ms;
      prefix = new Date(second).toISOString().slice(0, 20);
    }
    return `${prefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
  };
}

/**
 * Request ids as UUIDv8 (RFC 9562 §5.8): 74 random bits drawn once per log, then a 48-bit counter,
 * so ids are unique across servers and restarts: `crypto.randomUUID` per request was 0.26–0.45 µs,
 * this 0.06–0.08 µs with the counter's table (Bun 1.4, Node 20, in-process).
 */
function createRequestIds(): () => string {
  const random = crypto.randomUUID();
  // Keep the random bits, mark the version 8 (the variant bits stay those of the v4 drawn).
  const prefix = `${random.slice(0, 14)}8${random.slice(15, 24)}`;
  const count = createHexCounter();
  return () => `${prefix}${count()}`;
}
