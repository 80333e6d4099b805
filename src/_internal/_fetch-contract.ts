/**
 * @module
 * Private: the members of the Fetch API's `Request` and `Response` the core may use. A runtime's
 * stand-ins need provide only these for the core: Node's `FastResponse` (`adapters/_node/`); Node's
 * lazy request has every member of `Request`, for a wrap, but reads only these without building
 * anything. `test/source-rules.test.ts` keeps `src/` to these lists, and `test/stand-ins.test.ts` runs
 * the in-process suites through the Node stand-ins.
 *
 * A response the core makes is `new Response(body, { status, statusText?, headers })`, its body a
 * string, `null` or another response's `body`, its headers a plain record or a `Headers`.
 */

/** What the core reads of a request. */
export interface CoreRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Pick<Headers, "get">;
  readonly body: ReadableStream<Uint8Array> | null;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The request members the core may use, as `request.<member>` reads them. */
export const REQUEST_MEMBERS: readonly string[] = ["method", "url", "headers", "headers.get", "body", "arrayBuffer"];

/**
 * The response members the core may use of an answer (its own, or one a handler returned). Only
 * `setHeaders` (`set-headers.ts`, the answer seam's) sets a header, and copies an answer whose
 * headers are immutable.
 */
export const RESPONSE_MEMBERS: readonly string[] = ["status", "statusText", "headers", "headers.set", "body", "arrayBuffer"];
