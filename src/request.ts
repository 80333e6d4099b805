/**
 * @module
 * The parts of an HTTP request the service reads. A Fetch API `Request` has them all; an adapter
 * may pass a lighter object that builds them lazily.
 */

/** What the core reads from a request: method, absolute URL, headers and the body. */
export interface RequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** The body as a stream, read when its length is not declared, stopping at the size limit. */
  readonly body: ReadableStream<Uint8Array> | null;
  /** The whole body, read when `Content-Length` declares (and so bounds) its size. */
  arrayBuffer(): Promise<ArrayBuffer>;
}
