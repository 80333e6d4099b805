/**
 * @module
 * Private to the Node adapter: a Fetch API request made from Node's `IncomingMessage`, either a
 * real `Request` or a lazy look-alike.
 *
 * What the look-alike buys: building a real `Request` (its `Headers`, its body stream) costs more
 * on Node 20 than everything the service then does with a list request (measured in
 * bench/RESULTS.md). The look-alike has what the core may read of a request
 * (`src/_internal/_fetch-contract.ts`: `method`, `url`, `headers.get`, `body`, `arrayBuffer()`), built when first
 * asked for, and headers a wrap may use whole (`request-headers.ts`), so `serveNode` gives it to an
 * `App`; `toNodeListener`, which serves any handler, builds a real `Request`.
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CoreRequest } from "../../src/_internal/_fetch-contract.ts";
import type { ConnectionInfo } from "../../src/mod.ts";
import { isHostValue } from "../../src/_internal/_host.ts";
import { urlHost } from "../_serve.ts";
import { NodeRequestHeaders } from "./request-headers.ts";

/** A request with only what the service's app reads, each part read from Node's request when asked for. */
export function nodeRequest(incoming: IncomingMessage): Request {
  return new NodeRequest(incoming) as unknown as Request;
}

/**
 * The look-alike, a class rather than an object of closures: its methods are made once, not per
 * request (under tsx, which names every function it makes, that was 0.65% of a create's samples).
 */
class NodeRequest implements CoreRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeRequestHeaders;
  readonly #incoming: IncomingMessage;
  #body: ReadableStream<Uint8Array> | null | undefined;

  constructor(incoming: IncomingMessage) {
    this.#incoming = incoming;
    this.method = incoming.method ?? "GET";
    this.url = absoluteUrl(incoming);
    this.headers = new NodeRequestHeaders(incoming.rawHeaders);
  }

  get body(): ReadableStream<Uint8Array> | null {
    this.#body ??= hasBody(this.#incoming) ? bodyStream(this.#incoming) : null;
    return this.#body;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return readWhole(this.#incoming);
  }

  /** The address of the connection a look-alike came on; `undefined` for any other request. */
  static peerOf(request: unknown): string | undefined {
    if (typeof request !== "object" || request === null || !(#incoming in request)) return undefined;
    return (request as NodeRequest).#incoming.socket.remoteAddress;
  }
}

/**
 * Where a request `nodeRequest` made came from, as Bun's `server.requestIP` says it: the
 * `ConnectionInfo` `serveNode` passes the app, read only when the app asks (the rate limit).
 */
export const NODE_CONNECTION: ConnectionInfo = Object.freeze({
  requestIP: (request: Request) => {
    const address = NodeRequest.peerOf(request);
    return address === undefined ? null : { address };
  },
});

/**
 * A real `Request`, whose signal aborts when the client goes away before the answer is sent. Its
 * body is read from Node's stream, or is `readBody`, what a host's parser left of a body it read
 * first (see `host-body.ts`), with a `Content-Length` of its own.
 */
export function fetchRequest(incoming: IncomingMessage, outgoing: ServerResponse, readBody?: Uint8Array | string): Request {
  const aborter = new AbortController();
  outgoing.on("close", () => {
    if (!outgoing.writableFinished) aborter.abort();
  });
  const headers = headerPairs(incoming);
  const init: RequestInit & { duplex?: "half" } = { method: incoming.method ?? "GET", headers, signal: aborter.signal };
  if (readBody !== undefined) {
    const bytes = typeof readBody === "string" ? new TextEncoder().encode(readBody) : new Uint8Array(readBody);
    init.headers = [...headers.filter(([name]) => name !== "content-length" && name !== "transfer-encoding"), ["content-length", String(bytes.byteLength)]];
    init.body = bytes;
  } else if (hasBody(incoming)) {
    init.body = bodyStream(incoming);
    init.duplex = "half";
  }
  return new Request(absoluteUrl(incoming), init);
}

/** The request's absolute URL, its origin from a well-formed Host header or else the socket's own address. */
function absoluteUrl(incoming: IncomingMessage): string {
  const host = incoming.headers.host;
  const origin = `http://${host !== undefined && isHostValue(host) ? host : `${urlHost(incoming.socket.localAddress ?? "localhost")}:${incoming.socket.localPort}`}`;
  const target = incoming.url ?? "/";
  return target.startsWith("/") ? origin + target : target;
}

/**
 * The whole request body, read straight from Node's stream into one buffer of its own (not
 * `Buffer.concat` and a slice of the pool: that was 3.7% of a create's samples on Node 20).
 */
function readWhole(incoming: IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    });
    incoming.on("end", () => {
      const whole = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        whole.set(chunk, offset);
        offset += chunk.byteLength;
      }
      resolve(whole.buffer);
    });
    incoming.on("error", reject);
  });
}

function headerPairs(incoming: IncomingMessage): [string, string][] {
  return Object.entries(incoming.headersDistinct).map(([name, values]) => [name, (values ?? []).join(", ")]);
}

/**
 * Whether the request had a body that something before the bridge has already read to its end (a
 * host's body parser, such as Express's `express.json()`): a stream of it would never end.
 */
export function bodyConsumed(incoming: IncomingMessage): boolean {
  return incoming.readableEnded && hasBody(incoming);
}

function hasBody(incoming: IncomingMessage): boolean {
  return incoming.headers["transfer-encoding"] !== undefined || Number(incoming.headers["content-length"] ?? 0) > 0;
}

/**
 * The request body as a web stream that reads from the socket only when pulled, so a reader
 * that stops early (the size limit) leaves the rest unread instead of buffered.
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.pause();
      incoming.on("data", (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      });
      incoming.on("end", () => controller.close());
      incoming.on("error", (error) => controller.error(error));
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      incoming.pause();
    },
  });
}
