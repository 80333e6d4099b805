/**
 * @module
 * Serves the app with `Deno.serve`.
 */
import type { Serve, Server } from "./server.ts";
import { errorResponse, internalErrorResponse } from "../src/errors.ts";

/**
 * Serves an app on Deno.
 *
 * Closing waits for in-flight requests itself before calling `shutdown()`: on Deno 2.9,
 * `shutdown()` makes the bodies of in-flight requests unreadable (denoland/deno#36809), which
 * would fail a create whose body is still arriving. Requests that come in meanwhile get a 503.
 */
export const serveDeno: Serve = (app, options) =>
  new Promise((resolve) => {
    let inFlight = 0;
    let closing = false;
    let onIdle: (() => void) | undefined;
    const handler = async (request: Request): Promise<Response> => {
      if (closing) {
        return errorResponse("service_unavailable", "The server is shutting down; retry on a new connection", { connection: "close" });
      }
      inFlight++;
      try {
        return await app.fetch(request);
      } finally {
        inFlight--;
        if (inFlight === 0) onIdle?.();
      }
    };
    const close = async () => {
      closing = true;
      if (inFlight > 0) await new Promise<void>((idle) => (onIdle = idle));
      await server.shutdown();
    };
    const server = Deno.serve({
      port: options.port,
      hostname: options.hostname,
      // onListen reports the real port for port 0, and replaces Deno's own "Listening on" line.
      onListen: ({ port }) => {
        const handle: Server = { port, close };
        resolve(handle);
      },
      onError(error) {
        app.onError(error);
        return internalErrorResponse();
      },
    }, handler);
  });
