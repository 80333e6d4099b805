/**
 * @module
 * The key file: a server's API keys, one a line, for people to read and edit and for the server to
 * reload (`API_KEYS_FILE`; docs/operating.md). A line is a name, then the key's SHA-256 (`sha256:` and
 * 64 hexadecimal digits, so the file does not hold the secret) or the key itself, then optional
 * fields: `scope=read` (only `GET` and `HEAD`; `scope=write`, the default, every operation) and
 * `expires=` an RFC 3339 time. Spaces or tabs separate them; a field starting with `#` starts a
 * comment that runs to the end of the line; blank lines are skipped. UTF-8, LF line ends, no byte
 * order mark: anything else is refused with its line number, as is a duplicate name or key. The file
 * is read as bytes, a line at a time, making no string but the names: 100,000 keys load in a few
 * hundred milliseconds into about 7 MiB.
 *
 * ```
 * # name     key                                                                      fields
 * shop       sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae
 * reports    sha256:fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9  scope=read
 * shop-2025  sha256:4b3d2f6ba9c7e7b0e2fd1b8f4a8bb1c92ec7a54f5b1cd0f9c8f9c1c0f4e6a3b2  expires=2026-01-31T00:00:00Z  # replaced by shop
 * ```
 */
import type { ApiKeyEntry, KeyScope } from "./_entry-rules.ts";
import type { KeyList, KeySetBuilder } from "./_key-set.ts";
import type { Sha256Scratch } from "./_sha256.ts";
import type { Validation } from "../validation.ts";
import { expiryOf, HASH_PREFIX, isKeyName, KEY_SCOPES, keyHash, keyProblem, MAX_KEY_LENGTH, nameProblem, scopeProblem } from "./_entry-rules.ts";
import { keySetBuilder, lastExpiry } from "./_key-set.ts";
import { readHexDigest, sha256, sha256Scratch } from "./_sha256.ts";

/** The longest line, in bytes: a 64-character name and a 1,024-character key with fields and a comment fit. */
export const MAX_KEY_LINE = 4096;

/** How many of a file's problems are listed before the rest are only counted. */
const LISTED_PROBLEMS = 20;

const FIELDS = "the fields are scope=read (or write) and expires=<RFC 3339 time>";
const NEWLINE = 0x0a;
const TAB = 0x09;
const SPACE = 0x20;
const HASH_SIGN = 0x23;
const PREFIX_BYTES = new TextEncoder().encode(HASH_PREFIX);

/**
 * The keys of a key file (its bytes, or its text), checked and hashed, ready for a key ring
 * (`createKeyRing`, `replace`); or every problem, each starting with its line number (`line 3: …`).
 * `now` is when "every key has expired" is judged.
 */
export function parseKeyFile(file: string | Uint8Array, now: number = Date.now()): Validation<KeyList> {
  const bytes = typeof file === "string" ? new TextEncoder().encode(file) : file;
  let lines = 1;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) lines++;
  const builder = keySetBuilder(lines);
  const lineOf = new Int32Array(lines);
  const reading: Reading = { bytes, builder, scratch: sha256Scratch(), decoder: new TextDecoder(), readOnly: false, expiresAt: Infinity };
  const problems: string[] = [];
  for (let start = 0, line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    const read = readLine(reading, start, end, line);
    if (typeof read === "string") problems.push(`line ${line}: ${read}`);
    else if (read !== undefined) lineOf[read] = line;
    start = end + 1;
  }
  if (problems.length > LISTED_PROBLEMS) problems.splice(LISTED_PROBLEMS, Infinity, `and ${problems.length - LISTED_PROBLEMS} more lines with problems`);
  if (problems.length > 0) return { ok: false, issues: problems };
  const set = builder.finish();
  if ("kind" in set) {
    const twin = set.kind === "name" ? `the name ${JSON.stringify(set.name)} is already line ${lineOf[set.earlier]}'s` : `the same key as line ${lineOf[set.earlier]} (${JSON.stringify(set.name)})`;
    return { ok: false, issues: [`line ${lineOf[set.later]}: ${twin}`] };
  }
  if (set.size === 0) return { ok: false, issues: [`it holds no key: write one a line, a name and the key's ${HASH_PREFIX}<hash> (animal-store key prints such a line)`] };
  const last = lastExpiry(set);
  if (last <= now) return { ok: false, issues: [`every key in it has expired (the last at ${new Date(last).toISOString()}), so no request would be accepted`] };
  return { ok: true, value: set };
}

/** The line of a key file for an entry: its name, its key's SHA-256, and its scope and expiry when it has them; a `RangeError` for an entry a file could not hold. */
export function keyFileLine(entry: ApiKeyEntry): string {
  const expiry = entry.expires === undefined ? undefined : expiryOf(entry.expires);
  const problem = nameProblem(entry.name) ?? keyProblem(entry.key) ?? scopeProblem(entry.scope) ?? (expiry !== undefined && "problem" in expiry ? expiry.problem : undefined);
  if (problem !== undefined) throw new RangeError(`Cannot write a key file's line: ${problem}`);
  const scope = entry.scope === undefined || entry.scope === "write" ? "" : ` scope=${entry.scope}`;
  const expires = entry.expires === undefined ? "" : ` expires=${entry.expires instanceof Date ? entry.expires.toISOString() : entry.expires}`;
  return `${entry.name} ${HASH_PREFIX}${keyHash(entry.key)}${scope}${expires}`;
}

