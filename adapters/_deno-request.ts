/**
 * @module
 * Private to the Deno adapter: the request `Deno.serve` was sent, with its body already read whole by
 * the adapter (within the body timeout), as the app is handed it.
 *
 * A speed device: a `Request` made afresh around the bytes (`new Request(sent.url, { method, headers,
 * body })`, as before) built a copy of Deno's `Headers`, a URL and a body: side by side, `Deno.serve`
 * made 0.58 of the creates it makes with this look-alike (bench/RESULTS.md, "Issue 53, second
 * round"). The look-alike is the sent request for every member but the body's, and hands the core's
 * `arrayBuffer()` the bytes as they are; any other read of the body (a wrap's) goes through a real
 * `Response` of the bytes made when first asked for, so the body is read once whichever way, and
 * `clone()` gives a real `Request`.
 */

/** The sent request with `bytes` as its body. */
export function wholeBodyRequest(sent: Request, bytes: ArrayBuffer): Request {
  return new WholeBodyRequest(sent, bytes) as unknown as Request;
}

/** A class rather than an object of closures: its methods are made once, not per request. */
class WholeBodyRequest {
  readonly #sent: Request;
  /** The bytes, until `arrayBuffer()` hands them over or `#held` takes them. */
  #bytes: ArrayBuffer | undefined;
  /** The body as a `Response`, once a read other than the first `arrayBuffer()` asked for it. */
  #held: Response | undefined;

  constructor(sent: Request, bytes: ArrayBuffer) {
    this.#sent = sent;
    this.#bytes = bytes;
  }

  get method(): string {
    return this.#sent.method;
  }

  get url(): string {
    return this.#sent.url;
  }

  get headers(): Headers {
    return this.#sent.headers;
  }

  /** Aborts when the client goes away before the answer: Deno's own signal for the request. */
  get signal(): AbortSignal {
    return this.#sent.signal;
  }

  get cache(): RequestCache {
    return this.#sent.cache;
  }

  get credentials(): RequestCredentials {
    return this.#sent.credentials;
  }

  get integrity(): string {
    return this.#sent.integrity;
  }

  get keepalive(): boolean {
    return this.#sent.keepalive;
  }

  get mode(): RequestMode {
    return this.#sent.mode;
  }

  get redirect(): RequestRedirect {
    return this.#sent.redirect;
  }

  get referrer(): string {
    return this.#sent.referrer;
  }

  get referrerPolicy(): ReferrerPolicy {
    return this.#sent.referrerPolicy;
  }

  /** The body as a stream. */
  get body(): ReadableStream<Uint8Array> | null {
    return this.#holder().body;
  }

  /** Whether the body was read. */
  get bodyUsed(): boolean {
    return this.#held?.bodyUsed ?? this.#bytes === undefined;
  }

  /** The bytes, handed over as they are when nothing else read the body first. */
  arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#bytes;
    if (this.#held !== undefined || bytes === undefined) return this.#holder().arrayBuffer();
    this.#bytes = undefined;
    return Promise.resolve(bytes);
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#holder().bytes();
  }

  text(): Promise<string> {
    return this.#holder().text();
  }

  json(): Promise<unknown> {
    return this.#holder().json();
  }

  blob(): Promise<Blob> {
    return this.#holder().blob();
  }

  formData(): Promise<FormData> {
    return this.#holder().formData();
  }

  /** The body decoded as UTF-8, as a stream (Deno's `Request` has it). */
  textStream(): ReadableStream<string> {
    return (this.#holder() as Response & { textStream(): ReadableStream<string> }).textStream();
  }

  /** A real `Request` with this one's method, URL, headers and signal, and a body of its own (this one's stays readable). */
  clone(): Request {
    if (this.bodyUsed || this.#held?.body?.locked) throw new TypeError(`Cannot clone the request ${this.method} ${this.url}: its body was already read`);
    const init: RequestInit & { duplex: "half" } = { method: this.method, headers: this.headers, signal: this.signal, body: this.#holder().clone().body, duplex: "half" };
    return new Request(this.url, init);
  }

  /**
   * The body as a real `Response` with the request's media type (for `blob()` and `formData()`), made
   * once; after the bytes were handed over, one whose body is used, so that every read refuses as a
   * `Request`'s does.
   */
  #holder(): Response {
    if (this.#held !== undefined) return this.#held;
    const type = this.#sent.headers.get("content-type");
    this.#held = new Response(this.#bytes ?? "", type === null ? {} : { headers: { "content-type": type } });
    if (this.#bytes === undefined) void this.#held.arrayBuffer();
    this.#bytes = undefined;
    return this.#held;
  }
}

// A `Request` to whatever checks (`instanceof`, its tag, its `constructor`, `Deno.inspect`). Every member
// is the class's own, so no getter of `Request.prototype`, which would throw on the look-alike, is reached.
Object.setPrototypeOf(WholeBodyRequest.prototype, Request.prototype);
WholeBodyRequest.prototype.constructor = Request;
