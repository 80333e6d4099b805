/**
 * @module
 * Private to the Node adapter: a Fetch API request made from Node's `IncomingMessage`, either a
 * real `Request` or a lazy look-alike.
 *
 * What the look-alike buys: building a real `Request` (its `Headers`, its body stream) costs more
 * on Node 20 than everything the service then does with a list request (measured in
 * bench/RESULTS.md). The look-alike reads what the core reads of a request
 * (`src/_internal/_fetch-contract.ts`: `method`, `url`, `headers.get`, `body`, `arrayBuffer()`)
 * straight from Node's request when first asked for, and has every other member of `Request` too, made
 * only when a wrap asks: headers it may use whole (`request-headers.ts`), the body read once every way
 * the Fetch API reads one, `clone()`, and a `signal` that aborts when the client goes away. So
 * `serveNode` gives it to an `App`; `toNodeListener`, which serves any handler, builds a real `Request`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectionInfo } from "../../src/mod.ts";
import type { Refusable } from "../../src/validation.ts";
import { errorResponse } from "../../src/errors.ts";
import { _lastSoundHostCheck } from "../../src/_internal/_host.ts";
import { urlHost } from "../_serve.ts";
import type { BodyStream } from "./request-body.ts";
import { hasBody, incomingStream, readWhole, spentStream, watchedStream } from "./request-body.ts";
import { requestOfAnyMethod } from "./forbidden-method.ts";
import { NodeRequestHeaders } from "./request-headers.ts";
import { NativeResponse } from "./response.ts";

/** A request whose members are each read from Node's request when first asked for. */
export function nodeRequest(incoming: IncomingMessage, outgoing: ServerResponse): Request {
  return new NodeRequest(incoming, outgoing) as unknown as Request;
}

/**
 * `Request` as the runtimes have it, which the look-alike implements whole: lib.dom's, Deno's (which
 * also names `duplex`, `isReloadNavigation` and `isHistoryNavigation`), and Bun's (`textStream`). Only
 * Bun's own members of `Headers` (`toJSON`, `count`, `getAll`) are left out: Node and Deno lack them.
 */
type FetchRequest = Omit<Request, "headers"> & { readonly headers: Omit<Headers, "toJSON" | "count" | "getAll"> };

const UTF8 = new TextDecoder();

/**
 * The look-alike, a class rather than an object of closures: its methods are made once, not per
 * request (under tsx, which names every function it makes, that was 0.65% of a create's samples).
 *
 * Its body is Node's stream, untouched until something reads it: `arrayBuffer()` first reads it
 * whole without a web stream (the core's read of a create); `body` makes the web stream, pulled only
 * when read; `clone()` tees that stream, keeping one branch and giving the other to the clone, a real
 * `Request`. The body is used once it was read whole or its stream read from or cancelled.
 */
