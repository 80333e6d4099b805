/**
 * @module
 * Serves a Fetch API handler with Node's `http` module. `toNodeListener` is the whole bridge: one
 * `try`, errors to `onError`, one internal-error answer. `serveNode` listens with it. What keeps
 * Node fast lives in `_node/`: a lazy request for the app, and `FastResponse`, which is written
 * without reading a stream.
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConnectionInfo, Handler } from "../src/mod.ts";
import type { Serve, Server } from "./_serve.ts";
import { internalErrorResponse } from "../src/errors.ts";
import type { _Answer, _AnswerNow } from "../src/_internal/_answer-now.ts";
import { _answerNowOf } from "../src/_internal/_answer-now.ts";
import { watchAccepts } from "./_accept-watchdog.ts";
import { createDraining } from "./_draining.ts";
import { DEFAULT_TIMEOUTS, UNREAD_BODY_WAIT_MS } from "./_timeouts.ts";
import { answerClientError } from "./_node/client-error.ts";
import { trackConnections } from "./_node/connections.ts";
import { bodyConsumed, madeRequest, NODE_CONNECTION, nodeRequest } from "./_node/request.ts";
import { discardRest, dropRest } from "./_node/request-body.ts";
import type { NodeParts } from "./_node/response.ts";
import { FastResponse, headerRecord } from "./_node/response.ts";
import { HOST_BODY_TAKEN, hostParsedBody } from "./_node/host-body.ts";

export type { Serve, Server, ServeOptions } from "./_serve.ts";
export type { Timeouts } from "./_timeouts.ts";

export { FastResponse } from "./_node/response.ts";

/** A Node `http` request listener. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of the Node bridge. */
export interface NodeBridgeOptions {
  /**
   * Called with errors that escape the handler (answered with a 500 error object) and, once, with
   * what a body parser mounted before the handler changes. Default: printed with `console.error`
   * (that note as one line).
   */
  readonly onError?: (error: unknown) => void;
  /**
   * How many unread request body bytes are still read and discarded after answering, to keep the
   * connection alive; past that the connection is closed instead, once what is left was read and
   * dropped for up to a second (closing over it unread would reset the connection, and take the
   * answer from a client still sending). Default 65536.
   */
  readonly drainLimitBytes?: number;
}

const DEFAULT_DRAIN_LIMIT = 65536;

/** Where the bridge reports when the host gave no `onError`: printed, so no 500 goes without its cause. */
function printError(error: unknown): void {
  console.error("animal-store (toNodeListener):", error);
}

/** Where the bridge's notes about a host's body parser go when the host gave no `onError`: one line each, with no stack to read. */
function printNote(note: Error): void {
  console.error(`animal-store (toNodeListener): ${note.message}`);
}

/**
 * A listener that serves any Fetch API handler, giving it a real `Request`. A body that a host's
 * parser (`express.json()`) already read is taken from what the parser left (see
 * `_node/host-body.ts`); where it left nothing usable, the request is answered 500 at once, naming
 * the fix, rather than left waiting for a body that will never come. Each is reported once. A `TRACE`
 * reaches the handler as through `serveNode`; a target Node's `Request` cannot be made of (`OPTIONS *`)
 * is answered by the bridge (`madeRequest`).
 */
export function toNodeListener(handler: Handler, options: NodeBridgeOptions = {}): NodeListener {
  const onError = options.onError ?? printError;
  const bridge: NodeBridgeOptions = { ...options, onError };
  const reportOnce = once(options.onError ?? printNote);
  return (incoming, outgoing) => {
    const connection: ConnectionInfo = { requestIP: () => (incoming.socket.remoteAddress === undefined ? null : { address: incoming.socket.remoteAddress }) };
    let readBody: Uint8Array | string | undefined;
    if (bodyConsumed(incoming)) {
      const body = hostParsedBody(incoming);
      if (!body.ok) {
        reportOnce(String(body.refusal.answer.status), new Error(`Cannot read the body of ${incoming.method} ${incoming.url}: ${body.refusal.reason} (reported once)`));
        void send(incoming, outgoing, body.refusal.answer, bridge);
        return;
      }
      reportOnce("taken", new Error(`Reading the body of ${incoming.method} ${incoming.url} from request.body: ${HOST_BODY_TAKEN} (reported once)`));
      readBody = body.value;
    }
    const request = madeRequest(incoming, outgoing, readBody);
    if (request.ok) void answer(handler, request.value, connection, incoming, outgoing, bridge);
    else void send(incoming, outgoing, request.refusal, bridge);
  };
}

