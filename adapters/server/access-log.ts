/**
 * @module
 * The standalone server's access log: one line per request (method, path and query, status, body
 * bytes, duration, request id) as JSON Lines or plain text, the request id sent back as
 * `X-Request-Id`; and error lines that carry the id of the request they happened in.
 *
 * Nothing from a request is logged but its method, target and id: never `Authorization`, an API
 * key or a body. A client's own `X-Request-Id` is kept when it is a short token (so a proxy's id
 * follows the request through), else the server makes one.
 *
 * Observing costs nothing it need not: the length is the one the answer declares (the core's JSON
 * answers all declare it), so no body is read; the time is formatted once a second; ids come from a
 * counter; and lines are written together, a few KiB at a time (see `_line-writer.ts`).
 */
import process from "node:process";
import type { App } from "../../src/mod.ts";
import { rawTarget } from "../../src/_request-target.ts";
import { createLineWriter } from "./_line-writer.ts";

/** How log lines are written: JSON Lines, or plain text for people. */
export type LogFormat = "json" | "text";

/** The log formats, for the settings. */
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

/** Where and how a log writes. */
export interface AccessLogOptions {
  readonly format: LogFormat;
  /** Writes a request line, without its newline. Default: stdout, a few KiB or 10 ms at a time. */
  readonly write?: (line: string) => void;
  /** Writes an error line, without its newline. Default: stderr, at once. */
  readonly writeError?: (line: string) => void;
}

/** One server's log. */
export interface AccessLog {
  /** The app with every request logged and answered with `X-Request-Id`. */
  wrap(app: App): App;
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
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A log with the given format, writing to stdout and stderr unless told otherwise. */
export function createAccessLog(options: AccessLogOptions): AccessLog {
  const lines = options.write === undefined ? createLineWriter((text) => void process.stdout.write(text)) : undefined;
  const write = options.write ?? ((line: string) => lines!.push(line));
  const writeError = options.writeError ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const format = options.format === "json" ? requestLineJson : requestLineText;
  const clock = createClock();
  const nextId = createRequestIds();
  // The id of each request being answered, for errors reported while answering it.
  const ids = new WeakMap<Request, string>();

  function wrap(app: App): App {
    async function fetch(request: Request): Promise<Response> {
      const started = performance.now();
      const given = request.headers.get("x-request-id");
      const requestId = given !== null && CLIENT_REQUEST_ID.test(given) ? given : nextId();
      ids.set(request, requestId);
      const { response, bytes } = await withId(await app.fetch(request), requestId);
      try {
        write(format({
          time: clock(),
          requestId,
          method: request.method,
          target: rawTarget(request.url),
          status: response.status,
          bytes,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        }));
      } catch (error) {
        // The log never changes an answer: a line that cannot be written is reported, the answer sent.
        reportError(error, request);
      }
      return response;
    }
    return { fetch, onError: app.onError };
  }

  function reportError(error: unknown, request?: Request): void {
    const requestId = request === undefined ? undefined : ids.get(request);
    const detail = error instanceof Error ? error.stack ?? String(error) : String(error);
    const time = clock();
    writeError(options.format === "json"
      ? JSON.stringify({ time, level: "error", requestId, message: "unexpected error", error: detail })
      : `${time} ERROR unexpected error${requestId === undefined ? "" : ` in request ${requestId}`}: ${detail}`);
  }

  return { wrap, reportError, flush: () => lines?.flush() };
}

/** A request line as JSON: the record's fields in order. */
export function requestLineJson(record: RequestRecord): string {
  // The time and the id hold no character JSON escapes (the id is checked or made here).
  return `{"time":"${record.time}","requestId":"${record.requestId}","method":${JSON.stringify(record.method)},"target":${JSON.stringify(record.target)},"status":${record.status},"bytes":${record.bytes},"durationMs":${record.durationMs}}`;
}

/** A request line as plain text: time, id, method, target, status, bytes, duration. */
export function requestLineText(record: RequestRecord): string {
  return `${record.time} ${record.requestId} ${visible(record.method)} ${visible(record.target)} ${record.status} ${record.bytes} ${record.durationMs}ms`;
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
 * The response with its `X-Request-Id`, and the length of its body: the one it declares, or, for an
 * answer that declares none (a host's own), its body read and put in a new response that does.
 */
async function withId(response: Response, requestId: string): Promise<{ response: Response; bytes: number }> {
  const declared = response.headers.get("content-length");
  if (declared !== null || response.status === 204 || response.status === 304) {
    response.headers.set("x-request-id", requestId);
    return { response, bytes: declared === null ? 0 : Number(declared) };
  }
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set("content-length", String(body.byteLength));
  headers.set("x-request-id", requestId);
  return { response: new Response(body, { status: response.status, headers }), bytes: body.byteLength };
}

/**
 * The time now as ISO 8601 with milliseconds, formatting the date and second only when the second
 * changes: `Date#toISOString` per line was 0.8–1.5 µs, this 0.2 µs (Bun 1.4, Node 20, in-process).
 */
function createClock(): () => string {
  let second = Number.NaN;
  let prefix = "";
  return () => {
    const now = Date.now();
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
 * this 0.08–0.1 µs (Bun 1.4, Node 20, in-process).
 */
function createRequestIds(): () => string {
  const random = crypto.randomUUID();
  // Keep the random bits, mark the version 8 (the variant bits stay those of the v4 drawn).
  const prefix = `${random.slice(0, 14)}8${random.slice(15, 24)}`;
  let count = 0;
  return () => `${prefix}${(++count).toString(16).padStart(12, "0")}`;
}
