/**
 * @module
 * Serves the app with `Bun.serve`.
 */
import type { ConnectionInfo } from "../src/mod.ts";
import type { Serve, Server } from "./_serve.ts";
import { internalErrorResponse } from "../src/errors.ts";
import { setHeaders } from "../src/set-headers.ts";
import type { Finish } from "./_draining.ts";
import type { _AnswerNow } from "../src/_internal/_answer-now.ts";
import { _answerNowOf } from "../src/_internal/_answer-now.ts";
import { createDraining } from "./_draining.ts";
import { DEFAULT_TIMEOUTS, UNREAD_BODY_WAIT_MS } from "./_timeouts.ts";

export type { Serve, Server, ServeOptions } from "./_serve.ts";
export type { Timeouts } from "./_timeouts.ts";

/** How often a stop looks whether the answers still being sent are out. */
const SEND_POLL_MS = 20;

/** How often Bun looks for connections whose idle timeout has passed. */
const BUN_TIMER_TICK_SECONDS = 4;

/** Bun's largest `idleTimeout`. */
const BUN_MAX_IDLE_SECONDS = 255;

/**
 * Serves an app on Bun. Bun's one setting, `idleTimeout`, cuts a connection that sends nothing for
 * that long once it has sent a request (an idle keep-alive, a stalled body), so it is set from the
 * idle timeout (see `bunIdleSeconds`). Before a connection's first request Bun keeps its own fixed
 * 10 s (docs/running.md).
 */
export const serveBun: Serve = async (app, options) => {
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const draining = createDraining(_answerNowOf(app), _finishInDraining(timeouts.idleSeconds));
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname,
    idleTimeout: bunIdleSeconds(timeouts.idleSeconds),
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
    fetch: withChunkedBodyRead(draining.handler),
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
 * Bun's `idleTimeout` for an idle timeout: whole ticks past it. Bun closes a connection at the first
 * tick on or after its timeout, counted in ticks from the tick before: set to the idle timeout itself,
 * it closed a connection as little as 0.5 s after an answer announcing `Keep-Alive: timeout=2`, under
 * a Node client that had waited 2 s and sent its next request (`socket hang up`). So an idle
 * connection is kept at least the idle timeout (up to 252 s: Bun takes at most 255), and at most 7 s more.
 */
function bunIdleSeconds(idleSeconds: number): number {
  return Math.min(BUN_MAX_IDLE_SECONDS, BUN_TIMER_TICK_SECONDS * (Math.ceil(idleSeconds / BUN_TIMER_TICK_SECONDS) + 1));
}

/**
 * What goes on every answer, done inside the draining step rather than as layers around it: a request
 * then goes through two promises fewer and its answer's headers are read once (`_finishInDraining`,
 * measured in bench/RESULTS.md, issue 53, third round).
 *
 * An answer whose connection stays open announces the idle timeout, as Node's server does: Node's
 * HTTP client then drops an idle socket a second before the server would, instead of sending a
 * request on a socket the server is closing (`socket hang up`). Bun sends no such field. Bun closes
 * every HTTP/1.0 connection after its answer, and a request tells its version only by lacking `Host`
 * (Bun refuses an HTTP/1.1 request without one): an HTTP/1.0 request naming its `Host` cannot be told
 * apart, and gets the field (docs/decisions.md, "Hostile input").
 *
 * An answer that closes its connection (an upload over the limit, answered 413 with `Connection:
 * close`) first reads and drops the rest of a body the app left unread, for up to
 * `UNREAD_BODY_WAIT_MS`: Bun closes the connection at once after such an answer, and with the rest
 * unread the kernel resets it, losing the answer for a client still sending (RFC 9112 §9.6). A
 * chunked body's rest is dropped by `withChunkedBodyRead`, which holds its reader.
 */
function _finishInDraining(idleSeconds: number): Finish {
  const keepAlive = `timeout=${idleSeconds}`;
  return (request, response) => {
    if (closes(response)) {
      const rest = request.headers.has("transfer-encoding") || request.bodyUsed ? null : request.body;
      return rest === null || rest.locked ? response : dropRest(rest.getReader(), UNREAD_BODY_WAIT_MS).then(() => response);
    }
    return !closes(request) && request.headers.has("host") ? setHeaders(response, { "keep-alive": keepAlive }) : response;
  };
}

/** Whether a message asks for its connection to be closed after this exchange. */
function closes(message: Request | Response): boolean {
  return message.headers.get("connection")?.toLowerCase().includes("close") ?? false;
}

/**
 * Hands a chunked body to the app through a stream of its own, so that its rest can be dropped before a
 * closing answer (see `_finishInDraining`): a stream the app stopped reading cannot be read on by
 * another reader. A body with a length goes on as Bun made it, on Bun's own path, told from the headers
 * first.
 */
function withChunkedBodyRead(handler: _AnswerNow): _AnswerNow {
  return (request, connection) => {
    if (!request.headers.has("transfer-encoding") || request.body === null) return handler(request, connection);
    return chunkedBodyRead(handler, request, connection);
  };
}

/** The app's answer to a request with a chunked body, read through a stream whose rest can be dropped. */
async function chunkedBodyRead(handler: _AnswerNow, request: Request, connection: ConnectionInfo | undefined): Promise<Response> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= request.body!.getReader();
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      ended = true;
      controller.close();
    },
  }, { highWaterMark: 0 });
  const init: RequestInit & { duplex: "half" } = { method: request.method, headers: request.headers, body, duplex: "half", signal: request.signal };
  // Bun tells a request's address by the request it made.
  const response = await handler(new Request(request.url, init), { requestIP: () => connection?.requestIP?.(request) ?? null });
  if (reader !== undefined && !ended && closes(response)) await dropRest(reader, UNREAD_BODY_WAIT_MS);
  return response;
}

/** Reads and drops what is left of a body, for at most `ms`. */
async function dropRest(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeUp = new Promise<"time up">((done) => (timer = setTimeout(done, ms, "time up")));
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), timeUp]);
      if (read === "time up" || read.done) return;
    }
  } catch {
    // The client went away: nothing is left to read.
  } finally {
    clearTimeout(timer);
  }
}