/** Reports an error once per kind: a host's layout is the same for every request, so one word is enough. */
function once(report: (note: Error) => void): (kind: string, note: Error) => void {
  const told = new Set<string>();
  return (kind, note) => {
    if (told.has(kind)) return;
    told.add(kind);
    report(note);
  };
}

/** Whether this is Deno's `node:http`, not Node's. */
const ON_DENO = "Deno" in globalThis;

/**
 * On Deno's `node:http`, a request that declares no body gets a stream already ended rather than one
 * that streams its end to nobody: about 5% more reads, 10% less CPU a read (bench/RESULTS.md, issue 53,
 * fourth round). Node 20 does not know the option.
 */
const _emptyRequestsEnded = ON_DENO ? { optimizeEmptyRequests: true } : {};

/**
 * Serves an app on Node's `http`, giving it the lazy request it needs (see `_node/request.ts`).
 * Node's own timeouts are set from ours; its default check for them runs every 30 s, so it runs
 * every second here.
 */
export const serveNode: Serve = (app, options) =>
  new Promise((resolve, reject) => {
    const bridge = { onError: app.onError };
    const { headerSeconds, bodySeconds, idleSeconds } = options.timeouts ?? DEFAULT_TIMEOUTS;
    // On Deno's `node:http` an answer written inside the request's listener made reads a quarter slower
    // (side by side, bench/RESULTS.md, issue 53, third round): there the app answers through its promise.
    const draining = createDraining(ON_DENO ? app.fetch : _answerNowOf(app));
    const server = createServer({
      headersTimeout: headerSeconds * 1000,
      requestTimeout: (headerSeconds + bodySeconds) * 1000,
      keepAliveTimeout: idleSeconds * 1000,
      connectionsCheckingInterval: 1000,
      ..._emptyRequestsEnded,
    }, (incoming, outgoing) => connections.answering(incoming.socket, answer(draining.handler, nodeRequest(incoming, outgoing), NODE_CONNECTION, incoming, outgoing, bridge)));
    // A request the parser refuses gets the error object too, not Node's bare 400.
    server.on("clientError", answerClientError);
    const connections = trackConnections(server);
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      // Deno 2.9's node:http can stop accepting for good (see `_accept-watchdog.ts`).
      const watchdog = ON_DENO ? watchAccepts(server, app.onError) : undefined;
      // Closing stops listening and closes idle keep-alive connections, where a request may be on its
      // way: so only once draining has answered everything in flight and every client still sending
      // waits on a held request (Node leaves a connection whose answer is unfinished open).
      const close = async () => {
        watchdog?.stop();
        const drained = await draining.drain();
        const closed = new Promise<void>((done) => server.close(() => done()));
        draining.release();
        if (drained === "overdue") connections.closeAll();
        else connections.closeUnanswering();
        await draining.settled();
        await closed;
      };
      const count = () => new Promise<number>((done) => server.getConnections((error, open) => done(error === null ? open : 0)));
      const handle: Server = { port: (server.address() as AddressInfo).port, close, connections: count };
      resolve(handle);
    });
  });

/**
 * Answers one request: the handler's answer, or the one 500 when it throws or the answer cannot be
 * written (say, a header Node refuses). An answer the handler gave now (`_answerNow`) is written before
 * this returns (`undefined`); else the returned promise settles once the answer is handed to Node.
 */
function answer(handler: _AnswerNow, request: Request, connection: ConnectionInfo, incoming: IncomingMessage, outgoing: ServerResponse, options: NodeBridgeOptions): Promise<void> | undefined {
  let answered: _Answer;
  try {
    answered = handler(request, connection);
  } catch (error) {
    answered = Promise.reject(error);
  }
  // At most one `then` from the handler's answer to the socket: no `async` frame for the answer or
  // its send (`_sendNow`, measured in bench/RESULTS.md, issue 53, third round).
  if (!(answered instanceof Promise)) return sendOrFail(incoming, outgoing, answered, options);
  return answered.then((response) => sendOrFail(incoming, outgoing, response, options), (error: unknown) => fail(error, incoming, outgoing, options));
}

/** Sends `response`; a throw while writing it is answered as the handler's would be. */
function sendOrFail(incoming: IncomingMessage, outgoing: ServerResponse, response: Response, options: NodeBridgeOptions): Promise<void> | undefined {
  try {
    return _sendNow(incoming, outgoing, response, options)?.catch((error: unknown) => fail(error, incoming, outgoing, options));
  } catch (error) {
    return fail(error, incoming, outgoing, options);
  }
}

