/**
 * @module
 * Serves the app with `Deno.serve`.
 */
import type { Handler } from "../src/mod.ts";
import type { Serve, Server } from "./_serve.ts";
import { errorResponse, internalErrorResponse } from "../src/errors.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../src/mod.ts";
import { wholeBodyRequest } from "./_deno-request.ts";
import { createDraining } from "./_draining.ts";
import { DEFAULT_TIMEOUTS } from "./_timeouts.ts";

export type { Serve, Server, ServeOptions } from "./_serve.ts";
export type { Timeouts } from "./_timeouts.ts";

/**
 * Methods the Fetch API will not build a request with a body for, in any case (Deno hands a body
 * even to a lowercase `get`); the app answers them without reading one, so they need no deadline.
 */
const NO_BODY_METHODS = new Set(["GET", "HEAD", "CONNECT", "TRACE", "TRACK"]);

/** How long to wait before listening again after Deno's accept loop failed. */
const RELISTEN_DELAY_MS = 200;

/**
 * Serves an app on Deno.
 *
 * Closing waits for in-flight requests itself before calling `shutdown()`: on Deno 2.9,
 * `shutdown()` makes the bodies of in-flight requests unreadable (denoland/deno#36809), which
 * would fail a create whose body is still arriving.
 *
 * When accepting a connection fails (out of file descriptors: many clients that open connections
 * and send nothing), Deno 2.9 ends the whole server and rejects `finished`, which unhandled ends
 * the process. So the rejection is handled and the server listens again on the same port a moment
 * later: meanwhile new connections are refused, the open ones are served.
 *
 * `Deno.serve` has no header or idle timeout in 2.9 (docs/running.md), which is why the standalone server
 * serves with `serveNode` on Deno unless told otherwise; the body timeout is kept here.
 */
export const serveDeno: Serve = (app, options) =>
  new Promise((resolve) => {
    const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
    const deadlines = createBodyDeadlines(timeouts.bodySeconds * 1000);
    const draining = createDraining(withBodyDeadline(app.fetch, deadlines));
    let server: Deno.HttpServer;
    let closed = false;
    let boundPort: number | undefined;
    // `shutdown()` stops listening, closes a connection holding half a request, and each of the
    // others once its answer (the held requests' 503) is out; a body still awaited at the stop's limit
    // is answered 408 at once rather than at its deadline.
    const close = async () => {
      closed = true;
      if (await draining.drain() === "overdue") deadlines.expireAll();
      const shutdown = server.shutdown();
      draining.release();
      await draining.settled();
      deadlines.stop();
      await shutdown;
    };
    const listen = (port: number) => {
      server = Deno.serve({
        port,
        hostname: options.hostname,
        // onListen reports the real port for port 0, and replaces Deno's own "Listening on" line.
        onListen: ({ port: bound }) => {
          if (boundPort !== undefined) return; // listening again after a failed accept
          boundPort = bound;
          const handle: Server = { port: bound, close };
          resolve(handle);
        },
        onError(error) {
          app.onError(error);
          return internalErrorResponse();
        },
      }, draining.handler);
      server.finished.catch((error: unknown) => {
        if (closed) return;
        app.onError(error);
        setTimeout(relisten, RELISTEN_DELAY_MS, boundPort ?? options.port);
      });
    };
    const relisten = (port: number) => {
      if (closed) return;
      try {
        listen(port);
      } catch (error) {
        app.onError(error);
        setTimeout(relisten, RELISTEN_DELAY_MS, port);
      }
    };
    listen(options.port);
  });

/**
 * A handler whose requests must arrive whole within the deadline after their headers; a body that does
 * not is answered 408, closing the connection, and nothing is stored, since the app never saw it whole.
 *
 * A body declared no larger than the default limit is read whole by Deno's own `arrayBuffer()`
 * within the deadline and handed on with the request (`_deno-request.ts`); a chunked or larger body goes
 * through a stream that fails at the deadline, so the app can still refuse an oversized one from its
 * `Content-Length` without reading it. Whether there is a body is told from the headers: reading
 * `request.body` makes Deno hand the body through a JavaScript stream (every body through a stream
 * took creates from 38,366 to 26,397 a second under wrk). With the request handed on as it is now, the
 * deadline itself costs nothing measurable: without it, 1.01 of the creates side by side (bench/RESULTS.md).
 */
function withBodyDeadline(handler: Handler, deadlines: BodyDeadlines): Handler {
  return async (request, connection) => {
    // Told from the headers: reading `request.body` makes Deno hand the body through a stream.
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    const chunked = request.headers.has("transfer-encoding");
    if ((!chunked && !(declared > 0)) || NO_BODY_METHODS.has(request.method.toUpperCase())) return await handler(request, connection);
    // Deno's handler info goes on as it is: it holds the client's address (`remoteAddr`).
    const whole: Handler = (ready) => handler(ready, connection);
    return declared <= DEFAULT_MAX_BODY_BYTES && !chunked
      ? await withWholeBody(whole, request, deadlines)
      : await withStreamedBody(whole, request, deadlines.ms);
  };
}

