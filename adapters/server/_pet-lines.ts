/**
 * @module
 * The export format, shared by `animal-store export` and `animal-store import`: JSON Lines, a header
 * naming the format and version, one pet a line in ascending id order (the fields the API answers,
 * and `idempotency` for a key younger than 24 hours), and a last line with the count and a checksum,
 * so a file cut short is refused:
 *
 * ```
 * {"format":"animal-store-export","version":1}
 * {"id":1,"name":"Rex","categoryId":3,"status":"available"}
 * {"id":3,"name":"Kit","categoryId":1,"idempotency":{"client":"…","key":"8e03978e-…","at":1795305600000}}
 * {"end":{"count":2,"lastId":3,"sha256":"…"}}
 * ```
 *
 * `sha256` is the SHA-256 of the pets' lines without their keys, each with its newline: the same
 * pets give the same checksum from any store. When keys from a JSON-file store come along (as
 * `clientMac`), the last line also holds `clientMacSecrets`, the secrets they were made under, so
 * another store can match them: such an export is as sensitive as the data file and its secret together.
 */
import { createHash } from "node:crypto";
import type { MovedPet } from "../../src/mod.ts";
import { isSecretText } from "../_client-mac.ts";

/** The first line of every export, without its newline. */
export const EXPORT_HEADER = '{"format":"animal-store-export","version":1}';

/** The longest line read, in bytes: no pet is near it, and a file without newlines cannot fill memory. */
export const MAX_LINE_BYTES: number = 1024 * 1024;

/** What an export's last line states. */
export interface ExportEnd {
  readonly count: number;
  readonly lastId: number;
  readonly sha256: string;
  /** The secrets keys made under a JSON-file store's secret were made under, when such keys came along. */
  readonly clientMacSecrets?: readonly string[];
}

/** The last line of an export, without its newline. */
export function endLine(end: ExportEnd): string {
  const secrets = end.clientMacSecrets === undefined ? {} : { clientMacSecrets: end.clientMacSecrets };
  return JSON.stringify({ end: { count: end.count, lastId: end.lastId, sha256: end.sha256, ...secrets } });
}

/** Reads an export's last line: `undefined` when the line is not one. */
export function readEndLine(text: string): ExportEnd | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const end = (value as { end?: Partial<ExportEnd> } | null)?.end;
  if (typeof end !== "object" || end === null) return undefined;
  const { count, lastId, sha256, clientMacSecrets } = end;
  if (!Number.isSafeInteger(count) || !Number.isSafeInteger(lastId) || typeof sha256 !== "string") return undefined;
  const secretsRead = clientMacSecrets === undefined || (Array.isArray(clientMacSecrets) && clientMacSecrets.every((secret) => typeof secret === "string" && isSecretText(secret)));
  if (!secretsRead) return undefined;
  return { count: count!, lastId: lastId!, sha256, ...(clientMacSecrets === undefined ? {} : { clientMacSecrets }) };
}

/** Counts pets and sums their lines as the last line states them (`end`, once); `macKeys` counts keys made under a file's secret. */
export function createTally(): { add(moved: MovedPet): void; end(): ExportEnd; readonly count: number; readonly macKeys: number } {
  const hash = createHash("sha256");
  let count = 0;
  let lastId = 0;
  let macKeys = 0;
  return {
    add({ pet, key }) {
      hash.update(`${JSON.stringify(pet)}\n`);
      count++;
      lastId = pet.id;
      if (key?.clientMac !== undefined) macKeys++;
    },
    end: () => ({ count, lastId, sha256: hash.digest("hex") }),
    get count() {
      return count;
    },
    get macKeys() {
      return macKeys;
    },
  };
}

/** A line of input: its text without the newline (and without a carriage return before it), and its number from 1. */
export interface Line {
  readonly text: string;
  readonly number: number;
}

/** Thrown for input that is not an export: `line` names where, from 1. */
export class InputError extends Error {
  override name = "InputError";
  readonly line: number;
  constructor(line: number, problem: string) {
    super(`line ${line} ${problem}`);
    this.line = line;
  }
}

const NEWLINE = 0x0a;
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The lines of a byte stream. A last line without its newline is yielded only when `partialLast`
 * says so (a file still being written ends in a torn line, never part of it). A line that is not
 * UTF-8 or is longer than `MAX_LINE_BYTES` throws `InputError`.
 */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>, partialLast: (text: string) => boolean): AsyncIterable<Line> {
  let carry: Uint8Array[] = [];
  let carried = 0;
  let number = 0;
  const take = (bytes: Uint8Array): Line => {
    number++;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new InputError(number, "is not valid UTF-8");
    }
    return { text: text.endsWith("\r") ? text.slice(0, -1) : text, number };
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      if (carried + piece.length > MAX_LINE_BYTES) throw new InputError(number + 1, `is longer than ${MAX_LINE_BYTES} bytes; no pet is that long`);
      yield take(carried === 0 ? piece : concat([...carry, piece]));
      carry = [];
      carried = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      carry.push(chunk.slice(start));
      carried += chunk.length - start;
      if (carried > MAX_LINE_BYTES) throw new InputError(number + 1, `is longer than ${MAX_LINE_BYTES} bytes; no pet is that long`);
    }
  }
  if (carried > 0) {
    const last = take(concat(carry));
    if (partialLast(last.text)) yield last;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
