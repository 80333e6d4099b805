/**
 * @module
 * Private to the Node adapter: `NodeRequestHeaders`, the headers of the lazy request (`request.ts`), a
 * whole `Headers` read from Node's `rawHeaders`: a wrap gets the same request the core does, and the
 * `Wrap` type promises it a `Request`.
 *
 * What it buys: `get`, which is all the core asks of a request's headers, scans `rawHeaders` and
 * builds nothing (Node's `headersDistinct` was ~15% of a list request, bench/RESULTS.md). Every other
 * member (iterating, `getSetCookie`, and changing them) is handed to a real `Headers` made from the
 * header lines when first asked for, which then holds the headers for good.
 */
import { HEADER_NAME } from "../../src/_internal/_header-records.ts";
import { LazyHeaders } from "./lazy-headers.ts";

/** A request's headers over Node's raw header lines (`[name, value, name, value, …]`), a real `Headers` once anything but reading one is asked. */
export class NodeRequestHeaders extends LazyHeaders {
  readonly #lines: readonly string[];
  #real: Headers | undefined;

  constructor(lines: readonly string[]) {
    super();
    this.#lines = lines;
  }

  /** A header's values joined with ", ", as the Fetch API joins them, or `null`. */
  get(name: string): string | null {
    if (this.#real !== undefined) return this.#real.get(name);
    const value = lineValue(this.#lines, name.toLowerCase());
    // Checked only when no line has it: a name a line has is a token already.
    if (value === null && !HEADER_NAME.test(name)) throw new TypeError(`Cannot read header ${JSON.stringify(name)}: it is not a header name`);
    return value;
  }

  /** Whether the header is present. */
  has(name: string): boolean {
    return this.get(name) !== null;
  }

  /** Sets a header, replacing any value it had. */
  set(name: string, value: string): void {
    this.real().set(name, value);
  }

  /** Removes a header. */
  delete(name: string): void {
    this.real().delete(name);
  }

  protected override real(): Headers {
    if (this.#real === undefined) {
      const real = new Headers();
      for (let i = 0; i < this.#lines.length; i += 2) real.append(this.#lines[i]!, this.#lines[i + 1]!);
      this.#real = real;
    }
    return this.#real;
  }
}

/**
 * The values of the lines named `name` (lower case), joined with ", " as the Fetch API joins them
 * (Node's `headers` keeps only the first of some, such as Authorization); `null` when none is.
 */
function lineValue(lines: readonly string[], name: string): string | null {
  let value: string | null = null;
  for (let i = 0; i < lines.length; i += 2) {
    if (lines[i]!.length === name.length && lines[i]!.toLowerCase() === name) {
      value = value === null ? lines[i + 1]! : `${value}, ${lines[i + 1]}`;
    }
  }
  return value;
}
