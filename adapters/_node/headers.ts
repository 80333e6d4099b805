/**
 * @module
 * Private to the Node adapter: `RecordHeaders`, the headers of a `FastResponse` kept as the plain
 * record Node's `writeHead` takes, so that reading or setting one (the `X-Request-Id` the access log
 * adds to every answer) and writing them out builds no `Headers`.
 *
 * What it buys: an answer given three headers after it was made reached Node in 0.58 µs rather than
 * 1.54 µs on Node 20 (in-process; bench/RESULTS.md, "Where the time goes"). It answers `get`,
 * `has`, `set` and `delete` itself, with the Fetch API's checks and normalisation; anything else
 * (appending, `Set-Cookie`, iterating) is handed to a real `Headers` made from the record, which
 * then holds the headers for good.
 */

import { FORBIDDEN_IN_HEADER_VALUE as FORBIDDEN_IN_VALUE, HEADER_NAME as TOKEN } from "../../src/_internal/_header-records.ts";
import { LazyHeaders } from "./lazy-headers.ts";

// The Fetch API strips HTTP whitespace from a value's ends.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

// Frozen records found to need no change: lowercase token names, values already normal. A record
// that cannot change need not be checked again, and is copied only when the answer is written or a header deleted:
// the core's answers share a few (a pet's tagged headers, an error's), checked once each:
// `_soundRecords` (measured in bench/RESULTS.md, issue 53).
const _soundRecords = new WeakSet<Readonly<Record<string, string>>>();

/** A `Headers` over a plain record of lowercase names, or `undefined` when `init` is not one. */
export function recordHeaders(init: Record<string, string>): RecordHeaders | undefined {
  if (_soundRecords.has(init)) return new RecordHeaders(init, true);
  const record: Record<string, string> = {};
  let unchanged = true;
  for (const name of Object.keys(init)) {
    // Names that need lowering or joining, or a Set-Cookie, are left to a real Headers.
    if (!TOKEN.test(name) || name !== name.toLowerCase() || name === "set-cookie") return undefined;
    record[name] = checkedValue(init[name]!);
    unchanged &&= record[name] === init[name];
  }
  if (unchanged && Object.isFrozen(init)) _soundRecords.add(init);
  return new RecordHeaders(record, false);
}

/** Headers kept in a plain record until something other than get, has, set or delete is asked of them. */
export class RecordHeaders extends LazyHeaders {
  #record: Record<string, string> | undefined;
  /** Whether the record is a frozen one of `_soundRecords`, shared with other answers until a header is deleted. */
  #shared: boolean;
  /** Headers set while the record is shared (the access log's `X-Request-Id`), kept beside it rather than in a copy: measured in bench/RESULTS.md, "X-Request-Id written by the adapters". */
  #added: Record<string, string> | undefined;
  #real: Headers | undefined;

  constructor(record: Readonly<Record<string, string>>, shared: boolean) {
    super();
    this.#record = record;
    this.#shared = shared;
  }

  /** The headers as a new record of lowercase names for Node, or `undefined` once a real `Headers` holds them. */
  toRecord(): Record<string, string> | undefined {
    // Object.assign copies a plain record several times faster than a spread on Node 20 (bench/RESULTS.md).
    return this.#record === undefined ? undefined : Object.assign({}, this.#record, this.#added);
  }

  /** A header's value, or `null`. */
  get(name: string): string | null {
    if (this.#record === undefined) return this.real().get(name);
    const key = checkedName(name);
    return this.#added?.[key] ?? this.#record[key] ?? null;
  }

  /** Whether the header is present. */
  has(name: string): boolean {
    return this.get(name) !== null;
  }

  /** Sets a header, replacing any value it had. */
  set(name: string, value: string): void {
    const key = checkedName(name);
    if (this.#record === undefined || key === "set-cookie") return this.real().set(name, value);
    if (this.#shared) (this.#added ??= {})[key] = checkedValue(value);
    else this.#record[key] = checkedValue(value);
  }

  /** Removes a header. */
  delete(name: string): void {
    if (this.#record === undefined) return this.real().delete(name);
    delete this.#owned()[checkedName(name)];
  }

  /** The record with the headers set beside it, copied first when it is shared. */
  #owned(): Record<string, string> {
    if (this.#shared) {
      this.#record = this.toRecord();
      this.#added = undefined;
      this.#shared = false;
    }
    return this.#record!;
  }

  protected override real(): Headers {
    if (this.#real === undefined) {
      this.#real = new Headers(this.toRecord());
      this.#record = undefined;
      this.#added = undefined;
    }
    return this.#real;
  }
}

function checkedName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Cannot use header name ${JSON.stringify(name)}: it is not a token`);
  return name.toLowerCase();
}

function checkedValue(value: string): string {
  const text = String(value);
  // Most values have no whitespace at their ends: testing the two ends is cheaper than a replace.
  const normal = isHttpWhitespace(text.charCodeAt(0)) || isHttpWhitespace(text.charCodeAt(text.length - 1)) ? text.replace(EDGE_WHITESPACE, "") : text;
  if (FORBIDDEN_IN_VALUE.test(normal)) throw new TypeError(`Cannot use header value ${JSON.stringify(value)}: it holds NUL, CR, LF or a character past U+00FF`);
  return normal;
}

/** Whether a UTF-16 unit is HTTP whitespace: tab, LF, CR or space. */
function isHttpWhitespace(unit: number): boolean {
  return unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0d;
}
