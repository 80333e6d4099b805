/**
 * @module
 * Serves the app with Node's `http` module.
 *
 * Two bridges: `toNodeListener` serves any Fetch API handler (a real `Request` in, a `Response`
 * out), and `toNodeReplyListener` serves this service's `handle`, which takes a lightweight
 * request and returns a plain reply that is written straight to the socket. On Node 20, building a
 * `Request` and then reading a `Response` costs more than half of the server's throughput; the
 * second bridge skips both and is what `serveNode` uses.
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Handler, Reply, RequestLike } from "../src/mod.ts";
import type { Serve, Server } from "./server.ts";
import { INTERNAL_ERROR } from "./server.ts";

/** A Node `http` request listener. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of the Node bridges. */
export interface NodeBridgeOptions {
  /** Called with errors that escape the handler; they are answered with a 500 error object. */
  readonly onError?: (error: unknown) => void;
  /**
   * How many unread request body bytes are still read and discarded after answering, to keep the
   * connection alive; past that the connection is closed instead. Default 65536.
   */
  readonly drainLimitBytes?: number;
}

const DEFAULT_DRAIN_LIMIT = 65536;
const HOST_HEADER = /^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

/** A listener that serves `handle` with a lazily built request and writes its reply directly. */
export function toNodeReplyListener(handle: (request: RequestLike) => Promise<Reply>, options: NodeBridgeOptions = {}): NodeListener {
  return (request, response) => {
    // A throw while writing (say, a header Node refuses) is caught too, never left unhandled.
    handle(lazyRequest(request))
      .then((reply) => writeReply(request, response, reply, options))
      .catch((error: unknown) => failed(request, response, error, options));
  };
}

/** A listener that serves any Fetch API handler. */
export function toNodeListener(handler: Handler, options: NodeBridgeOptions = {}): NodeListener {
  return (request, response) => {
    const aborter = new AbortController();
    // Abort only when the client goes away before the answer is sent, not after every answer.
    response.on("close", () => {
      if (!response.writableFinished) aborter.abort();
    });
    const lazy = lazyRequest(request);
    const body = lazy.body;
    const init: RequestInit & { duplex?: "half" } = { method: lazy.method, headers: headerPairs(request), signal: aborter.signal };
    if (body !== null) {
      init.body = body;
      init.duplex = "half";
    }
    handler(new Request(lazy.url, init))
      .then((answer) => writeResponse(request, response, answer, options))
      .catch((error: unknown) => failed(request, response, error, options));
  };
}

/** Serves an app on Node's `http`, through the direct reply bridge. */
export const serveNode: Serve = (app, options) =>
  new Promise((resolve, reject) => {
    const server = createServer(toNodeReplyListener(app.handle, options.onError ? { onError: options.onError } : {}));
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      const handle: Server = {
        port: (server.address() as AddressInfo).port,
        // Stops accepting, closes idle keep-alive connections, and waits for in-flight requests.
        close: () => new Promise((done) => server.close(() => done())),
      };
      resolve(handle);
    });
  });

/** The request as the core reads it; the URL and body stream are only built when asked for. */
function lazyRequest(request: IncomingMessage): RequestLike {
  let body: ReadableStream<Uint8Array> | null | undefined;
  const host = request.headers.host;
  const origin = `http://${host !== undefined && HOST_HEADER.test(host) ? host : hostOf(request)}`;
  const target = request.url ?? "/";
  return {
    method: request.method ?? "GET",
    url: target.startsWith("/") ? origin + target : target,
    headers: { get: (name) => headerValue(request, name.toLowerCase()) },
    get body() {
      body ??= hasBody(request) ? bodyStream(request) : null;
      return body;
    },
    arrayBuffer: () => readWhole(request),
  };
}

/** The whole request body, read straight from Node's stream. */
function readWhole(request: IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const whole = Buffer.concat(chunks);
      resolve(whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer);
    });
    request.on("error", reject);
  });
}

/**
 * A request header's value; repeated headers are joined with ", " as the Fetch API does (Node's
 * `headers` keeps only the first of some, such as Authorization). Scans `rawHeaders` rather than
 * `headersDistinct`, which builds arrays for every header and cost ~15% of a list request.
 */
function headerValue(request: IncomingMessage, name: string): string | null {
  const raw = request.rawHeaders;
  let value: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) {
      value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]}`;
    }
  }
  return value;
}

function headerPairs(request: IncomingMessage): [string, string][] {
  return Object.entries(request.headersDistinct).map(([name, values]) => [name, (values ?? []).join(", ")]);
}

function hostOf(request: IncomingMessage): string {
  const address = request.socket.localAddress ?? "localhost";
  const host = address.includes(":") ? `[${address}]` : address;
  return `${host}:${request.socket.localPort}`;
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
}

/**
 * The request body as a web stream that reads from the socket only when pulled, so a reader
 * that stops early (the size limit) leaves the rest unread instead of buffered.
 */
function bodyStream(request: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      request.pause();
      request.on("data", (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) request.pause();
      });
      request.on("end", () => controller.close());
      request.on("error", (error) => controller.error(error));
    },
    pull() {
      request.resume();
    },
    cancel() {
      request.pause();
    },
  });
}

function writeReply(request: IncomingMessage, response: ServerResponse, reply: Reply, options: NodeBridgeOptions): void {
  // Object.assign, not a spread: see markDeprecated in src/deprecation.ts for the cost on Node 20.
  const headers: Record<string, string> = Object.assign({}, reply.headers, { "content-length": String(Buffer.byteLength(reply.body)) });
  finishRequestBody(request, headers, options);
  response.writeHead(reply.status, headers);
  // Node leaves out the body of a HEAD answer by itself and keeps our Content-Length.
  response.end(reply.body);
}

async function writeResponse(request: IncomingMessage, response: ServerResponse, answer: Response, options: NodeBridgeOptions): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    // Node frames the body itself; a handler's Transfer-Encoding would clash with Content-Length.
    if (name !== "transfer-encoding") headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  // A body of unknown length is read whole to send its Content-Length (also for HEAD, where Node
  // would otherwise send none); a body with a declared length is streamed.
  const bytes = answer.body !== null && headers["content-length"] === undefined
    ? new Uint8Array(await answer.arrayBuffer())
    : undefined;
  if (bytes !== undefined) headers["content-length"] = String(bytes.byteLength);
  finishRequestBody(request, headers, options);
  response.writeHead(answer.status, headers);
  if (answer.body === null || request.method === "HEAD" || bytes !== undefined) {
    response.end(bytes);
    return;
  }
  for await (const chunk of answer.body) {
    if (!response.write(chunk)) await new Promise((resume) => response.once("drain", resume));
  }
  response.end();
}

/**
 * Deals with a request body the handler left unread, so the connection is not stalled: a small
 * rest is read and discarded, a large or unknown one closes the connection after the answer.
 */
function finishRequestBody(request: IncomingMessage, headers: Record<string, string | string[]>, options: NodeBridgeOptions): void {
  if (request.complete) return;
  const length = Number(request.headers["content-length"] ?? Number.NaN);
  if (length <= (options.drainLimitBytes ?? DEFAULT_DRAIN_LIMIT)) {
    request.resume();
  } else {
    headers["connection"] = "close";
  }
}

function failed(request: IncomingMessage, response: ServerResponse, error: unknown, options: NodeBridgeOptions): void {
  if (request.destroyed && response.destroyed) return; // the client left; nobody to answer
  options.onError?.(error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  writeReply(request, response, INTERNAL_ERROR, options);
}