/** What reading a file's lines shares: its bytes, the set being made, the digest's room, one decoder, and the fields of the line just read. */
interface Reading {
  readonly bytes: Uint8Array;
  readonly builder: KeySetBuilder;
  readonly scratch: Sha256Scratch;
  readonly decoder: TextDecoder;
  readOnly: boolean;
  expiresAt: number;
}

/**
 * Reads line `number`, `bytes[start, end)`, into the builder: the index of its key, nothing (a blank
 * line or a comment), or what is wrong with it. Its fields are found by scanning; it makes no string
 * but its name, unless it is wrong.
 */
function readLine(reading: Reading, start: number, end: number, number: number): number | string | undefined {
  const { bytes, builder, scratch, decoder } = reading;
  if (number === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "the file starts with a byte order mark (U+FEFF); save it as UTF-8 without one";
  if (end - start > MAX_KEY_LINE) return `the line is longer than ${MAX_KEY_LINE} bytes`;
  if (end > start && bytes[end - 1] === 0x0d) return "the line ends with a carriage return (CRLF); save the file with LF line ends";
  if (!isUtf8(bytes, start, end)) return "it is not UTF-8; save the file as UTF-8";
  const nameStart = skipBlanks(bytes, start, end);
  if (nameStart === end || bytes[nameStart] === HASH_SIGN) return undefined;
  const nameEnd = fieldEnd(bytes, nameStart, end);
  const named = isKeyName(bytes, nameStart, nameEnd);
  const keyStart = skipBlanks(bytes, nameEnd, end);
  if (keyStart === end || bytes[keyStart] === HASH_SIGN) return `${JSON.stringify(decoder.decode(bytes.subarray(nameStart, nameEnd)))} has no key: write the name, then the key's ${HASH_PREFIX}<hash>`;
  const keyEnd = fieldEnd(bytes, keyStart, end);
  const problem = (named ? undefined : nameProblem(decoder.decode(bytes.subarray(nameStart, nameEnd)))) ?? digestOf(reading, keyStart, keyEnd) ?? readFields(reading, keyEnd, end);
  if (problem !== undefined) return problem;
  const at = builder.add(bytes, nameStart, nameEnd, reading.readOnly, reading.expiresAt, undefined);
  builder.digests.set(scratch.digest, at * 8);
  return at;
}

/** The SHA-256 of the key at `bytes[start, end)` into `scratch.digest`: the hash it names, or the token hashed; or what is wrong with it, never quoting it. */
function digestOf({ bytes, scratch, decoder }: Reading, start: number, end: number): string | undefined {
  let hashed = end - start >= PREFIX_BYTES.length;
  for (let i = 0; i < PREFIX_BYTES.length && hashed; i++) hashed = bytes[start + i] === PREFIX_BYTES[i];
  if (hashed && end - start === PREFIX_BYTES.length + 64 && readHexDigest(bytes, start + PREFIX_BYTES.length, scratch.digest, 0)) return undefined;
  if (!hashed && end - start > MAX_KEY_LENGTH) return `the key is longer than ${MAX_KEY_LENGTH} characters`;
  const key = decoder.decode(bytes.subarray(start, end));
  const problem = keyProblem(key);
  if (problem === undefined) sha256(key, 0, key.length, scratch);
  return problem;
}

/** A line's fields after its key, up to a comment, into `reading.readOnly` and `reading.expiresAt`; or what is wrong with one. */
function readFields(reading: Reading, from: number, end: number): string | undefined {
  const { bytes, decoder } = reading;
  let scope: string | undefined;
  let expires: string | undefined;
  for (let at = skipBlanks(bytes, from, end); at < end && bytes[at] !== HASH_SIGN; at = skipBlanks(bytes, at, end)) {
    const field = decoder.decode(bytes.subarray(at, (at = fieldEnd(bytes, at, end))));
    const equals = field.indexOf("=");
    const name = field.slice(0, equals);
    if (equals === -1 || (name !== "scope" && name !== "expires")) return `unknown field ${JSON.stringify(field.length > 40 ? `${field.slice(0, 40)}…` : field)}; ${FIELDS}`;
    if ((name === "scope" ? scope : expires) !== undefined) return `the field ${name} is given twice`;
    if (name === "scope") scope = field.slice(equals + 1);
    else expires = field.slice(equals + 1);
  }
  if (scope !== undefined && !KEY_SCOPES.includes(scope as KeyScope)) return `unknown scope ${JSON.stringify(scope)}; the scopes are read and write (the default)`;
  const expiry = expires === undefined ? { at: Infinity } : expiryOf(expires);
  if ("problem" in expiry) return expiry.problem;
  reading.readOnly = scope === "read";
  reading.expiresAt = expiry.at;
  return undefined;
}

/** The first byte at or after `at` that is no space or tab. */
function skipBlanks(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && (bytes[at] === SPACE || bytes[at] === TAB)) at++;
  return at;
}

/** Where the field starting at `at` ends: at the next space or tab, or the line's end. */
function fieldEnd(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && bytes[at] !== SPACE && bytes[at] !== TAB) at++;
  return at;
}

/** Whether `bytes[start, end)` is UTF-8: ASCII, as most lines are, or every sequence well formed (a decoder that refuses). */
function isUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let ascii = true;
  for (let i = start; i < end && ascii; i++) ascii = bytes[i]! < 0x80;
  if (ascii) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, end));
    return true;
  } catch {
    return false;
  }
}
