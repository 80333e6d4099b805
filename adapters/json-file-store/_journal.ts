/**
 * @module
 * The data file's format, and reading it back.
 *
 * The file is JSON Lines: a header line naming the format and version, then one pet per line in
 * ascending id order (`petLine`, as an export carries pets), each written whole with its newline
 * before it is acknowledged:
 *
 * ```
 * {"format":"animal-store-pets","version":1}
 * {"id":1,"name":"Rex","categoryId":3,"status":"available"}
 * {"id":2,"name":"Tom","categoryId":1}
 * {"id":3,"name":"Kim","categoryId":1,"idempotency":{"clientMac":"…","key":"8e03978e-…","at":1795305600000}}
 * ```
 *
 * A pet created with an `Idempotency-Key` carries the key in its own line (`clientMac` is an HMAC
 * of the API key's digest under the file's secret, see `../_client-mac.ts`; `at` the time in
 * milliseconds), so the pet and its key are written, and survive a crash, together. Files written
 * before keys existed read unchanged; records written before the MAC hold the bare digest as
 * `client`, and read as their MAC.
 */
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import type { IdempotencyKey, MovedPet, Pet } from "../../src/mod.ts";
import { petLine, readPetLine } from "../../src/mod.ts";
import { errorCode } from "../_files/error-code.ts";

/** The data file's format version this code reads and writes. */
export const FORMAT_VERSION = 1;

/** The first line of every data file, without its newline. */
export const JOURNAL_HEADER: string = `{"format":"animal-store-pets","version":${FORMAT_VERSION}}`;

/** How much of a file is read to find its header: the header is some 45 bytes. */
const HEADER_BYTES = 4096;

/** What reading a data file found. */
export interface JournalContents {
  /** How many bytes of the file hold whole lines: where the next record goes. */
  readonly size: number;
  /** Whether the last line is whole but lacks its newline (as after a hand edit): add it before appending. */
  readonly newlineMissing: boolean;
  /** Bytes after the last whole line that are not JSON: a record torn by a crash mid-write. */
  readonly tornTail?: { readonly line: number; readonly bytes: Uint8Array };
  /** How many records hold a `clientMac`: made under the file's secret, they match under no other. */
  readonly macRecords: number;
}

/**
 * An idempotency key as the store keeps it: `client` is the MAC of the client's digest (see
 * `../_client-mac.ts`), `at` the time its pet was created, in milliseconds since the epoch.
 */
export interface JournalKey extends IdempotencyKey {
  readonly at: number;
}

/** The line (without its newline) that records a pet, and the key that created it if there was one. */
export function journalLine(pet: Pet, key?: JournalKey): string {
  return petLine(key === undefined ? { pet } : { pet, key: { clientMac: key.client, key: key.key, at: key.at } });
}

/** How much of the file is read at a time when it is loaded: big reads, fewer turns. */
const LOAD_CHUNK_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads a data file from where `file` stands, `chunkBytes` at a time, yielding the pets of each
 * stretch in order, each with its key as the line holds it (`clientMac`, or an older line's bare
 * `client`); once done, `found.contents` says what the reading found. Throws, naming the file and
 * line (`Cannot <what> …`), on anything but a torn final line: a bad header, a line that is not a
 * valid pet, ids out of order. An empty file reads as size 0, to be given a header.
 */
