/**
 * @module
 * Private to the API keys: what a key entry may hold, checked the same way for a host's entries
 * (`createKeyRing`) and a key file's lines (`key-file.ts`). No message echoes a key or its hash.
 */
import { digestHex, sha256, sha256Scratch } from "./_sha256.ts";

/** What a key may do: `read` only `GET` and `HEAD`; `write`, the default, every operation. */
export type KeyScope = "read" | "write";

/** A key as a host or a key file gives it: a name, the key itself or its SHA-256, and optionally a scope and an expiry. */
export interface ApiKeyEntry {
  /** What the access log, traces and the rate limit call the key's client: 1 to 64 letters, digits, `.`, `_` or `-`, the first a letter or digit. */
  readonly name: string;
  /** The bearer token itself, or its SHA-256 as `sha256:` and 64 hexadecimal digits, so that the key need not be kept. */
  readonly key: string;
  /** `read`: `GET` and `HEAD` only (anything else answers 403); `write` (the default): every operation. */
  readonly scope?: KeyScope | undefined;
  /** When the key stops being accepted: an RFC 3339 time (`2026-12-31T00:00:00Z`, or with an offset) or a `Date`. */
  readonly expires?: string | Date | undefined;
}

/** A key as `createApp` and `createKeyRing` take it: a bearer token alone (named `key-1`, `key-2`… by its place), or an entry. */
export type ApiKey = string | ApiKeyEntry;

/** A configured key as a request found it: what may be said of it, never the key or its hash. */
export interface KnownKey {
  readonly name: string;
  readonly scope: KeyScope;
  /** When it expires, in milliseconds since the epoch; absent when it does not. */
  readonly expiresAt?: number;
}

/** The scopes, `write` (the default) first. */
export const KEY_SCOPES: readonly KeyScope[] = Object.freeze(["write", "read"]);

/** The longest key, in characters: a bearer token past it is refused without being hashed. */
export const MAX_KEY_LENGTH = 1024;

/** The longest name of a key, in characters. */
const MAX_NAME_LENGTH = 64;

/** How a key written as its SHA-256 starts (a bearer token cannot hold `:`). */
export const HASH_PREFIX = "sha256:";

// RFC 6750 §2.1: a bearer token has the token68 syntax (RFC 9110 §11.2).
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const HEX_DIGEST = /^[0-9A-Fa-f]{64}$/;
// RFC 3339 §5.6 date-time, with a `T` (a space would split a key file's line).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Whether a key can be sent as a bearer token (RFC 6750 token68: letters, digits, `-._~+/`, then `=`). */
export function isBearerToken(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && TOKEN68.test(key);
}

/**
 * Whether `bytes[start, end)` is a key's name: 1 to 64 letters, digits, `.`, `_` or `-`, the first a
 * letter or digit (safe as it is in a log line, a metric label or a span attribute).
 */
export function isKeyName(bytes: Uint8Array, start: number, end: number): boolean {
  if (end <= start || end - start > MAX_NAME_LENGTH) return false;
  for (let i = start; i < end; i++) {
    const code = bytes[i]!;
    const alphanumeric = (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);
    if (!alphanumeric && (i === start || (code !== 0x2e && code !== 0x5f && code !== 0x2d))) return false;
  }
  return true;
}

/** What is wrong with a key's name, or `undefined`. */
export function nameProblem(name: unknown): string | undefined {
  const bytes = typeof name === "string" ? new TextEncoder().encode(name) : undefined;
  if (bytes !== undefined && bytes.length === (name as string).length && isKeyName(bytes, 0, bytes.length)) return undefined;
  const shown = typeof name === "string" ? JSON.stringify(name.length > 70 ? `${name.slice(0, 70)}…` : name) : String(name);
  return `the name must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got ${shown}`;
}

/** What is wrong with a key (the token itself, or `sha256:` and its hash), never quoting it; `undefined` when it is one. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return `the key must be a string, got ${typeof key}`;
  if (key.startsWith(HASH_PREFIX)) {
    const hex = key.slice(HASH_PREFIX.length);
    return HEX_DIGEST.test(hex) ? undefined : `"${HASH_PREFIX}" must be followed by the key's SHA-256 as 64 hexadecimal digits, got ${hex.length} characters${/^[0-9A-Fa-f]*$/.test(hex) ? "" : " that are not all hexadecimal digits"}`;
  }
  if (key.length > MAX_KEY_LENGTH) return `the key is longer than ${MAX_KEY_LENGTH} characters`;
  return TOKEN68.test(key) ? undefined : "the key holds characters a bearer token cannot carry (letters, digits and -._~+/, then = at the end only)";
}

/** The SHA-256 of a key that `keyProblem` accepts, as 64 lowercase hexadecimal digits: the hash it names, or the digest of the token. */
export function keyHash(key: string): string {
  if (key.startsWith(HASH_PREFIX)) return key.slice(HASH_PREFIX.length).toLowerCase();
  const scratch = sha256Scratch();
  sha256(key, 0, key.length, scratch);
  return digestHex(scratch.digest);
}

/** What is wrong with a scope, or `undefined` (absent is `write`). */
export function scopeProblem(scope: unknown): string | undefined {
  return scope === undefined || KEY_SCOPES.includes(scope as KeyScope) ? undefined : `the scope must be "read" or "write", got ${JSON.stringify(String(scope))}`;
}

/** An expiry in milliseconds since the epoch, from an RFC 3339 time (`2026-12-31T00:00:00Z`) or a `Date`; or what is wrong with it. */
export function expiryOf(value: string | Date): { readonly at: number } | { readonly problem: string } {
  const at = value instanceof Date ? value.getTime() : timeOf(value);
  if (at !== undefined && Number.isFinite(at)) return { at };
  const shown = value instanceof Date ? "an invalid Date" : JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return { problem: `the expiry must be an RFC 3339 time such as 2026-12-31T00:00:00Z (or with an offset, +02:00), got ${shown}` };
}

/** The milliseconds since the epoch an RFC 3339 date-time names, or `undefined` when it is not one (a 30 February, an hour 24, a leap second). */
function timeOf(text: string): number | undefined {
  const parts = DATE_TIME.exec(text);
  if (parts === null) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = Number(`0.${parts[7] ?? "0"}`) * 1000;
  const offset = parts[8] !== undefined ? 0 : (parts[9] === "-" ? -1 : 1) * (Number(parts[10]) * 60 + Number(parts[11])) * 60_000;
  const at = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(fraction));
  // Date.UTC rolls 30 February over into March: a time that does not come back as written is not one.
  const back = new Date(at);
  const exact = back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day && back.getUTCHours() === hour && back.getUTCMinutes() === minute;
  return exact && second < 60 && Number(parts[10] ?? 0) < 24 && Number(parts[11] ?? 0) < 60 ? at - offset : undefined;
}