/** Reads the body whole within the deadline, then hands the app a request holding it. */
async function withWholeBody(handler: Handler, request: Request, deadlines: BodyDeadlines): Promise<Response> {
  let bytes: ArrayBuffer | "timed out";
  try {
    bytes = await deadlines.within(request.arrayBuffer());
  } catch {
    return errorResponse("invalid_body", `Cannot ${request.method} ${new URL(request.url).pathname}: the body could not be read to its end`);
  }
  if (bytes === "timed out") return timedOut(request, deadlines.ms);
  return await handler(wholeBodyRequest(request, bytes));
}

/** Body reads, each answered "timed out" once it is overdue. */
interface BodyDeadlines {
  readonly ms: number;
  within<T>(read: Promise<T>): Promise<T | "timed out">;
  /** Answers every read still waiting "timed out" now. */
  expireAll(): void;
  stop(): void;
}

/** How often overdue body reads are looked for. */
const SWEEP_MS = 250;

/**
 * One interval that sweeps every body read, rather than a timer each (as Node's server checks its
 * request timeout): a timer per create took Deno's creates from 40,126 to 33,321 requests/s under wrk.
 */
function createBodyDeadlines(ms: number): BodyDeadlines {
  const waiting = new Map<object, { readonly due: number; readonly expire: () => void }>();
  const expire = (now: number) => {
    for (const [key, read] of waiting) {
      if (read.due > now) continue;
      waiting.delete(key);
      read.expire();
    }
  };
  const sweep = setInterval(() => expire(Date.now()), SWEEP_MS);
  Deno.unrefTimer(sweep);
  return {
    ms,
    within: (read) =>
      new Promise((resolve, reject) => {
        const key = {};
        waiting.set(key, { due: Date.now() + ms, expire: () => resolve("timed out") });
        read.then(
          (value) => (waiting.delete(key), resolve(value)),
          (error: unknown) => (waiting.delete(key), reject(error)),
        );
      }),
    expireAll: () => expire(Number.POSITIVE_INFINITY),
    stop: () => clearInterval(sweep),
  };
}

/**
 * A request Deno was sent, with a body stream of the adapter's (a chunked or large body); its signal is
 * the one Deno made for the request, made only when asked for: given to the constructor, Deno made it
 * for every create, which then took 112 µs of CPU rather than 82 (bench/RESULTS.md).
 */
class RequestWithBody extends Request {
  readonly #sent: Request;

  constructor(sent: Request, body: ReadableStream<Uint8Array>) {
    super(sent.url, { method: sent.method, headers: sent.headers, body, duplex: "half" } satisfies RequestInit & { duplex: "half" });
    this.#sent = sent;
  }

  /** Aborts when the client goes away before the answer. */
  override get signal(): AbortSignal {
    return this.#sent.signal;
  }

  /** A copy whose signal follows this one's (Deno's own copy would follow the signal the constructor made). */
  override clone(): Request {
    return new Request(super.clone(), { signal: this.signal });
  }
}

/** Hands the app a request whose body stream fails at the deadline, and answers 408 if it did. */
async function withStreamedBody(handler: Handler, request: Request, deadlineMs: number): Promise<Response> {
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Taken only when the app reads: a body it leaves unread (a 413 from Content-Length) stays
  // Deno's to discard, where a body whose reader was taken keeps the connection waiting.
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        expired = true;
        controller.error(new Error("request body timed out"));
        void reader?.cancel().catch(() => {});
      }, deadlineMs);
    },
    async pull(controller) {
      reader ??= request.body!.getReader();
      const { done, value } = await reader.read();
      if (done) {
        clearTimeout(timer);
        controller.close();
      } else {
        controller.enqueue(value);
      }
    },
    cancel: (reason) => reader?.cancel(reason),
  }, { highWaterMark: 0 }); // pulled only when the app reads, not at once to fill a queue
  try {
    const response = await handler(new RequestWithBody(request, body));
    return expired ? timedOut(request, deadlineMs) : response;
  } finally {
    clearTimeout(timer);
  }
}

/** The 408 for a body that did not arrive in time; the connection is closed. */
function timedOut(request: Request, deadlineMs: number): Response {
  const path = new URL(request.url).pathname;
  return errorResponse("request_timeout", `Cannot ${request.method} ${path}: the body did not arrive within ${deadlineMs / 1000} s`, { connection: "close" });
}
