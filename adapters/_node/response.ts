/**
 * @module
 * Private to the Node adapter: `FastResponse`, a `Response` look-alike that keeps a text body as
 * the string it was given, so the Node adapter writes it to the socket without building and then
 * reading a web stream.
 *
 * What it buys: on Node 20, constructing a `Response` and reading its body back costs more than
 * the rest of a list request (measured in bench/RESULTS.md). The standalone Node server sets
 * `globalThis.Response = FastResponse`, as srvx suggests for its own, so the app's `new Response(…)`
 * makes one. Anything other than a text body, or a body read through the Fetch API, is handed to a
 * real `Response` made on demand, and the adapter then streams it like any other.
 */

import { RecordHeaders, recordHeaders } from "./headers.ts";

/** The runtime's own `Response`, taken before anyone replaces the global with `FastResponse`. */
export const NativeResponse: typeof Response = globalThis.Response;

/**
 * What `new Response(body)` takes. DOM's lib calls it `BodyInit`, which a host type-checking with
 * `@types/node` and no DOM lib does not have; spelled from `Response` itself, it is in both.
 */
type ResponseBody = ConstructorParameters<typeof Response>[0];

/** A response's parts as Node's `writeHead` and `end` take them. */
export interface NodeParts {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: string;
}

/** A `Response` whose text body and plain headers the Node adapter can write directly. */
export class FastResponse {
  /** Makes a JSON response, as `Response.json` does. */
  static json(data: unknown, init?: ResponseInit): Response {
    return NativeResponse.json(data, init);
  }

  /** Makes a network-error response, as `Response.error` does. */
  static error(): Response {
    return NativeResponse.error();
  }

  /** Makes a redirect, as `Response.redirect` does. */
  static redirect(url: string | URL, status?: number): Response {
    return NativeResponse.redirect(url, status);
  }

  readonly status: number;
  readonly statusText: string;
  readonly #text: string | undefined;
  readonly #body: ResponseBody;
  readonly #init: ResponseInit;
  #headers: Headers | RecordHeaders | undefined;
  #native: Response | undefined;
  #textRead = false;

  constructor(body?: ResponseBody, init: ResponseInit = {}) {
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? "";
    this.#text = typeof body === "string" ? body : body === null || body === undefined ? "" : undefined;
    this.#body = body;
    this.#init = init;
  }

  /** Whether the status is 2xx. */
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The headers, made when first asked for: a `RecordHeaders` over a plain record (see `headers.ts`), else a real `Headers`. */
  get headers(): Headers {
    if (this.#native !== undefined) return this.#native.headers;
    if (this.#headers === undefined) {
      const given = this.#init.headers;
      this.#headers = isRecord(given) ? (recordHeaders(given) ?? new Headers(given)) : new Headers(given);
    }
    // A look-alike, as this class is: it answers what the app and the adapters ask of headers.
    return this.#headers as Headers;
  }

  /** The body as a stream, from a real `Response` made on demand. */
  get body(): ReadableStream<Uint8Array> | null {
    return this.#materialized().body;
  }

  /** Whether the body has been read. */
  get bodyUsed(): boolean {
    return this.#textRead || (this.#native?.bodyUsed ?? false);
  }

  /** The body's bytes. */
  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#materialized().arrayBuffer();
  }

  /** The body as text; a text body is handed over as it is, without making a stream (the access log reads it). */
  text(): Promise<string> {
    if (this.#text === undefined || this.#native !== undefined) return this.#materialized().text();
    if (this.#textRead) return Promise.reject(new TypeError("Cannot read the body: it was already read"));
    this.#textRead = true;
    return Promise.resolve(this.#text);
  }

  /** The body parsed as JSON. */
  json(): Promise<unknown> {
    return this.#materialized().json();
  }

  /**
   * Status, headers and text body for Node to write directly, or `undefined` when this response
   * holds something else or its body went to a real `Response`.
   */
  toNodeParts(): NodeParts | undefined {
    if (this.#text === undefined || this.#native !== undefined || this.#textRead) return undefined;
    const given = this.#init.headers;
    // A `Headers` given and never touched since is read straight into a record: 0.2 µs, where
    // copying it into the response's own `Headers` first costs more.
    if (this.#headers === undefined && given instanceof Headers) return { status: this.status, headers: headerRecord(given), body: this.#text };
    // Object.assign copies a plain record several times faster than a spread on Node 20 (bench/RESULTS.md).
    const record = this.#headers === undefined ? (isRecord(given) ? Object.assign({}, given) : undefined) : this.#headers instanceof RecordHeaders ? this.#headers.toRecord() : undefined;
    return { status: this.status, headers: record ?? headerRecord(this.headers), body: this.#text };
  }

  #materialized(): Response {
    const kept = this.#headers instanceof RecordHeaders ? (this.#headers.toRecord() ?? [...this.#headers]) : this.#headers;
    const headers = kept ?? this.#init.headers;
    this.#native ??= new NativeResponse(this.#body, { status: this.status, statusText: this.statusText, ...(headers === undefined ? {} : { headers }) });
    return this.#native;
  }
}

/** Whether headers given to a response are a plain record (not a `Headers`, not a list of pairs). */
function isRecord(headers: HeadersInit | undefined): headers is Record<string, string> {
  return headers !== undefined && !(headers instanceof Headers) && !Array.isArray(headers);
}

/** A `Headers` as the record Node's `writeHead` takes, every `Set-Cookie` kept. */
export function headerRecord(headers: Headers): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) record["set-cookie"] = cookies;
  return record;
}
