/**
 * @module
 * Serves the app with `Bun.serve`.
 */
import type { Handler } from "../src/mod.ts";
import type { Serve, Server } from "./_serve.ts";
import { internalErrorResponse } from "../src/errors.ts";
import { setHeaders } from "../src/set-headers.ts";
import { createDraining } from "./_draining.ts";
import { DEFAULT_TIMEOUTS } from "./_timeouts.ts";

export type { Serve, Server, ServeOptions } from "./_serve.ts";
export type { Timeouts } from "./_timeouts.ts";

/** How often a stop looks whether the answers still being sent are out. */
const SEND_POLL_MS = 20;

/**
 * Serves an app on Bun. Bun's one setting, `idleTimeout`, cuts a connection that sends nothing for
 * that long once it has sent a request (an idle keep-alive, a stalled body), so it is set from the
 * idle timeout. Before a connection's first request Bun keeps its own fixed 10 s (docs/running.md).
 */
export const serveBun: Serve = async (app, options) => {
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const draining = createDraining(app.fetch);
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname,
    idleTimeout: timeouts.idleSeconds,
    // With `development: false` Bun 1.4 sets SO_REUSEPORT, so a second server on the port would
    // listen too and take half the requests; refuse an address in use, as Node and Deno do.
    reusePort: false,
    // Above its own limit (128 MiB) Bun answers a bare 413 itself; the app's limit is far lower
    // and its 413 is answered from Content-Length without reading, so every body reaches the app.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Without these, a throw answers with an HTML page holding the source code.
    development: false,
    error(error) {
      app.onError(error);
      return internalErrorResponse();
    },
    fetch: withKeepAlive(draining.handler, timeouts.idleSeconds),
  });
  // Stopping closes idle keep-alive connections, and a connection just opened whose first request is
  // on its way: so only once draining has answered everything in flight and every client still
  // sending waits on a held request. Bun's graceful stop also waits for a connection that sent half a
  // request, which the app has not seen: so once no answer is being sent (`pendingRequests` counts a
  // request until its answer is written), every connection left is closed. At the limit (a stalled
  // body), all are.
  const close = async () => {
    const drained = await draining.drain();
    const stopped = server.stop();
    draining.release();
    while (drained === "answered" && server.pendingRequests > 0) await Bun.sleep(SEND_POLL_MS);
    await server.stop(true);
    await draining.settled();
    await stopped;
  };
  const handle: Server = { port: server.port ?? options.port, close };
  return handle;
};

/**
 * Announces the idle timeout on every answer whose connection stays open, as Node's server does:
 * Node's HTTP client then drops an idle socket a second before the server would, instead of
 * sending a request on a socket the server is closing (`socket hang up`). Bun sends no such field.
 * Bun closes every HTTP/1.0 connection after its answer, and a request tells its version only by
 * lacking `Host` (Bun refuses an HTTP/1.1 request without one): an HTTP/1.0 request naming its
 * `Host` cannot be told apart, and gets the field (docs/decisions.md, "Hostile input").
 */
function withKeepAlive(handler: Handler, idleSeconds: number): Handler {
  const keepAlive = `timeout=${idleSeconds}`;
  return async (request, connection) => {
    const response = await handler(request, connection);
    return !closes(request) && !closes(response) && request.headers.has("host") ? setHeaders(response, { "keep-alive": keepAlive }) : response;
  };
}

/** Whether a message asks for its connection to be closed after this exchange. */
function closes(message: Request | Response): boolean {
  return message.headers.get("connection")?.toLowerCase().includes("close") ?? false;
}
