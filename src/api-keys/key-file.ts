/**
 * @module
 * The key file: a server's API keys, one a line, for people to read and edit and for the server to
 * reload (`API_KEYS_FILE`; docs/operating.md). A line is a name, then the key's SHA-256 (`sha256:` and
 * 64 hexadecimal digits, so the file does not hold the secret) or the key itself, then optional
 * fields: `scope=read` (only `GET` and `HEAD`; `scope=write`, the default, every operation) and
 * `expires=` an RFC 3339 time. Spaces or tabs separate them; a field starting with `#` starts a
 * comment that runs to the end of the line; blank lines are skipped. UTF-8, LF line ends, no byte
 * order mark: anything else is refused with its line number, as is a duplicate name or key.
 *
 * ```
 * # name     key                                                                      fields
 * shop       sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae
 * reports    sha256:fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9  scope=read
 * shop-2025  sha256:4b3d2f6ba9c7e7b0e2fd1b8f4a8bb1c92ec7a54f5b1cd0f9c8f9c1c0f4e6a3b2  expires=2026-01-31T00:00:00Z  # replaced by shop
 * ```
 */
import type { ApiKeyEntry, KeyScope } from "./_entry-rules.ts";
import type { Validation } from "../validation.ts";
import { expiryOf, HASH_PREFIX, KEY_SCOPES, keyHash, keyProblem, nameProblem } from "./_entry-rules.ts";

/** The longest line, in characters: a 64-character name and a 1,024-character key with fields and a comment fit. */
export const MAX_KEY_LINE = 4096;

/** How many of a file's problems are listed before the rest are only counted. */
const LISTED_PROBLEMS = 20;

const FIELD_NAMES = ["scope", "expires"] as const;
const SEPARATOR = /[ \t]+/;

/**
 * The keys of a key file's text, each hashed (`sha256:<hex>`), or every problem, each starting with
 * its line number (`line 3: …`). `now` is when "every key has expired" is judged.
 */
export function parseKeyFile(text: string, now: number = Date.now()): Validation<ApiKeyEntry[]> {
  const entries: ApiKeyEntry[] = [];
  const problems: string[] = [];
  // Each name and each key's hash, with the entry that has it.
  const names = new Map<string, { line: number }>();
  const hashes = new Map<string, { line: number; name: string }>();
  let latest = -Infinity;
  for (let start = 0, line = 1; start < text.length; line++) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const read = readLine(text.slice(start, end), line);
    start = end + 1;
    if (read === undefined) continue;
    const named = typeof read === "string" ? undefined : names.get(read.name);
    const keyed = typeof read === "string" ? undefined : hashes.get(read.key);
    if (typeof read === "string") problems.push(`line ${line}: ${read}`);
    else if (named !== undefined) problems.push(`line ${line}: the name ${JSON.stringify(read.name)} is already line ${named.line}'s`);
    else if (keyed !== undefined) problems.push(`line ${line}: the same key as line ${keyed.line} (${JSON.stringify(keyed.name)})`);
    else {
      names.set(read.name, { line });
      hashes.set(read.key, { line, name: read.name });
      entries.push(read);
      latest = Math.max(latest, read.expires === undefined ? Infinity : (expiryOf(read.expires) as { at: number }).at);
    }
  }
  if (problems.length === 0 && entries.length === 0) problems.push(`it holds no key: write one a line, a name and the key's ${HASH_PREFIX}<hash> (animal-store key prints such a line)`);
  if (problems.length === 0 && latest <= now) problems.push(`every key in it has expired (the last at ${new Date(latest).toISOString()}), so no request would be accepted`);
  if (problems.length > LISTED_PROBLEMS) problems.splice(LISTED_PROBLEMS, Infinity, `and ${problems.length - LISTED_PROBLEMS} more lines with problems`);
  return problems.length === 0 ? { ok: true, value: entries } : { ok: false, issues: problems };
}

/** The line of a key file for an entry: its name, its key's SHA-256, and its scope and expiry when it has them. */
export function keyFileLine(entry: ApiKeyEntry): string {
  const scope = entry.scope === undefined || entry.scope === "write" ? "" : ` scope=${entry.scope}`;
  const expires = entry.expires === undefined ? "" : ` expires=${entry.expires instanceof Date ? entry.expires.toISOString() : entry.expires}`;
  return `${entry.name} ${HASH_PREFIX}${keyHash(entry.key)}${scope}${expires}`;
}

/** One line read: an entry (its key hashed), nothing (blank or a comment), or what is wrong with it. */
function readLine(line: string, number: number): ApiKeyEntry | string | undefined {
  if (number === 1 && line.charCodeAt(0) === 0xfeff) return "the file starts with a byte order mark (U+FEFF); save it as UTF-8 without one";
  if (line.length > MAX_KEY_LINE) return `the line is longer than ${MAX_KEY_LINE} characters`;
  if (line.endsWith("\r")) return "the line ends with a carriage return (CRLF); save the file with LF line ends";
  const all = line.trim().split(SEPARATOR);
  const comment = all.findIndex((field) => field.startsWith("#"));
  const [name, key, ...fields] = comment === -1 ? all : all.slice(0, comment);
  if (name === undefined || name === "") return undefined;
  if (key === undefined) return `${JSON.stringify(name)} has no key: write the name, then the key's ${HASH_PREFIX}<hash>`;
  const problem = nameProblem(name) ?? keyProblem(key);
  if (problem !== undefined) return problem;
  const given: Partial<Record<(typeof FIELD_NAMES)[number], string>> = {};
  for (const field of fields) {
    const equals = field.indexOf("=");
    const fieldName = FIELD_NAMES.find((known) => known === field.slice(0, equals));
    if (equals === -1 || fieldName === undefined) return `unknown field ${JSON.stringify(field.length > 40 ? `${field.slice(0, 40)}…` : field)}; the fields are scope=read (or write) and expires=<RFC 3339 time>`;
    if (given[fieldName] !== undefined) return `the field ${fieldName} is given twice`;
    given[fieldName] = field.slice(equals + 1);
  }
  const scope = given.scope;
  if (scope !== undefined && !KEY_SCOPES.includes(scope as KeyScope)) return `unknown scope ${JSON.stringify(scope)}; the scopes are read and write (the default)`;
  if (given.expires !== undefined) {
    const expiry = expiryOf(given.expires);
    if ("problem" in expiry) return expiry.problem;
  }
  return {
    name,
    key: `${HASH_PREFIX}${keyHash(key)}`,
    ...(scope === undefined ? {} : { scope: scope as KeyScope }),
    ...(given.expires === undefined ? {} : { expires: given.expires }),
  };
}
