/**
 * @module
 * Private to the Node adapter: what its two `Headers` stand-ins share (`RecordHeaders` of an answer,
 * `NodeRequestHeaders` of a request). Each keeps its headers in a form that is fast to read and hands
 * every member it does not answer itself to a real `Headers`, made from that form when first asked for.
 */

/** The members of `Headers` a stand-in answers through the real `Headers` that `real()` makes once. */
export abstract class LazyHeaders {
  /** The real `Headers`, made when first needed, which then holds the headers for good. */
  protected abstract real(): Headers;

  /** Appends a value to a header. */
  append(name: string, value: string): void {
    this.real().append(name, value);
  }

  /** Every `Set-Cookie` value. */
  getSetCookie(): string[] {
    return this.real().getSetCookie();
  }

  /** Calls `callback` with each header, in the Fetch API's order. */
  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    this.real().forEach((value, name) => callback.call(thisArg, value, name, this as unknown as Headers));
  }

  /** The headers as name-value pairs. */
  entries(): ReturnType<Headers["entries"]> {
    return this.real().entries();
  }

  /** The header names. */
  keys(): ReturnType<Headers["keys"]> {
    return this.real().keys();
  }

  /** The header values. */
  values(): ReturnType<Headers["values"]> {
    return this.real().values();
  }

  /** The headers as name-value pairs. */
  [Symbol.iterator](): ReturnType<Headers["entries"]> {
    return this.real()[Symbol.iterator]();
  }
}
