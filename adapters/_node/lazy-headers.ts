/**
 * @module
 * Private to the Node adapter: what its two `Headers` stand-ins share (`RecordHeaders` of an answer,
 * `NodeRequestHeaders` of a request). Each keeps its headers in a form that is fast to read and hands
 * every member it does not answer itself to a real `Headers`, made from that form when first asked for.
 */

import type { InspectOptions } from "node:util";
import { inspect } from "node:util";

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

  static {
    // How `util.inspect` shows the headers: as the real `Headers` shows them. Node's own `Headers` way,
    // which the stand-in would find on `Headers.prototype` (below), reads private fields it lacks.
    Object.defineProperty(this.prototype, inspect.custom, {
      value(this: LazyHeaders, _depth: number, options: InspectOptions): string {
        return inspect(this.real(), options);
      },
    });
  }
}

// A `Headers` to whatever checks (`instanceof`, its tag, `util.inspect`), as the request is (`request.ts`):
// a middleware that tests `headers instanceof Headers` takes them as headers, and one that gives them to a
// `FastResponse` keeps them. Every member is the stand-in's own, so none of `Headers.prototype`, which would
// throw on it, is reached (test/request-identity.test.ts). Not on Deno's `node:http`: Deno's `Response`
// reads the private list of anything that is a `Headers` it is given (docs/decisions.md, "The request a wrap gets").
if (!("Deno" in globalThis)) Object.setPrototypeOf(LazyHeaders.prototype, Headers.prototype);