/** Reports an error that escaped the handler or the send, and answers 500 if nothing was sent yet. */
function fail(error: unknown, incoming: IncomingMessage, outgoing: ServerResponse, options: NodeBridgeOptions): Promise<void> | undefined {
  if (incoming.destroyed && outgoing.destroyed) return undefined; // the client left; nobody to answer
  options.onError?.(error);
  if (outgoing.headersSent) {
    outgoing.destroy();
    return undefined;
  }
  return send(incoming, outgoing, internalErrorResponse(), options);
}

/** Sends `response`, whatever its kind; resolves once it is handed to Node, rejects when it cannot be written. */
async function send(incoming: IncomingMessage, outgoing: ServerResponse, response: Response, options: NodeBridgeOptions): Promise<void> {
  await _sendNow(incoming, outgoing, response, options);
}

/**
 * Sends `response`: a `FastResponse` of text whose request body is done with is written before this
 * returns (`undefined`); anything else returns the promise of its send.
 */
function _sendNow(incoming: IncomingMessage, outgoing: ServerResponse, response: Response, options: NodeBridgeOptions): Promise<void> | undefined {
  const parts = response instanceof FastResponse ? response.toNodeParts() : undefined;
  if (parts === undefined) return sendStream(incoming, outgoing, response, options);
  // A text body is written as it is; a HEAD answer keeps the Content-Length of its GET.
  parts.headers["content-length"] ??= String(Buffer.byteLength(parts.body));
  const dropping = finishRequestBody(incoming, parts.headers, options);
  if (dropping !== undefined) return dropping.then(() => writeParts(outgoing, parts));
  writeParts(outgoing, parts);
  return undefined;
}

/** Writes a `FastResponse`'s parts: its head, then its whole text body, which Node sends together. */
function writeParts(outgoing: ServerResponse, parts: NodeParts): void {
  outgoing.writeHead(parts.status, parts.headers);
  outgoing.end(parts.body);
}

/** Sends any `Response`: its headers as Node takes them, its body read whole when its length is unknown, else streamed. */
async function sendStream(incoming: IncomingMessage, outgoing: ServerResponse, response: Response, options: NodeBridgeOptions): Promise<void> {
  const headers = headerRecord(response.headers);
  // Node frames the body itself; a handler's Transfer-Encoding would clash with Content-Length.
  delete headers["transfer-encoding"];
  // A body of unknown length is read whole to send its Content-Length (also for HEAD, where Node
  // would otherwise send none); a body with a declared length is streamed.
  const bytes = response.body !== null && headers["content-length"] === undefined
    ? new Uint8Array(await response.arrayBuffer())
    : undefined;
  if (bytes !== undefined) headers["content-length"] = String(bytes.byteLength);
  const dropping = finishRequestBody(incoming, headers, options);
  if (dropping !== undefined) await dropping;
  outgoing.writeHead(response.status, headers);
  if (response.body === null || incoming.method === "HEAD" || bytes !== undefined) {
    outgoing.end(bytes);
    return;
  }
  for await (const chunk of response.body) {
    if (!outgoing.write(chunk)) await new Promise((resume) => outgoing.once("drain", resume));
  }
  outgoing.end();
}

/**
 * Deals with a request body the handler left unread, so the connection is neither stalled nor reset:
 * a small rest behind an answer that keeps the connection is discarded as the answer goes out; any
 * other rest (large, of unknown length, or behind an answer that closes the connection, such as the
 * 413 over the size limit) is read and dropped first, for up to `UNREAD_BODY_WAIT_MS`, and the answer
 * closes the connection: closing with the rest unread makes the kernel reset it, and a client still
 * sending loses the answer (RFC 9112 §9.6). Resolves when the answer may go out; `undefined` when at once.
 */
function finishRequestBody(incoming: IncomingMessage, headers: Record<string, string | string[]>, options: NodeBridgeOptions): Promise<void> | undefined {
  // A request that declares no body has none to drop, also when its answer goes out before Node has
  // parsed the end of its head (an answer given now, inside the request's listener: `_answerNow`).
  const declared = incoming.headers["content-length"];
  if (incoming.complete || incoming.destroyed || (declared === undefined && incoming.headers["transfer-encoding"] === undefined)) return undefined;
  const length = Number(declared ?? Number.NaN);
  if (length <= (options.drainLimitBytes ?? DEFAULT_DRAIN_LIMIT) && !/close/i.test(String(headers["connection"] ?? ""))) {
    discardRest(incoming);
    return undefined;
  }
  headers["connection"] = "close";
  return dropRest(incoming, UNREAD_BODY_WAIT_MS);
}
