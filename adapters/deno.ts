/**
 * @module
 * Serves the app with `Deno.serve`.
 */
import type { Handler } from "../src/mod.ts";
import type { Serve, Server } from "./server.ts";
import { errorResponse, internalErrorResponse } from "../src/errors.ts";
import { createDraining } from "./draining.ts";
import { DEFAULT_TIMEOUTS } from "./timeouts.ts";

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
 * `Deno.serve` has no header or idle timeout in 2.9 (see the README); the body timeout is kept here.
 */
export const serveDeno: Serve = (app, options) =>
  new Promise((resolve) => {
    const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
    const draining = createDraining(withBodyDeadline(app.fetch, timeouts.bodySeconds * 1000));
    let server: Deno.HttpServer;
    let closed = false;
    let boundPort: number | undefined;
    const close = async () => {
      closed = true;
      await draining.drain();
      await server.shutdown();
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
 * A handler whose requests must arrive whole within `deadlineMs` of their headers: the body is read
 * through a stream that fails at the deadline, and the app's answer to that failed read is
 * replaced by 408, closing the connection. Nothing is stored, since the body was never complete.
 */
function withBodyDeadline(handler: Handler, deadlineMs: number): Handler {
  return async (request) => {
    if (request.body === null || NO_BODY_METHODS.has(request.method.toUpperCase())) return await handler(request);
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Taken only when the app reads: a body it leaves unread (a 413 from Content-Length) stays
    // Deno's to discard, where a body whose reader was taken keeps the connection waiting.
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setTimeout(() => {
          timedOut = true;
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
    const init: RequestInit & { duplex: "half" } = { method: request.method, headers: request.headers, body, duplex: "half" };
    try {
      const response = await handler(new Request(request.url, init));
      if (!timedOut) return response;
      const seconds = deadlineMs / 1000;
      return errorResponse("request_timeout", `Cannot ${request.method} ${new URL(request.url).pathname}: the body did not arrive within ${seconds} s`, { connection: "close" });
    } finally {
      clearTimeout(timer);
    }
  };
}