export async function* readJournal(
  file: FileHandle,
  path: string,
  what: string,
  found: { contents?: JournalContents },
  chunkBytes: number = LOAD_CHUNK_BYTES,
): AsyncIterable<readonly MovedPet[]> {
  let lineNumber = 0;
  let lastId = 0;
  let macRecords = 0;
  let pets: MovedPet[] = [];
  const damaged = (problem: string) => new Error(`Cannot ${what} ${path}: line ${lineNumber} ${problem}; the file was left untouched`);
  /** Reads one line; `undefined` stands for a line that is not UTF-8. */
  const readLine = (text: string | undefined) => {
    lineNumber++;
    if (text === undefined) throw damaged("is not valid UTF-8");
    if (lineNumber === 1) return checkHeader(text, damaged);
    const line = readPetLine(text);
    if (!line.ok) throw damaged(line.issues.join("; "));
    const { pet, key } = line.value;
    if (pet.id <= lastId) throw damaged(`has id ${pet.id}, not above the previous id ${lastId}`);
    lastId = pet.id;
    if (key?.clientMac !== undefined) macRecords++;
    pets.push(line.value);
  };
  const readLines = (bytes: Uint8Array) => {
    // A newline byte never occurs inside a UTF-8 sequence, so whole lines decode on their own.
    const text = decode(bytes);
    if (text === undefined) return readLinesOneByOne(bytes, readLine);
    const lines = text.split("\n");
    for (let i = 0; i < lines.length - 1; i++) readLine(lines[i]!);
  };

  let size = 0;
  let carry = new Uint8Array(0);
  const buffer = new Uint8Array(chunkBytes);
  for (;;) {
    const { bytesRead } = await file.read(buffer, 0, chunkBytes, null);
    if (bytesRead === 0) break;
    const chunk = concat(carry, buffer.subarray(0, bytesRead));
    const end = chunk.lastIndexOf(NEWLINE) + 1;
    readLines(chunk.subarray(0, end));
    size += end;
    carry = chunk.slice(end);
    if (pets.length > 0) yield pets;
    pets = [];
  }
  // A crash mid-write leaves a prefix of a JSON object, which never parses; anything that does
  // parse is a whole line and is read (and judged) like the others.
  if (carry.length === 0) {
    found.contents = { size, newlineMissing: false, macRecords };
    return;
  }
  const tail = decode(carry);
  if (tail === undefined || !parsesAsJson(tail)) {
    found.contents = { size, newlineMissing: false, tornTail: { line: lineNumber + 1, bytes: carry }, macRecords };
    return;
  }
  readLine(tail);
  yield pets;
  found.contents = { size: size + carry.length, newlineMissing: true, macRecords };
}

/** Reads lines one at a time, to find the one that is not UTF-8. */
function readLinesOneByOne(bytes: Uint8Array, readLine: (text: string | undefined) => void): void {
  let start = 0;
  for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
    readLine(decode(bytes.subarray(start, end)));
    start = end + 1;
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether `text` is JSON: a line torn by a crash mid-write never is. */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function checkHeader(text: string, damaged: (problem: string) => Error): void {
  const version = headerVersion(text);
  if (version === undefined) throw damaged(`is not the animal-store header ${JOURNAL_HEADER}`);
  if (version !== FORMAT_VERSION) throw damaged(`names format version ${JSON.stringify(version)}; this server reads version ${FORMAT_VERSION}`);
}

/** The version a header line names (any JSON value), or `undefined` when the line is no animal-store header. */
function headerVersion(text: string): unknown {
  let header: { format?: unknown; version?: unknown } | undefined;
  try {
    header = JSON.parse(text) as typeof header;
  } catch {
    header = undefined;
  }
  return header?.format === "animal-store-pets" ? header.version ?? null : undefined;
}

/**
 * The format version the data file at `path` names in its header, reading its first line only:
 * `undefined` when there is no file, this code's for an empty one (its first open writes the
 * header). Throws naming the file when its first line is no header.
 */
export async function formatVersionOf(path: string): Promise<unknown> {
  let file: FileHandle;
  try {
    file = await open(path, "r");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    const { bytesRead, buffer } = await file.read(new Uint8Array(HEADER_BYTES), 0, HEADER_BYTES, 0);
    if (bytesRead === 0) return FORMAT_VERSION;
    const first = new TextDecoder().decode(buffer.subarray(0, bytesRead)).split("\n")[0]!.replace(/\r$/, "");
    const version = headerVersion(first);
    if (version === undefined) throw new Error(`${path}: line 1 is not the animal-store header ${JOURNAL_HEADER}`);
    return version;
  } finally {
    await file.close();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