class NodeRequest implements FetchRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeRequestHeaders;
  readonly #incoming: IncomingMessage;
  readonly #outgoing: ServerResponse;
  /** The body's stream once made (`null`: there is no body). */
  #body: BodyStream | null | undefined;
  #bodyUsed = false;
  #signal: AbortSignal | undefined;

  constructor(incoming: IncomingMessage, outgoing: ServerResponse) {
    this.#incoming = incoming;
    this.#outgoing = outgoing;
    this.method = incoming.method ?? "GET";
    this.url = absoluteUrl(incoming);
    this.headers = new NodeRequestHeaders(incoming.rawHeaders);
  }

  /** The body as a stream, or `null` when there is none. */
  get body(): BodyStream | null {
    if (this.#body === undefined) {
      if (!hasBody(this.#incoming)) this.#body = null;
      else this.#body = this.#bodyUsed ? spentStream() : this.#watched((disturb) => incomingStream(this.#incoming, disturb));
    }
    return this.#body;
  }

  /** Whether the body was read. */
  get bodyUsed(): boolean {
    return this.#bodyUsed;
  }

  /** The body's bytes, read once; a body nothing has touched is read straight from Node's stream. */
  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#body !== undefined || this.#bodyUsed) return this.#readStream();
    if (!hasBody(this.#incoming)) return Promise.resolve(new ArrayBuffer(0));
    this.#bodyUsed = true;
    return readWhole(this.#incoming);
  }

  /** The body's bytes as a `Uint8Array`. */
  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer());
  }

  /** The body decoded as UTF-8. */
  async text(): Promise<string> {
    return UTF8.decode(await this.arrayBuffer());
  }

  /** The body parsed as JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** The body as a `Blob` of the request's media type. */
  async blob(): Promise<Blob> {
    return await this.#asResponse(await this.arrayBuffer()).blob();
  }

  /** The body parsed as `multipart/form-data` or `application/x-www-form-urlencoded`, as its media type says. */
  async formData(): Promise<FormData> {
    return await this.#asResponse(await this.arrayBuffer()).formData();
  }

  /** The body decoded as UTF-8 text, as a stream (Bun's and Deno's `Request` have it; the Fetch standard has not yet). */
  textStream(): ReadableStream<string> {
    if (this.#unusable()) throw new TypeError(`Cannot read the body of ${this.method} ${this.url}: it was already read`);
    const body = this.body;
    if (body === null) return new ReadableStream({ start: (controller) => controller.close() });
    this.#bodyUsed = true;
    return body.pipeThrough(new TextDecoderStream());
  }

  /**
   * A real `Request` with this one's method (a `TRACE` too, see `forbidden-method.ts`), URL, headers and
   * signal, and a body of its own read from this one's (which stays readable).
   */
  clone(): Request {
    if (this.#unusable()) throw new TypeError(`Cannot clone the request ${this.method} ${this.url}: its body was already read`);
    const init: RequestInit & { duplex?: "half" } = { method: this.method, headers: [...this.headers], signal: this.signal };
    const body = this.body;
    if (body !== null) {
      const [mine, theirs] = body.tee();
      this.#body = this.#watched((disturb) => watchedStream(mine, disturb));
      init.body = theirs;
      init.duplex = "half";
    }
    return requestOfAnyMethod(this.url, init);
  }

  /** Aborts when the client goes away before the answer is sent. */
  get signal(): AbortSignal {
    this.#signal ??= leaveSignal(this.#outgoing);
    return this.#signal;
  }

  /** The cache mode: a request a server was sent has the Fetch API's defaults for a request made from its URL alone. */
  get cache(): RequestCache {
    return "default";
  }

  /** The credentials mode. */
  get credentials(): RequestCredentials {
    return "same-origin";
  }

  /** The destination: none. */
  get destination(): RequestDestination {
    return "";
  }

  /** The subresource integrity metadata: none. */
  get integrity(): string {
    return "";
  }

  /** Whether the request may outlive the page that made it. */
  get keepalive(): boolean {
    return false;
  }

  /** The mode. */
  get mode(): RequestMode {
    return "cors";
  }

  /** The redirect mode. */
  get redirect(): RequestRedirect {
    return "follow";
  }

  /** The referrer: the client. */
  get referrer(): string {
    return "about:client";
  }

  /** The referrer policy: none. */
  get referrerPolicy(): ReferrerPolicy {
    return "";
  }

  /** How the body is sent: `"half"`, as for every request with a body stream. */
  get duplex(): "half" {
    return "half";
  }

  /** Whether the request is a reload navigation (the Fetch standard's; Deno's types name it, lib.dom's do not). */
  get isReloadNavigation(): boolean {
    return false;
  }

  /** Whether the request is a history navigation. */
  get isHistoryNavigation(): boolean {
    return false;
  }

  /** The address of the connection a look-alike came on; `undefined` for any other request. */
  static peerOf(request: unknown): string | undefined {
    if (typeof request !== "object" || request === null || !(#incoming in request)) return undefined;
    return (request as NodeRequest).#incoming.socket.remoteAddress;
  }

  /** Whether the body can no longer be read: it was, or its stream is locked to a reader. */
  #unusable(): boolean {
    return this.#bodyUsed || (this.#body?.locked ?? false);
  }

  /** The body's bytes through its stream, once; a used or locked body is refused as the Fetch API refuses it. */
  async #readStream(): Promise<ArrayBuffer> {
    if (this.#unusable()) throw new TypeError(`Cannot read the body of ${this.method} ${this.url}: it was already read`);
    const body = this.body;
    if (body === null) return new ArrayBuffer(0);
    this.#bodyUsed = true;
    return await new NativeResponse(body).arrayBuffer();
  }

  /** A real `Response` of `bytes` with this request's media type, to read them as a `Blob` or a form. */
  #asResponse(bytes: ArrayBuffer): Response {
    const type = this.headers.get("content-type");
    return new NativeResponse(bytes, type === null ? {} : { headers: { "content-type": type } });
  }

  /** A stream `make` makes, whose first read or cancel marks the body used while it is the body's stream (a tee replaces it). */
  #watched(make: (disturb: () => void) => BodyStream): BodyStream {
    const stream = make(() => {
      if (this.#body === stream) this.#bodyUsed = true;
    });
    return stream;
  }
}

// A `Request` to whatever checks (`instanceof`, its tag, its `constructor`, `util.inspect`): Hono, itty
// and many middlewares test `request instanceof Request`. Every member is the class's own, so no getter
// of `Request.prototype`, which would throw on the look-alike, is reached (test/request-identity.test.ts).
Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);
NodeRequest.prototype.constructor = Request;

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

/** A signal that aborts when the connection closes before the answer was sent whole: the client went away. */
function leaveSignal(outgoing: ServerResponse): AbortSignal {
  const aborter = new AbortController();
  const left = () => {
    if (!outgoing.writableFinished) aborter.abort();
  };
  if (outgoing.destroyed) left();
  else outgoing.once("close", left);
  return aborter.signal;
}

/**
 * `fetchRequest`, or the answer to a request Node's `Request` refuses to be made of, which Bun and Deno
 * hand their handler: a target that is no URL (`OPTIONS *`) is answered 400. Thrown in the listener, it
 * ended the host's process.
 */
export function madeRequest(incoming: IncomingMessage, outgoing: ServerResponse, readBody?: Uint8Array | string): Refusable<Request, Response> {
  try {
    return { ok: true, value: fetchRequest(incoming, outgoing, readBody) };
  } catch {
    return { ok: false, refusal: errorResponse("invalid_request", `Cannot ${incoming.method} ${incoming.url}: the request target is not a URL`) };
  }
}

/**
 * A real `Request`, whose signal aborts when the client goes away before the answer is sent. Its
 * body is read from Node's stream, or is `readBody`, what a host's parser left of a body it read
 * first (see `host-body.ts`), with a `Content-Length` of its own. A `TRACE`, which Node's `Request`
 * refuses, is one too (`forbidden-method.ts`): the handler answers it, as `serveNode`'s does.
 */
function fetchRequest(incoming: IncomingMessage, outgoing: ServerResponse, readBody?: Uint8Array | string): Request {
  const headers = headerPairs(incoming);
  const init: RequestInit & { duplex?: "half" } = { method: incoming.method ?? "GET", headers, signal: leaveSignal(outgoing) };
  if (readBody !== undefined) {
    const bytes = typeof readBody === "string" ? new TextEncoder().encode(readBody) : new Uint8Array(readBody);
    init.headers = [...headers.filter(([name]) => name !== "content-length" && name !== "transfer-encoding"), ["content-length", String(bytes.byteLength)]];
    init.body = bytes;
  } else if (hasBody(incoming)) {
    init.body = incomingStream(incoming);
    init.duplex = "half";
  }
  return requestOfAnyMethod(absoluteUrl(incoming), init);
}

// The last Host found sound, as the app remembers its own (`_lastSoundHostCheck`).
const isHostValue = _lastSoundHostCheck();

/** The request's absolute URL, its origin from a well-formed Host header or else the socket's own address. */
function absoluteUrl(incoming: IncomingMessage): string {
  const host = incoming.headers.host;
  const origin = `http://${host !== undefined && isHostValue(host) ? host : `${urlHost(incoming.socket.localAddress ?? "localhost")}:${incoming.socket.localPort}`}`;
  const target = incoming.url ?? "/";
  return target.startsWith("/") ? origin + target : target;
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
