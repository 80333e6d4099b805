/**
 * @module
 * The standalone server's access log: one line per request (method, path and query, status, body
 * bytes, duration, request id) as JSON Lines or plain text, the request id sent back as
 * `X-Request-Id`; and error lines that carry the id of the request they happened in.
 *
 * Nothing from a request is logged but its method, target and id: never `Authorization`, an API
 * key or a body. A client's own `X-Request-Id` is kept when it is a short token (so a proxy's id
 * follows the request through), else the server makes one.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import type { App, ConnectionInfo } from "../src/mod.ts";
import { splitUrl } from "../src/_request-target.ts";

/** How log lines are written: JSON Lines, or plain text for people. */
export type LogFormat = "json" | "text";

/** The log formats, for the settings. */
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

/** Where and how a log writes. */
export interface AccessLogOptions {
  readonly format: LogFormat;
  /** Writes a request line, without its newline. Default: stdout. */
  readonly write?: (line: string) => void;
  /** Writes an error line, without its newline. Default: stderr. */
  readonly writeError?: (line: string) => void;
}

/** One server's log. */
export interface AccessLog {
  /** The app with every request logged and answered with `X-Request-Id`. */
  wrap(app: App): App;
  /** Logs an unexpected error with the id of the request it happened in; an `onError` for `createApp`. */
  reportError(error: unknown, request?: Request): void;
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
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const writeError = options.writeError ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const format = options.format === "json" ? JSON.stringify : requestLineText;
  // The id of each request being answered, for errors reported while answering it.
  const ids = new WeakMap<Request, string>();

  function wrap(app: App): App {
    async function fetch(request: Request, connection?: ConnectionInfo): Promise<Response> {
      const started = performance.now();
      const given = request.headers.get("x-request-id");
      const requestId = given !== null && CLIENT_REQUEST_ID.test(given) ? given : crypto.randomUUID();
      ids.set(request, requestId);
      const { response, bytes } = await withIdAndLength(await app.fetch(request, connection), requestId);
      const target = splitUrl(request.url);
      write(format({
        time: new Date().toISOString(),
        requestId,
        method: request.method,
        target: target === undefined ? request.url : target.query === "" ? target.path : `${target.path}?${target.query}`,
        status: response.status,
        bytes,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      }));
      return response;
    }
    return { fetch, onError: app.onError };
  }

  function reportError(error: unknown, request?: Request): void {
    const requestId = request === undefined ? undefined : ids.get(request);
    const detail = error instanceof Error ? error.stack ?? String(error) : String(error);
    const time = new Date().toISOString();
    writeError(options.format === "json"
      ? JSON.stringify({ time, level: "error", requestId, message: "unexpected error", error: detail })
      : `${time} ERROR unexpected error${requestId === undefined ? "" : ` in request ${requestId}`}: ${detail}`);
  }

  return { wrap, reportError };
}

/** A request line as plain text: time, id, method, target, status, bytes, duration. */
export function requestLineText(record: RequestRecord): string {
  // Anything but visible ASCII in the target is percent-encoded, so a line is always one line.
  const target = record.target.replace(/[^\x21-\x7e]/g, (character) => encodeURIComponent(character));
  return `${record.time} ${record.requestId} ${record.method} ${target} ${record.status} ${record.bytes} ${record.durationMs}ms`;
}

/**
 * The response with its `X-Request-Id`, and the length of its body. The core's JSON answers declare
 * no `Content-Length`, so their text is read and put in a new response that declares it, with the id
 * set in the same `Headers`: setting it on the finished response cost 1 µs more per request on Bun
 * 1.4 and Node 20 (in-process, 200,000 answers). (On Node, `FastResponse` hands its text over without
 * making a stream.)
 */
async function withIdAndLength(response: Response, requestId: string): Promise<{ response: Response; bytes: number }> {
  const declared = response.headers.get("content-length");
  if (declared !== null || response.status === 204 || response.status === 304) {
    response.headers.set("x-request-id", requestId);
    return { response, bytes: declared === null ? 0 : Number(declared) };
  }
  const text = await response.text();
  const bytes = Buffer.byteLength(text);
  const headers = new Headers(response.headers);
  headers.set("content-length", String(bytes));
  headers.set("x-request-id", requestId);
  return { response: new Response(text, { status: response.status, headers }), bytes };
}
